#if canImport(UIKit)
import UIKit

/// The ad window's root: hides the status bar over the ad and passes every tap, as a point, to the surface.
final class AdViewController: UIViewController {
    var tapped: ((CGPoint) -> Void)?

    override var prefersStatusBarHidden: Bool { true }

    override func viewDidLoad() {
        super.viewDidLoad()
        view.backgroundColor = .clear
        view.addGestureRecognizer(UITapGestureRecognizer(target: self, action: #selector(tap(_:))))
    }

    @objc private func tap(_ recognizer: UITapGestureRecognizer) {
        tapped?(recognizer.location(in: view))
    }
}
#endif
