#if canImport(UIKit)
import LaunchAdKit
import UIKit

/// The "why this ad" sheet (iOS 15: `UISheetPresentationController`, medium and large detents): the title, the
/// lines the core wrote (``WhyThisAdSheet``) and a close button. It says when it is gone, closed by its button or
/// swiped down (`presentationControllerDidDismiss`), once. At the medium detent the ad above it stays undimmed and
/// takes taps, so its skip closes the ad at any time.
@MainActor
final class WhyThisAdController: UIViewController, UIAdaptivePresentationControllerDelegate {
    private var sheet: WhyThisAdSheet
    private let stack = UIStackView()
    private var dismissed: (@MainActor @Sendable () -> Void)?

    init(sheet: WhyThisAdSheet, dismissed: @escaping @MainActor @Sendable () -> Void) {
        self.sheet = sheet
        self.dismissed = dismissed
        super.init(nibName: nil, bundle: nil)
        modalPresentationStyle = .pageSheet
        if let presentation = sheetPresentationController {
            presentation.detents = [.medium(), .large()]
            presentation.prefersGrabberVisible = true
            presentation.largestUndimmedDetentIdentifier = .medium
        }
        presentationController?.delegate = self
    }

    @available(*, unavailable)
    required init?(coder: NSCoder) { fatalError("not from a storyboard") }

    override func viewDidLoad() {
        super.viewDidLoad()
        view.backgroundColor = .systemBackground
        fill()
        stack.axis = .vertical
        stack.spacing = 12
        stack.alignment = .leading
        stack.translatesAutoresizingMaskIntoConstraints = false
        view.addSubview(stack)
        let margins = view.layoutMarginsGuide
        NSLayoutConstraint.activate([
            stack.topAnchor.constraint(equalTo: margins.topAnchor, constant: 24),
            stack.leadingAnchor.constraint(equalTo: margins.leadingAnchor),
            stack.trailingAnchor.constraint(equalTo: margins.trailingAnchor),
        ])
    }

    /// The edge's answer came: the same sheet, its lines replaced.
    func show(_ sheet: WhyThisAdSheet) {
        self.sheet = sheet
        if isViewLoaded { fill() }
    }

    private func fill() {
        for view in stack.arrangedSubviews {
            stack.removeArrangedSubview(view)
            view.removeFromSuperview()
        }
        let heading = UILabel()
        heading.text = sheet.title
        heading.font = .preferredFont(forTextStyle: .headline)
        heading.numberOfLines = 0
        stack.addArrangedSubview(heading)
        for line in sheet.lines {
            let label = UILabel()
            label.text = line
            label.font = .preferredFont(forTextStyle: .body)
            label.numberOfLines = 0
            stack.addArrangedSubview(label)
        }
        let close = UIButton(type: .system)
        close.setTitle(sheet.close, for: .normal)
        close.addTarget(self, action: #selector(closeTapped), for: .touchUpInside)
        stack.addArrangedSubview(close)
    }

    /// Closed by its button: the countdown goes on as the sheet slides away.
    @objc private func closeTapped() {
        finish()
        dismiss(animated: true)
    }

    /// Swiped down.
    func presentationControllerDidDismiss(_ presentationController: UIPresentationController) {
        finish()
    }

    private func finish() {
        let dismissed = dismissed
        self.dismissed = nil
        dismissed?()
    }
}
#endif
