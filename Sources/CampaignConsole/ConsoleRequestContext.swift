import Hummingbird

/// A console request's context: Hummingbird's, and the address of the client, by which the sign-in throttle counts.
struct ConsoleRequestContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    /// The client's IP address as the connection has it (not a header a client could write).
    let clientAddress: String

    init(source: ApplicationRequestContextSource) {
        coreContext = CoreRequestContextStorage(source: source)
        clientAddress = ClientAddress.key(source.channel.remoteAddress?.ipAddress)
    }
}
