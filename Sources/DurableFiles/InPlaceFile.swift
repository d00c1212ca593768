import Foundation

/// Overwrites a file in place: no temporary file, no rename, one `fdatasync`. Used for a file kept in two copies
/// written in turn (the edge's state), where a write cut short by a crash leaves the other copy whole: the write itself
/// is not atomic, so the reader must tell a whole copy from a torn one (a checksum).
///
/// While the file keeps its size, overwriting it changes no metadata that `fdatasync` must commit: on a journaling
/// file system that is a data write and a flush, where an atomic replace (``AtomicFile``) makes and syncs a new
/// inode, renames it and syncs the folder. The file is therefore kept at a size rounded up, with `filler` after the
/// bytes, and changes size only when the bytes outgrow it or need less than a quarter of it.
public enum InPlaceFile {
    /// The size the file is kept at is a multiple of this.
    static let sizeStep = 4096

    /// Writes `bytes` at the start of the file at `path`, fills the rest of the file with `filler`, and syncs it. The
    /// file (and its folder) is made when missing, and the folder is synced after the file's first write, so that its
    /// name is durable too.
    public static func overwrite(_ bytes: [UInt8], at path: String, filler: UInt8) throws {
        // The folder is worked out only when the file is made (each save of the edge's state comes here).
        var folder: String {
            let parent = (path as NSString).deletingLastPathComponent
            return parent.isEmpty ? "." : parent
        }
        var created = false
        var fd = open(path, O_RDWR | O_CLOEXEC)
        if fd < 0 && errno == ENOENT {
            fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
            if fd < 0 && errno == ENOENT {
                try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
                fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
            }
            created = fd >= 0
        }
        guard fd >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        defer { close(fd) }
        var status = stat()
        guard fstat(fd, &status) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        // A folder does not open for writing (EISDIR); anything else but a regular file is refused too.
        guard (status.st_mode & S_IFMT) == S_IFREG else { throw POSIXError(.EINVAL) }
        let size = Int(status.st_size)
        let target = keptSize(for: bytes.count, current: size)
        var whole = bytes
        whole.reserveCapacity(target)
        whole.append(contentsOf: repeatElement(filler, count: target - bytes.count))
        // Opened just now, the descriptor's offset is the file's start.
        guard AtomicFile.writeAll(whole, to: fd), target >= size || ftruncate(fd, off_t(target)) == 0, fdatasync(fd) == 0 else {
            throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
        }
        if created { AtomicFile.syncFolder(atPath: folder) }
    }

    /// The size to keep a file at for `count` bytes, when it is `current` bytes now: the same while the bytes fit and
    /// need at least a quarter of it; otherwise the bytes and an eighth more, rounded up to ``sizeStep``.
    static func keptSize(for count: Int, current: Int) -> Int {
        if count <= current && count >= current / 4 { return current }
        let wanted = count + count / 8
        return (wanted + sizeStep - 1) / sizeStep * sizeStep
    }
}
