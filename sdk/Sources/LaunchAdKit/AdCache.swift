import Foundation

/// The SDK's disk cache: creatives named by their sha256 in `creatives/`, each downloaded into `partial/` (resumed
/// there after a broken transfer), checked against its name and size, and only then renamed into place; the
/// manifest of campaigns and files beside them. Its bytes stay within `maxBytes`, the least recently used creative
/// going first.
actor AdCache {
    /// Why a creative could not be cached.
    enum FetchError: Error, Equatable, CustomStringConvertible {
        /// The transfer stopped before the end; the bytes that came are kept for a ranged resume.
        case incomplete(have: Int, of: Int, reason: String?)
        /// The bytes do not hash to the creative's name (or are longer than it is): thrown away.
        case corrupt(String)
        /// Larger than the whole cache may hold.
        case tooLarge(Int)
        case file(String)

        var description: String {
            switch self {
            case .incomplete(let have, let size, let reason): "incomplete: \(have) of \(size) bytes\(reason.map { " (\($0))" } ?? "")"
            case .corrupt(let reason): "corrupt: \(reason)"
            case .tooLarge(let size): "\(size) bytes is more than the cache holds"
            case .file(let reason): "cache file: \(reason)"
            }
        }
    }

    let folder: URL
    let maxBytes: Int
    private(set) var manifest: CacheManifest
    private var inFlight: [String: Task<Void, any Error>] = [:]

    private var manifestFile: URL { folder.appendingPathComponent("manifest.json") }
    private var creativesFolder: URL { folder.appendingPathComponent("creatives") }
    private var partialFolder: URL { folder.appendingPathComponent("partial") }

    init(folder: URL, maxBytes: Int) throws {
        self.folder = folder
        self.maxBytes = maxBytes
        let files = FileManager.default
        try files.createDirectory(at: folder.appendingPathComponent("creatives"), withIntermediateDirectories: true)
        try files.createDirectory(at: folder.appendingPathComponent("partial"), withIntermediateDirectories: true)
        var manifest = CacheManifest.load(from: folder.appendingPathComponent("manifest.json"))
        // The manifest and the files agree: a file it does not list (a kill between the rename and the save) goes,
        // and so does an entry whose file is missing or of another size.
        let present = (try? files.contentsOfDirectory(atPath: folder.appendingPathComponent("creatives").path)) ?? []
        for name in present where manifest.creatives[name] == nil {
            try? files.removeItem(at: folder.appendingPathComponent("creatives").appendingPathComponent(name))
        }
        for (sha256, creative) in manifest.creatives {
            let path = folder.appendingPathComponent("creatives").appendingPathComponent(sha256).path
            let size = ((try? files.attributesOfItem(atPath: path)[.size]) as? NSNumber)?.intValue
            if size != creative.size { manifest.creatives[sha256] = nil }
        }
        self.manifest = manifest
    }

    /// The file of a cached creative.
    func file(_ sha256: String) -> URL { creativesFolder.appendingPathComponent(sha256) }

    /// Whether the creative is on disk, verified.
    func holds(_ sha256: String) -> Bool { manifest.creatives[sha256] != nil }

    /// The creatives on disk (the `cached` of a query or prefetch).
    var held: [String] { manifest.creatives.keys.sorted() }

    /// Marks a creative used now (it goes last in the eviction order).
    func touch(_ sha256: String, at now: Date) throws {
        guard manifest.creatives[sha256] != nil else { return }
        manifest.creatives[sha256]?.lastUsed = now
        try save()
    }

    /// Applies a change to the manifest and saves it.
    func update(_ change: (inout CacheManifest) -> Void) throws {
        change(&manifest)
        try save()
    }

    /// Forgets the revoked campaigns and deletes the creatives no campaign left uses; returns those creatives.
    @discardableResult
    func revoke(_ ids: [Int64]) throws -> [String] {
        guard ids.contains(where: { manifest.campaigns[$0] != nil }) else { return [] }
        let released = manifest.revoke(ids)
        try remove(released)
        return released
    }

    /// Forgets every campaign but `kept` (their choices too) and deletes the creatives no kept campaign uses, with
    /// every partial download but theirs.
    func clear(keeping kept: Set<Int64>) throws {
        let released = manifest.keep(only: kept)
        let used = manifest.used
        for name in (try? FileManager.default.contentsOfDirectory(atPath: partialFolder.path)) ?? []
        where !used.contains(String(name.dropLast(".part".count))) {
            try? FileManager.default.removeItem(at: partialFolder.appendingPathComponent(name))
        }
        try remove(released)
        try save()
    }

    /// The bytes the cache takes on disk: its creatives, its partial downloads and its manifest.
    func bytesOnDisk() -> Int {
        let files = FileManager.default
        var paths = [manifestFile.path]
        for folder in [creativesFolder, partialFolder] {
            paths += ((try? files.contentsOfDirectory(atPath: folder.path)) ?? []).map { folder.appendingPathComponent($0).path }
        }
        return paths.reduce(0) { total, path in
            total + (((try? files.attributesOfItem(atPath: path)[.size]) as? NSNumber)?.intValue ?? 0)
        }
    }

    /// Deletes creatives (the prefetch's `delete`, or what revoked campaigns left) and the campaigns' use of them.
    func remove(_ sha256s: [String]) throws {
        guard !sha256s.isEmpty else { return }
        for sha256 in sha256s where Self.isSHA256(sha256) {
            manifest.creatives[sha256] = nil
            try? FileManager.default.removeItem(at: file(sha256))
            try? FileManager.default.removeItem(at: partial(sha256))
        }
        try save()
    }

    /// Downloads a creative unless it is held: into its partial file, resuming what an earlier attempt left, then
    /// checked (size and sha256) and renamed into place; the cache then evicts the least recently used creatives
    /// beyond its bound. Two callers asking for the same creative share one download.
    func fetch(sha256: String, from url: URL, size: Int, contentType: String, now: Date, timeout: Double) async throws {
        guard Self.isSHA256(sha256) else { throw FetchError.corrupt("\(sha256) is not a sha256") }
        if holds(sha256) { return }
        if let running = inFlight[sha256] { return try await running.value }
        guard size <= maxBytes else { throw FetchError.tooLarge(size) }
        let partial = partial(sha256)
        let task = Task { try await self.download(sha256: sha256, url: url, partial: partial, size: size, contentType: contentType,
                                                  now: now, timeout: timeout) }
        inFlight[sha256] = task
        defer { inFlight[sha256] = nil }
        try await task.value
    }

    private func download(sha256: String, url: URL, partial: URL, size: Int, contentType: String, now: Date,
                          timeout: Double) async throws {
        let outcome = await CreativeDownload.run(url: url, partial: partial, sha256: sha256, timeout: timeout)
        let have = ((try? FileManager.default.attributesOfItem(atPath: partial.path)[.size]) as? NSNumber)?.intValue ?? 0
        if have < size {
            throw FetchError.incomplete(have: have, of: size, reason: outcome.failure)
        }
        guard have == size, let bytes = try? Data(contentsOf: partial), SHA256Digest.hex(bytes) == sha256 else {
            try? FileManager.default.removeItem(at: partial)
            throw FetchError.corrupt(have == size ? "the bytes do not hash to \(sha256)" : "\(have) bytes, not \(size)")
        }
        do {
            if !FileManager.default.fileExists(atPath: file(sha256).path) {
                try FileManager.default.moveItem(at: partial, to: file(sha256))
            } else {
                try FileManager.default.removeItem(at: partial)
            }
        } catch {
            throw FetchError.file("\(error)")
        }
        manifest.creatives[sha256] = .init(sha256: sha256, size: size, contentType: contentType, lastUsed: now)
        evict(keeping: sha256)
        try save()
    }

    /// Removes the least recently used creatives until the cache is within its bound (never `keeping`).
    private func evict(keeping: String) {
        var total = manifest.bytes
        guard total > maxBytes else { return }
        for creative in manifest.creatives.values.sorted(by: { $0.lastUsed < $1.lastUsed }) where creative.sha256 != keeping {
            manifest.creatives[creative.sha256] = nil
            try? FileManager.default.removeItem(at: file(creative.sha256))
            total -= creative.size
            if total <= maxBytes { return }
        }
    }

    /// 64 lowercase hex digits: the only names the cache gives files (nothing from the wire becomes a path).
    static func isSHA256(_ text: String) -> Bool {
        text.utf8.count == 64 && text.utf8.allSatisfy { (48...57).contains($0) || (97...102).contains($0) }
    }

    private func partial(_ sha256: String) -> URL { partialFolder.appendingPathComponent(sha256 + ".part") }

    private func save() throws {
        do {
            try manifest.save(to: manifestFile)
        } catch {
            throw FetchError.file("saving the manifest: \(error)")
        }
    }
}
