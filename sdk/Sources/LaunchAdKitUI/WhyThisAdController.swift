#if canImport(UIKit)
import LaunchAdKit
import UIKit

/// The "why this ad" sheet (iOS 15: `UISheetPresentationController`, medium and large detents): the title, the
/// lines the core wrote (``WhyThisAdSheet``) and a close button. It says when it is gone, closed by its button or
/// swiped down (`presentationControllerDidDismiss`), once.
@MainActor
final class WhyThisAdController: UIViewController, UIAdaptivePresentationControllerDelegate {
    private let sheet: WhyThisAdSheet
    private var dismissed: (@MainActor @Sendable () -> Void)?

    init(sheet: WhyThisAdSheet, dismissed: @escaping @MainActor @Sendable () -> Void) {
        self.sheet = sheet
        self.dismissed = dismissed
        super.init(nibName: nil, bundle: nil)
        modalPresentationStyle = .pageSheet
        if let presentation = sheetPresentationController {
            presentation.detents = [.medium(), .large()]
            presentation.prefersGrabberVisible = true
        }
        presentationController?.delegate = self
    }

    @available(*, unavailable)
    required init?(coder: NSCoder) { fatalError("not from a storyboard") }

    override func viewDidLoad() {
        super.viewDidLoad()
        view.backgroundColor = .systemBackground
        let heading = UILabel()
        heading.text = sheet.title
        heading.font = .preferredFont(forTextStyle: .headline)
        heading.numberOfLines = 0
        let stack = UIStackView(arrangedSubviews: [heading] + sheet.lines.map { line in
            let label = UILabel()
            label.text = line
            label.font = .preferredFont(forTextStyle: .body)
            label.numberOfLines = 0
            return label
        })
        let close = UIButton(type: .system)
        close.setTitle(sheet.close, for: .normal)
        close.addTarget(self, action: #selector(closeTapped), for: .touchUpInside)
        stack.addArrangedSubview(close)
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
