import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One creative's bytes fetched into a partial file, resumed with an HTTP range from where an earlier attempt
/// stopped (`Range: bytes=N-` with `If-Range` naming the creative, which deliveryd's `/creatives/{sha256}` honours);
/// a server that answers the whole body instead starts the file again.
final class CreativeDownload: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    // @unchecked: the delegate's callbacks come one at a time on the session's serial queue; `finish` guards itself.

    /// What happened to the partial file.
    struct Outcome: Sendable {
        /// The status the server answered (0 when none came).
        var status: Int
        /// Whether the bytes were appended to an earlier partial file (a 206 from its end).
        var resumed: Bool
        /// A failure of the transfer, if any (the partial file keeps what arrived).
        var failure: String?
    }

    private let partial: URL
    private let offset: Int
    private let etag: String
    private var handle: FileHandle?
    private var outcome = Outcome(status: 0, resumed: false, failure: nil)
    private var continuation: Once<Outcome>?

    private init(partial: URL, offset: Int, etag: String) {
        self.partial = partial
        self.offset = offset
        self.etag = etag
    }

    /// Fetches `url` into `partial`, resuming from its present length; returns once the transfer ends or
    /// `timeout` seconds have passed.
    static func run(url: URL, partial: URL, sha256: String, timeout: Double) async -> Outcome {
        let offset = ((try? FileManager.default.attributesOfItem(atPath: partial.path)[.size]) as? NSNumber)?.intValue ?? 0
        let download = CreativeDownload(partial: partial, offset: offset, etag: "\"\(sha256)\"")
        var request = URLRequest(url: url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: timeout)
        if offset > 0 {
            request.setValue("bytes=\(offset)-", forHTTPHeaderField: "Range")
            request.setValue(download.etag, forHTTPHeaderField: "If-Range")
        }
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        let session = URLSession(configuration: .ephemeral, delegate: download, delegateQueue: queue)
        defer { session.finishTasksAndInvalidate() }
        let task = session.dataTask(with: request)
        return (try? await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Outcome, any Error>) in
            download.continuation = Once(continuation)
            task.resume()
            DispatchQueue.global().asyncAfter(deadline: .now() + timeout) { task.cancel() }
        }) ?? Outcome(status: 0, resumed: false, failure: "cancelled")
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
                    completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void) {
        let http = response as? HTTPURLResponse
        outcome.status = http?.statusCode ?? 0
        let range = http?.value(forHTTPHeaderField: "Content-Range") ?? ""
        do {
            if outcome.status == 206, offset > 0, range.hasPrefix("bytes \(offset)-") {
                let handle = try FileHandle(forWritingTo: partial)
                try handle.seekToEnd()
                self.handle = handle
                outcome.resumed = true
            } else if outcome.status == 200 {
                _ = FileManager.default.createFile(atPath: partial.path, contents: nil)
                handle = try FileHandle(forWritingTo: partial)
            } else {
                outcome.failure = "HTTP \(outcome.status)"
                completionHandler(.cancel)
                return
            }
            completionHandler(.allow)
        } catch {
            outcome.failure = "\(error)"
            completionHandler(.cancel)
        }
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        do {
            try handle?.write(contentsOf: data)
        } catch {
            outcome.failure = "writing \(partial.lastPathComponent): \(error)"
            dataTask.cancel()
        }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        try? handle?.synchronize()
        try? handle?.close()
        handle = nil
        if let error, outcome.failure == nil { outcome.failure = error.localizedDescription }
        continuation?.resume(returning: outcome)
    }
}
