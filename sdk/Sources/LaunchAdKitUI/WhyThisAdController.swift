#if canImport(UIKit)
import LaunchAdKit
import UIKit

/// The "why this ad" sheet (iOS 15: `UISheetPresentationController`, medium and large detents): the title, the
/// lines the core wrote (``WhyThisAdSheet``), its report action as the core's state says, and a close button. It says
/// when it is gone, closed by its button or swiped down (`presentationControllerDidDismiss`), once. At the medium
/// detent the ad above it stays undimmed and takes taps, so its skip closes the ad at any time: that is why the
/// report's reasons are buttons in the sheet itself, not an action sheet or a menu over the ad. The contents scroll,
/// so that none is out of reach at the medium detent (dragging to the large one dims the ad, and its skip with it);
/// while the reasons are listed, the why lines step aside and the reasons go two a row, so the reasons, the cancel
/// and the close fit at half height.
@MainActor
final class WhyThisAdController: UIViewController, UIAdaptivePresentationControllerDelegate {
    private var sheet: WhyThisAdSheet
    private let scroll = UIScrollView()
    private let stack = UIStackView()
    private var dismissed: (@MainActor @Sendable () -> Void)?
    /// Tells the presenter what was tapped in the report action; it answers with the sheet to show (``show(_:)``).
    private let report: @MainActor @Sendable (AdReportStep) -> Void

    init(sheet: WhyThisAdSheet, dismissed: @escaping @MainActor @Sendable () -> Void,
         report: @escaping @MainActor @Sendable (AdReportStep) -> Void) {
        self.sheet = sheet
        self.dismissed = dismissed
        self.report = report
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
        stack.isLayoutMarginsRelativeArrangement = true
        stack.directionalLayoutMargins = NSDirectionalEdgeInsets(top: 24, leading: 20, bottom: 24, trailing: 20)
        scroll.alwaysBounceVertical = true
        scroll.translatesAutoresizingMaskIntoConstraints = false
        stack.translatesAutoresizingMaskIntoConstraints = false
        view.addSubview(scroll)
        scroll.addSubview(stack)
        let content = scroll.contentLayoutGuide
        NSLayoutConstraint.activate([
            scroll.topAnchor.constraint(equalTo: view.topAnchor),
            scroll.bottomAnchor.constraint(equalTo: view.bottomAnchor),
            scroll.leadingAnchor.constraint(equalTo: view.leadingAnchor),
            scroll.trailingAnchor.constraint(equalTo: view.trailingAnchor),
            stack.topAnchor.constraint(equalTo: content.topAnchor),
            stack.bottomAnchor.constraint(equalTo: content.bottomAnchor),
            stack.leadingAnchor.constraint(equalTo: content.leadingAnchor),
            stack.trailingAnchor.constraint(equalTo: content.trailingAnchor),
            // As wide as the sheet: the lines wrap instead of scrolling sideways.
            stack.widthAnchor.constraint(equalTo: scroll.frameLayoutGuide.widthAnchor),
        ])
    }

    /// The edge's answer came, or the report action moved: the same sheet, its contents replaced.
    func show(_ sheet: WhyThisAdSheet) {
        self.sheet = sheet
        guard isViewLoaded else { return }
        fill()
        // VoiceOver reads the new contents from their first element, not a button that is gone.
        UIAccessibility.post(notification: .layoutChanged, argument: stack.arrangedSubviews.first)
    }

    private func fill() {
        for view in stack.arrangedSubviews {
            stack.removeArrangedSubview(view)
            view.removeFromSuperview()
        }
        stack.addArrangedSubview(label(sheet.title, .headline))
        // The reasons listed, the why lines step aside (the sheet at half height holds the reasons and both buttons).
        let choosing = sheet.report?.state == .choosing
        if !choosing {
            for line in sheet.lines { stack.addArrangedSubview(label(line, .body)) }
        }
        if let action = sheet.report { addReport(action) }
        stack.addArrangedSubview(button(sheet.close, #selector(closeTapped)))
    }

    /// The report action in its state: the button (under a line saying the last report failed, if it did); the
    /// reasons and a cancel; or the line saying it was reported.
    private func addReport(_ action: AdReportAction) {
        switch action.state {
        case .offered:
            stack.addArrangedSubview(button(action.button, #selector(reportTapped)))
        case .notQueued:
            stack.addArrangedSubview(label(action.failed, .footnote))
            stack.addArrangedSubview(button(action.button, #selector(reportTapped)))
        case .choosing:
            // Two a row: four reasons in two rows.
            let reasons = action.choices.enumerated().map { index, choice in
                let reason = button(choice.title, #selector(reasonTapped(_:)))
                reason.tag = index
                return reason
            }
            for start in stride(from: 0, to: reasons.count, by: 2) {
                let row = UIStackView(arrangedSubviews: Array(reasons[start..<min(start + 2, reasons.count)]))
                row.axis = .horizontal
                row.distribution = .fillEqually
                row.spacing = 12
                stack.addArrangedSubview(row)
            }
            stack.addArrangedSubview(button(action.cancel, #selector(reportCancelled)))
        case .reported:
            stack.addArrangedSubview(label(action.done, .body))
        }
    }

    private func label(_ text: String, _ style: UIFont.TextStyle) -> UILabel {
        let label = UILabel()
        label.text = text
        label.font = .preferredFont(forTextStyle: style)
        label.numberOfLines = 0
        return label
    }

    private func button(_ title: String, _ action: Selector) -> UIButton {
        let button = UIButton(type: .system)
        button.setTitle(title, for: .normal)
        button.addTarget(self, action: action, for: .touchUpInside)
        return button
    }

    @objc private func reportTapped() { report(.open) }

    @objc private func reportCancelled() { report(.cancel) }

    /// A reason's button: its tag is the reason's place in the action's choices.
    @objc private func reasonTapped(_ sender: UIButton) {
        guard let choices = sheet.report?.choices, choices.indices.contains(sender.tag) else { return }
        report(.choose(choices[sender.tag].reason))
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
