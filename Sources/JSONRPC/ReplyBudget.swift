import Synchronization

/// A bound on the bytes of large replies that a server has handed to its transport and that the transport still
/// holds (not yet written to their peer, nor dropped with it).
///
/// A transport's queue per peer counts messages, not bytes, so a peer that asks for large replies and never reads
/// them (a batch of creative chunks, say, each over a megabyte) would make the server hold memory without bound,
/// and more so over many connections. With a budget, the dispatcher answers ``error`` instead of a large reply that
/// does not fit, for the call that would overflow it and every later one until the transport lets go of enough
/// bytes. Small replies are never held back, so a server's ordinary answers go on while the budget is full.
public final class ReplyBudget: Sendable {
    /// A reply (one message: a single response, or a whole batch's responses) of at least this many bytes is large.
    public let largeReply: Int
    /// The most bytes of large replies held at once.
    public let limit: Int
    /// What a call is answered instead of a large reply that does not fit.
    public let error: JSONRPCError
    private let heldBytes = Atomic<Int>(0)

    public init(limit: Int, largeReply: Int = 64 * 1024, error: JSONRPCError) {
        precondition(limit > 0 && largeReply > 0)
        self.limit = limit
        self.largeReply = largeReply
        self.error = error
    }

    /// The bytes of large replies held now.
    public var held: Int { heldBytes.load(ordering: .relaxed) }

    /// Whether a reply of `bytes` may go out: a small one always, a large one while the budget has room for it.
    @inline(__always)
    public func admits(_ bytes: Int) -> Bool {
        bytes < largeReply || held + bytes <= limit
    }

    /// Counts a large reply of `bytes` as held when the budget has room for it, or when nothing else is held (so that a
    /// reply bigger than the whole budget, a whole snapshot, still goes out, alone); returns whether it did. One step,
    /// so that replies finished at the same moment on several threads cannot all pass a look at ``held`` together.
    public func tryHold(_ bytes: Int) -> Bool {
        var current = heldBytes.load(ordering: .relaxed)
        while current == 0 || current + bytes <= limit {
            let (exchanged, original) = heldBytes.compareExchange(expected: current, desired: current + bytes, ordering: .relaxed)
            if exchanged { return true }
            current = original
        }
        return false
    }

    /// Counts a large reply of `bytes` as held: the transport has taken it.
    public func hold(_ bytes: Int) {
        heldBytes.add(bytes, ordering: .relaxed)
    }

    /// Counts a large reply of `bytes` as let go: the transport has written or dropped it.
    public func release(_ bytes: Int) {
        heldBytes.subtract(bytes, ordering: .relaxed)
    }
}
