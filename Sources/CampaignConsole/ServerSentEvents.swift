import Hummingbird

/// A Server-Sent Events stream (`text/event-stream`): `next` is asked every `interval` and what it answers is sent
/// as an event when it differs from the last one sent. The stream ends when the console stops (graceful shutdown
/// does not wait for it), when `next` answers `nil` or throws, or after ``lifetime``, after which the browser's
/// `EventSource` reconnects by itself (`retry`), so no stream outlives its sign-in by long.
enum ServerSentEvents {
    static let lifetime: Duration = .seconds(300)

    static func response(interval: Duration, stopping: StopSignal, next: @escaping @Sendable () async throws -> String?) -> Response {
        var headers = ConsoleResponses.headers(contentType: "text/event-stream; charset=utf-8")
        headers[.cacheControl] = "no-store"
        return Response(status: .ok, headers: headers, body: ResponseBody { writer in
            try await writer.write(ByteBuffer(string: "retry: 1000\n\n"))
            let clock = ContinuousClock()
            let end = clock.now.advanced(by: lifetime)
            var last: String?
            while !stopping.stopped, clock.now < end {
                guard let data = try? await next() else { break }
                if data != last {
                    try await writer.write(ByteBuffer(string: frame(data)))
                    last = data
                }
                try await Task.sleep(for: interval)
            }
            try await writer.finish(nil)
        })
    }

    /// One event: each line of `data` on a `data:` line of its own.
    static func frame(_ data: String) -> String {
        data.split(separator: "\n", omittingEmptySubsequences: false).map { "data: \($0)\n" }.joined() + "\n"
    }
}
