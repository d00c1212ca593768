import Foundation
import HTTPTypes
import JSONRPC
import LaunchAdAPI
import NIOCore
import NIOHTTP1

/// The edge's own HTTP paths, below Hummingbird's router: one handler per HTTP/1.1 connection (right after the
/// codec's parser, before the conversion to HTTP types) or HTTP/2 stream (see ``HTTPEdgeWire``). `POST /rpc` and
/// `GET /launch-ad` are read, dispatched inline on the event loop (as the client socket's thread does) and answered
/// from here; every other request goes on to Hummingbird untouched.
///
/// It also keeps each connection honest: a rate limit per client address, a bounded number of requests being
/// answered over all connections (a place is taken once a request is whole, so that a slow body costs its own
/// connection, not the others' service), an idle timeout, a body timeout counted from the end of the head (408 and
/// the connection closed), reading paused while the peer does not read its answers, and a clear status for a request
/// the codec could not parse. Answers go out in request order, also behind requests that Hummingbird answers. (The
/// time to send a head is the connection gate's, see ``HTTPConnectionGate``.)
final class HTTPEdgeHandler<Wire: HTTPEdgeWire>: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = Wire.RequestPart
    typealias InboundOut = Wire.RequestPart
    typealias OutboundIn = Wire.ResponsePart
    typealias OutboundOut = Wire.ResponsePart

    private enum Reading {
        /// No request under way.
        case between
        /// A request Hummingbird answers: its parts go on.
        case passing
        /// A `POST /rpc` body being read.
        case rpc
        /// A `GET /launch-ad` with this query.
        case launchAd(Substring)
        /// The rest of a request already answered (refused) is dropped.
        case dropping
    }

    private let door: HTTPFrontDoor
    private var reading = Reading.between
    private let version = Wire.version
    /// HTTP/1.1's response encoder, whose context writes answers as bytes.
    private var codec: ChannelHandlerContext?
    private var address = ""
    private var method = "POST"
    private var body: ByteBuffer?
    /// The bytes of `body` held against the front door's bound on bodies being received.
    private var bodyHeld = 0
    /// Places among those in flight this connection holds: a request being answered, or an asynchronous answer owed.
    private var placesHeld = 0
    private var closeAfter = false
    private var awaitsContinue = false
    /// The last answer is out: what comes in is dropped.
    private var closing = false
    /// The route and method of each request passed on whose answer has not ended yet, oldest first.
    private var passedOn: [(route: HTTPMetrics.Route, method: String)] = []
    /// Answers of asynchronous calls not yet written.
    private var deferredOwed = 0
    /// Own answers waiting behind those.
    private var waiting: [(answer: HTTPEdgeAnswer, close: Bool)] = []
    /// The parts of the requests read after one for Hummingbird that came while own answers waited (passed on then,
    /// its answer would go out before theirs), in order; reading stops until they are taken up again.
    private var held: [NIOAny] = []
    private var holding = false
    private var lastActive = NIODeadline.now()
    private var requestStarted: NIODeadline?
    private var timer: Scheduled<Void>?
    private var timerDeadline: NIODeadline?
    private var readPending = false
    private var needsFlush = false
    private var counted = HTTPCount()
    private var date = HTTPDate()
    private let scratch = JSONRPCDispatcher.Scratch()

    init(door: HTTPFrontDoor) {
        self.door = door
    }

    // MARK: Lifecycle

    func handlerAdded(context: ChannelHandlerContext) {
        codec = try? context.pipeline.syncOperations.context(handlerType: HTTPResponseEncoder.self)
        if context.channel.isActive { started(context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        started(context)
        context.fireChannelActive()
    }

    private func started(_ context: ChannelHandlerContext) {
        guard timer == nil else { return }
        address = context.channel.remoteAddress?.ipAddress ?? ""
        lastActive = .now()
        arm(context, at: lastActive + door.idleTimeout)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        finish()
    }

    func channelInactive(context: ChannelHandlerContext) {
        finish()
        context.fireChannelInactive()
    }

    private func finish() {
        dropBody()
        timer?.cancel()
        timer = nil
        timerDeadline = nil
        while placesHeld > 0 { leavePlace() }
    }

    /// Lets go of the body being read, and of its bytes held against the bound on bodies being received.
    private func dropBody() {
        body = nil
        door.releaseBody(bodyHeld)
        bodyHeld = 0
    }

    /// Takes a place for a request now whole; `false` (answered 503) when all are taken.
    private func takePlace(_ context: ChannelHandlerContext, _ route: HTTPMetrics.Route) -> Bool {
        guard door.enter() else {
            busy(context, route)
            return false
        }
        placesHeld += 1
        return true
    }

    private func leavePlace() {
        if placesHeld > 0 {
            placesHeld -= 1
            door.leave()
        }
    }

    // MARK: Reading

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !closing else { return }
        guard !holding else {
            held.append(data)
            return
        }
        take(context, data)
    }

    /// Takes up the requests held, in order, once no own answer waits; until one of them has to be held again.
    private func resume(_ context: ChannelHandlerContext) {
        guard holding, waiting.isEmpty, deferredOwed == 0 else { return }
        holding = false
        while !holding, !closing, !held.isEmpty { take(context, held.removeFirst()) }
        // As at the end of a read: what went on to Hummingbird is taken up (its channel waits for this), and answers go.
        context.fireChannelReadComplete()
        if needsFlush {
            needsFlush = false
            context.flush()
        }
        if !holding {
            held.removeAll()
            if readPending && context.channel.isWritable {
                readPending = false
                context.read()
            }
        }
    }

    private func take(_ context: ChannelHandlerContext, _ data: NIOAny) {
        switch Wire.inbound(data) {
        case .head(let request):
            head(context, request, data)
        case .body(let part):
            switch reading {
            case .passing:
                context.fireChannelRead(data)
            case .rpc:
                let total = (body?.readableBytes ?? 0) + part.readableBytes
                guard total <= door.maxBody else {
                    dropBody()
                    refuse(context, .rpc, .contentTooLarge, "the body is over \(door.maxBody) bytes", close: true)
                    return
                }
                // Held against the bound on bodies being received over all connections (an HTTP/2 connection receives
                // one on each of its streams): past it, refused now rather than held.
                guard door.holdBody(part.readableBytes) else {
                    dropBody()
                    refuse(context, .rpc, .serviceUnavailable, "\(door.maxBodyBytes) bytes of request bodies are being received",
                           headers: [(.retryAfter, "1")], close: true)
                    return
                }
                bodyHeld += part.readableBytes
                if body == nil { body = part } else { body!.writeImmutableBuffer(part) }
            case .between, .launchAd, .dropping:
                break
            }
        case .end:
            let state = reading
            reading = .between
            requestStarted = nil
            switch state {
            case .passing: context.fireChannelRead(data)
            case .rpc: if takePlace(context, .rpc) { answerRPC(context) }
            case .launchAd(let query): if takePlace(context, .launchAd) { answerLaunchAd(context, query) }
            case .between, .dropping: break
            }
        }
    }

    private func head(_ context: ChannelHandlerContext, _ request: HTTPRequestSummary, _ data: NIOAny) {
        let now = NIODeadline.now()
        requestStarted = now
        arm(context, at: now + door.requestTimeout)
        dropBody()
        method = request.method
        let path = request.path
        let route = HTTPRequestSummary.route(path)
        // A refused request whose client waits for 100 Continue never sends its body: the connection cannot go on.
        closeAfter = request.closes
        awaitsContinue = request.expectsContinue
        if let limiter = door.rateLimiter, let wait = limiter.take(address) {
            refuse(context, route, .tooManyRequests, "more than \(limiter.rate) requests a second from \(HTTPRateLimiter.client(of: address))",
                   headers: [(.retryAfter, String(wait))])
            return
        }
        switch route {
        case .rpc:
            guard request.method == "POST" else {
                return refuse(context, route, .methodNotAllowed, "/rpc takes POST", headers: [(.allow, "POST")])
            }
            guard request.isJSON else {
                return refuse(context, route, .unsupportedMediaType, "/rpc takes Content-Type application/json or application/json-rpc")
            }
            if let length = request.contentLength, length > door.maxBody {
                return refuse(context, route, .contentTooLarge, "the body is over \(door.maxBody) bytes", close: true)
            }
            reading = .rpc
            if request.expectsContinue {
                awaitsContinue = false
                Wire.writeContinue(context: context, codec: codec)
            }
        case .launchAd:
            guard request.method == "GET" else {
                return refuse(context, route, .methodNotAllowed, "/launch-ad takes GET", headers: [(.allow, "GET")])
            }
            let query = path.firstIndex(of: "?").map { path[path.index(after: $0)...] } ?? ""
            reading = .launchAd(query)
        case .creatives, .ops, .other:
            guard waiting.isEmpty && deferredOwed == 0 else {
                // Own answers wait for an earlier request's: this one (and what follows) waits for them to go.
                holding = true
                held.insert(data, at: 0)
                requestStarted = nil
                return
            }
            passedOn.append((route, method))
            reading = .passing
            context.fireChannelRead(data)
        }
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        if needsFlush {
            needsFlush = false
            context.flush()
        }
        context.fireChannelReadComplete()
    }

    /// A request the codec could not read (a malformed line, headers over the limit): a status, then the
    /// connection is closed, as the codec reads nothing more from it.
    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard let parse = error as? HTTPParserError, codec != nil, case .between = reading else {
            context.fireErrorCaught(error)
            return
        }
        let tooLarge = parse == .headerOverflow
        reading = .dropping
        respond(context, .other, tooLarge ? .requestHeaderFieldsTooLarge : .badRequest, text: tooLarge ? "the headers are too large" : "a malformed request",
                headers: [], close: true)
        context.flush()
    }

    // MARK: Answers

    private func answerRPC(_ context: ChannelHandlerContext) {
        let message = body ?? ByteBuffer()
        // The body is done with once dispatched (an asynchronous call has copied what it needs).
        defer { dropBody() }
        let outcome = message.withUnsafeReadableBytes { door.dispatcher.dispatch($0, context: RPCContext(), scratch: scratch) }
        switch outcome {
        case .reply(let writer):
            leavePlace()
            answer(context, .rpc, .json, close: closeAfter) { writer.withUnsafeBytes($0) }
        case .noReply:
            leavePlace()
            respond(context, .rpc, .noContent, body: nil, headers: [], close: closeAfter)
        case .deferred(let work):
            // Its place is held until it is answered.
            // No client method is asynchronous today; an asynchronous one answers when done, and the answers after
            // it on this connection wait for it.
            deferredOwed += 1
            let close = closeAfter
            context.eventLoop.makeFutureWithTask { await work() }.assumeIsolated().whenComplete { result in
                self.deferredOwed -= 1
                self.leavePlace()
                let reply = (try? result.get()) ?? nil
                // Held by the dispatcher as it was made; `write` holds it again until the connection has written it.
                if let reply { self.door.dispatcher.release(deferredReply: reply.count) }
                let answer = HTTPEdgeAnswer(status: reply == nil ? .noContent : .ok,
                                            headers: reply == nil ? [] : [(.contentType, "application/json")],
                                            body: reply.map { context.channel.allocator.buffer(bytes: $0) })
                self.counted.count(.init(route: .rpc, method: "POST", status: answer.status.code, version: self.version), in: self.door.metrics)
                self.write(context, answer, close: close)
                self.drain(context)
                context.flush()
            }
        }
    }

    private func answerLaunchAd(_ context: ChannelHandlerContext, _ query: Substring) {
        var json = JSONWriter(reservingCapacity: 768)
        var head = HTTPPreparedHead.launchAd
        do {
            door.launchAd(try LaunchAdQuery.request(query), &json)
        } catch {
            head = .launchAdRefused
            ClassicLaunchAnswer.writeError(code: 400, message: error.description, into: &json)
        }
        leavePlace()
        answer(context, .launchAd, head, close: closeAfter) { json.withUnsafeBytes($0) }
    }

    /// Answers with the bytes `body` gives: on HTTP/1.1 written after the head in one buffer, when nothing waits.
    private func answer(_ context: ChannelHandlerContext, _ route: HTTPMetrics.Route, _ head: HTTPPreparedHead, close: Bool,
                        _ body: ((UnsafeRawBufferPointer) -> Void) -> Void) {
        var length = 0
        body { length = $0.count }
        if !close, passedOn.isEmpty, deferredOwed == 0 {
            date.refresh()
            if var bytes = Wire.buffer(for: head, length: length, date: date, allocator: context.channel.allocator) {
                body { _ = bytes.writeBytes($0) }
                counted.count(.init(route: route, method: method, status: head.status.code, version: version), in: door.metrics)
                lastActive = .now()
                write(context, HTTPEdgeAnswer(status: head.status, headers: head.headers, body: bytes, headed: true), close: false)
                return
            }
        }
        var bytes = context.channel.allocator.buffer(capacity: length)
        body { _ = bytes.writeBytes($0) }
        respond(context, route, head.status, body: bytes, headers: head.headers, close: close)
    }

    private func busy(_ context: ChannelHandlerContext, _ route: HTTPMetrics.Route) {
        refuse(context, route, .serviceUnavailable, "\(door.maxInFlight) requests are being answered", headers: [(.retryAfter, "1")])
        reading = .between
    }

    /// Answers the request now, with `status` and a line saying why (for `/launch-ad` in its envelope); the rest of
    /// the request is dropped.
    private func refuse(_ context: ChannelHandlerContext, _ route: HTTPMetrics.Route, _ status: HTTPResponse.Status, _ why: String,
                        headers: [(name: HTTPField.Name, value: String)] = [], close refusing: Bool = false) {
        reading = .dropping
        let close = refusing || awaitsContinue
        if route == .launchAd {
            var json = JSONWriter()
            ClassicLaunchAnswer.writeError(code: status.code, message: why, into: &json)
            let fields = headers + [(.contentType, "application/json"), (.cacheControl, "no-store")]
            respond(context, route, status, body: json.withUnsafeBytes { context.channel.allocator.buffer(bytes: $0) }, headers: fields,
                    close: close || closeAfter)
        } else {
            respond(context, route, status, text: why, headers: headers, close: close || closeAfter)
        }
        if close { context.flush() }
    }

    private func respond(_ context: ChannelHandlerContext, _ route: HTTPMetrics.Route, _ status: HTTPResponse.Status, text: String,
                         headers: [(name: HTTPField.Name, value: String)], close: Bool) {
        let fields = headers + [(.contentType, "text/plain; charset=utf-8")]
        respond(context, route, status, body: context.channel.allocator.buffer(string: text + "\n"), headers: fields, close: close)
    }

    private func respond(_ context: ChannelHandlerContext, _ route: HTTPMetrics.Route, _ status: HTTPResponse.Status, body: ByteBuffer?,
                         headers: [(name: HTTPField.Name, value: String)], close: Bool) {
        counted.count(.init(route: route, method: method, status: status.code, version: version), in: door.metrics)
        lastActive = .now()
        // A refusal of a HEAD (the only own answers one gets) has no body: bytes after the head would be read as the
        // start of the next answer.
        let body = method == "HEAD" ? nil : body
        let answer = HTTPEdgeAnswer(status: status, headers: close && codec != nil ? headers + [(.connection, "close")] : headers, body: body)
        guard passedOn.isEmpty && deferredOwed == 0 else {
            waiting.append((answer, close))
            return
        }
        write(context, answer, close: close)
    }

    private func write(_ context: ChannelHandlerContext, _ answer: HTTPEdgeAnswer, close: Bool) {
        var written: EventLoopPromise<Void>?
        let size = answer.body?.readableBytes ?? 0
        if let budget = door.dispatcher.replyBudget, size >= budget.largeReply {
            // A large reply is held against the client socket's budget until the connection has written it.
            budget.hold(size)
            written = context.eventLoop.makePromise(of: Void.self)
            written?.futureResult.whenComplete { _ in budget.release(size) }
        }
        // An HTTP/2 stream that ends with this answer is closed once the answer has left it: closed at once, it dropped the
        // answer still queued (the client saw only a reset).
        if close && codec == nil && written == nil { written = context.eventLoop.makePromise(of: Void.self) }
        if !answer.headed { date.refresh() }
        Wire.write(answer, date: date, context: context, codec: codec, written: written)
        if close {
            context.flush()
            closeGracefully(context, after: written?.futureResult)
        } else {
            needsFlush = true
        }
    }

    /// Ends the connection after its last answer: on HTTP/1.1 by closing the output only, reading and dropping what
    /// the client still sends for a moment (so that the answer is not lost to a reset), then closing it; on HTTP/2 by
    /// closing the stream once its answer is `written` (the client's body, if it was still coming, is then reset).
    private func closeGracefully(_ context: ChannelHandlerContext, after written: EventLoopFuture<Void>?) {
        closing = true
        guard codec != nil else {
            if let written {
                written.assumeIsolated().whenComplete { _ in context.close(promise: nil) }
            } else {
                context.close(promise: nil)
            }
            return
        }
        let halfClosed = context.eventLoop.makePromise(of: Void.self)
        halfClosed.futureResult.assumeIsolated().whenFailure { _ in context.close(promise: nil) }
        context.close(mode: .output, promise: halfClosed)
        _ = context.eventLoop.assumeIsolated().scheduleTask(in: .seconds(2)) { context.close(promise: nil) }
    }

    /// Writes the own answers that waited, once nothing is owed before them, then takes up the requests held.
    private func drain(_ context: ChannelHandlerContext) {
        guard passedOn.isEmpty && deferredOwed == 0 else { return }
        let ready = waiting
        waiting.removeAll()
        for waited in ready { write(context, waited.answer, close: waited.close) }
        // Not from within the write of an answer's end that got here: the next request goes on once that is done.
        if holding { context.eventLoop.assumeIsolated().execute { self.resume(context) } }
    }

    // MARK: Answers from Hummingbird

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch Wire.outbound(data) {
        case .head(let status):
            if let request = passedOn.first, status >= 200 {
                counted.count(.init(route: request.route, method: request.method, status: status, version: version), in: door.metrics)
            }
            context.write(data, promise: promise)
        case .body:
            context.write(data, promise: promise)
        case .end:
            context.write(data, promise: promise)
            if !passedOn.isEmpty { passedOn.removeFirst() }
            lastActive = .now()
            drain(context)
        }
    }

    // MARK: Back-pressure

    /// Reading stops while the peer leaves answers unread (the channel is not writable), so a client that sends
    /// and never reads holds at most about the channel's high-water mark of answers.
    func read(context: ChannelHandlerContext) {
        if context.channel.isWritable && !holding {
            context.read()
        } else {
            readPending = true
        }
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable && readPending && !holding {
            readPending = false
            context.read()
        }
        context.fireChannelWritabilityChanged()
    }

    // MARK: Timeouts

    /// Makes the timer fire at `deadline` at the latest.
    private func arm(_ context: ChannelHandlerContext, at deadline: NIODeadline) {
        if let current = timerDeadline, current <= deadline { return }
        timer?.cancel()
        timerDeadline = deadline
        timer = context.eventLoop.assumeIsolated().scheduleTask(deadline: deadline) { [self] in
            tick(context)
        }
    }

    private func tick(_ context: ChannelHandlerContext) {
        timer = nil
        timerDeadline = nil
        guard context.channel.isActive, !closing else { return }
        let now = NIODeadline.now()
        if let started = requestStarted {
            guard now - started >= door.requestTimeout else { return arm(context, at: started + door.requestTimeout) }
            door.connections.closed(.bodyTimeout)
            switch reading {
            case .rpc, .launchAd:
                let route: HTTPMetrics.Route = if case .rpc = reading { .rpc } else { .launchAd }
                refuse(context, route, .requestTimeout, "the body did not arrive within \(door.requestTimeout.nanoseconds / 1_000_000) ms of the headers",
                       close: true)
            default:
                context.close(promise: nil)
            }
            return
        }
        if passedOn.isEmpty && deferredOwed == 0 {
            if now - lastActive >= door.idleTimeout {
                door.connections.closed(.idleTimeout)
                context.close(promise: nil)
                return
            }
            return arm(context, at: lastActive + door.idleTimeout)
        }
        // An answer under way: looked at again later (a request that begins meanwhile re-arms sooner).
        arm(context, at: now + door.idleTimeout)
    }
}
