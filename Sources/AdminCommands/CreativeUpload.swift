import ArgumentParser
import Foundation
import JSONRPC
import LaunchAdAPI
import LaunchAdDomain

extension CreativeCommand {
    /// Uploads a file; its content type is read from its bytes, not its name.
    struct Upload: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Upload an image or video; prints its sha256, type, pixel size and how long it plays.",
            discussion: "Example:\n  adctl creative upload splash-1179x2556.jpg")

        @OptionGroup var connection: ConnectionOptions
        @Argument(help: "The file to upload (JPEG, PNG, GIF, WebP or MP4; not QuickTime, HEIC or AVIF).")
        var file: String

        func run() async throws {
            guard let data = FileManager.default.contents(atPath: file) else { throw CommandFailure("cannot read \(file)") }
            let contentType: String
            do {
                contentType = try CreativeInspector.sniff([UInt8](data))
            } catch {
                throw CommandFailure("\(file): \(error)")
            }
            try await connection.run { client in
                let info = try await client.call(AdminAPI.creativeUpload, CreativeUploadParams(contentType: contentType, data: data.base64EncodedString()))
                if connection.json {
                    print(try JSONValueEncoder().encode(info).jsonText)
                } else {
                    print(DisplayText.escaped("sha256  \(info.sha256)"))
                    print(DisplayText.escaped("type    \(info.contentType)"))
                    print("size    \(info.width)x\(info.height), \(info.size) bytes")
                    print(info.durationMs > 0 ? "length  \(info.durationMs) ms" : "length  0 ms (a still image)")
                }
            }
        }
    }
}
