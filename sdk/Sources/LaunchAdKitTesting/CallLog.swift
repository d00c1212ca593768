import Foundation

/// The calls a surface received, in order, with their times in seconds from the surface's making.
@MainActor
public final class CallLog {
    public var calls: [(at: Double, call: RecordingSurface.Call)] = []
    public init() {}
}
