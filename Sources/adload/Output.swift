#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// Prints `message` as adload's one-line error and exits with `status`.
func fail(_ message: String, status: Int32 = 1) -> Never {
    FileHandle.standardError.write(Data("adload: \(message)\n".utf8))
    Glibc.exit(status)
}

/// JSON for scripts: sorted keys, so the output is stable.
func printJSON(_ value: some Encodable) {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
    do {
        print(String(decoding: try encoder.encode(value), as: UTF8.self))
    } catch {
        fail("cannot encode the result: \(error)")
    }
}
