import ArgumentParser
import Foundation
import ZeroMQ

/// A server public key given as text or as `@FILE`.
func readServerKey(_ text: String) throws -> String {
    var key = text
    if text.hasPrefix("@") {
        guard let contents = FileManager.default.contents(atPath: String(text.dropFirst())) else {
            throw ValidationError("cannot read the key file \(text.dropFirst())")
        }
        key = String(decoding: contents, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }
    guard CurveKey.isValid(key) else { throw ValidationError("--server-key is not a 40-character Z85 CURVE public key") }
    return key
}
