import LaunchAdAPI
import Locking

/// Where `imgUrl` and prefetch items' `url` point: `--public-url`, or the HTTP address once bound.
final class PublicBase: Sendable {
    private let storage: Locked<CreativeBase>
    init(_ value: String) { storage = Locked(CreativeBase(value)) }
    /// The base as answers write it.
    var prepared: CreativeBase { storage.withLock { $0 } }
    func set(_ value: String) { storage.withLock { $0 = CreativeBase(value) } }
}
