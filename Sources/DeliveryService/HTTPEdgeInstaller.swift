import NIOCore
import NIOHTTP1

/// Puts an ``HTTPEdgeHandler`` where it belongs on a connection Hummingbird has just set up: on HTTP/1.1 right after
/// the codec's parser (before the conversion to HTTP types, which the edge's own paths do without), on an HTTP/2
/// stream right after itself. Hummingbird places it after its codec; it then only passes on what reaches it.
final class HTTPEdgeInstaller: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = NIOAny

    private let door: HTTPFrontDoor

    init(door: HTTPFrontDoor) {
        self.door = door
    }

    func handlerAdded(context: ChannelHandlerContext) {
        let pipeline = context.pipeline.syncOperations
        do {
            if let parser = try? pipeline.context(handlerType: ByteToMessageHandler<HTTPRequestDecoder>.self) {
                try pipeline.addHandler(HTTPEdgeHandler<HTTP1Wire>(door: door), position: .after(parser.handler))
            } else {
                try pipeline.addHandler(HTTPEdgeHandler<HTTPTypesWire>(door: door), position: .after(self))
            }
        } catch {
            context.fireErrorCaught(error)
        }
    }
}
