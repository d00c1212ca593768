import Foundation

/// `value` with thousands separated by commas (`12,345`).
func grouped(_ value: Int) -> String {
    let digits = String(value)
    var out = ""
    for (index, character) in digits.enumerated() {
        if index > 0, character != "-", (digits.count - index) % 3 == 0 { out.append(",") }
        out.append(character)
    }
    return out
}

/// `value` with `digits` decimals.
func fixed(_ value: Double, _ digits: Int) -> String {
    String(format: "%.\(digits)f", value)
}

extension String {
    /// The text right-aligned in `width` columns.
    func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: " ", count: width - count) + self
    }
}
