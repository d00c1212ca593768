/// The members of a launch answer (or of a prefetch answer's item) that are the same for every query answered with
/// one campaign and creative, prepared as bytes when the state changes instead of on every query: only the start of
/// the creative's URL, the edge's base URL, goes between them. The API layer writes them (``AnswerPreparer``); the
/// domain only keeps them with the creative they belong to.
public struct AnswerParts: Sendable {
    /// What comes before the edge's base URL.
    public let head: [UInt8]
    /// What comes after it.
    public let tail: [UInt8]

    public init(head: [UInt8], tail: [UInt8]) {
        self.head = head
        self.tail = tail
    }
}

/// A launch answer's prepared parts in both its forms, which differ only in `showMoment` (``ShowMoment``), held in
/// the head: each query picks one head instead of writing the number into bytes of its own, and the query path
/// reads only the two arrays it writes. A forced campaign's heads are one and the same (it is always shown now).
public struct LaunchAnswerParts: Sendable {
    /// The head with `showMoment` 0: shown at this launch.
    public let headNow: [UInt8]
    /// The head with `showMoment` 1: downloaded now, shown at a later launch.
    public let headLater: [UInt8]
    /// What comes after the edge's base URL, in both forms.
    public let tail: [UInt8]

    public init(headNow: [UInt8], headLater: [UInt8], tail: [UInt8]) {
        self.headNow = headNow
        self.headLater = headLater
        self.tail = tail
    }

    /// The form for `showMoment`.
    public func parts(_ showMoment: ShowMoment) -> AnswerParts {
        AnswerParts(head: showMoment == .now ? headNow : headLater, tail: tail)
    }
}

/// How the parts of an answer are prepared for a campaign and one of its creatives: given to the engine's index by
/// the layer that writes answers, so the domain holds prepared bytes without knowing their format.
public struct AnswerPreparer: Sendable {
    /// The parts of a launch answer in both forms: (campaign, creative, its path on the edge, expiresAt as text).
    public let answer: @Sendable (Campaign, CreativeFacts, String, String) -> LaunchAnswerParts
    /// The parts of a prefetch answer's item: (campaign, creative, its path on the edge, startsAt, endsAt as text).
    public let prefetchItem: @Sendable (Campaign, CreativeFacts, String, String, String) -> AnswerParts

    public init(answer: @escaping @Sendable (Campaign, CreativeFacts, String, String) -> LaunchAnswerParts,
                prefetchItem: @escaping @Sendable (Campaign, CreativeFacts, String, String, String) -> AnswerParts) {
        self.answer = answer
        self.prefetchItem = prefetchItem
    }
}
