import Foundation
import JSONRPC

/// The `--ready-file`: a JSON object naming every endpoint a process really bound, written atomically (to a
/// temporary file, then renamed) and only once the process serves, so a script that sees it can connect.
public enum ReadyFile {
    public static func write(_ endpoints: [String: String], to path: String) throws {
        let url = URL(fileURLWithPath: path)
        let object = JSONObject(members: endpoints.sorted { $0.key < $1.key }.map { (key: $0.key, value: JSONValue.string($0.value)) })
        let data = Data(JSONValue.object(object).jsonBytes + [0x0A])
        let temporary = url.deletingLastPathComponent()
            .appendingPathComponent(".\(url.lastPathComponent).\(ProcessInfo.processInfo.processIdentifier).tmp")
        try data.write(to: temporary)
        if rename(temporary.path, url.path) != 0 {
            let code = errno
            try? FileManager.default.removeItem(at: temporary)
            throw RuntimeError.io("cannot write ready file \(path): \(String(cString: strerror(code)))")
        }
    }
}

/// Prints `program: message` on standard error and exits with status 1: for errors an operator can act on,
/// without a usage text or a stack trace.
public func exitWithError(_ program: String, _ message: String) -> Never {
    FileHandle.standardError.write(Data("\(program): \(message)\n".utf8))
    exit(1)
}

/// Why a process cannot start.
public enum RuntimeError: Error, CustomStringConvertible, Equatable {
    case io(String)
    case insecureBind(String)
    case keys(String)
    case configuration(String)

    public var description: String {
        switch self {
        case .io(let message), .keys(let message), .configuration(let message): message
        case .insecureBind(let message): message
        }
    }
}
