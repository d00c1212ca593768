import CHeap

/// How the edge's process asks the C allocator to treat the memory it frees.
public enum HeapPolicy {
    /// Keeps freed heap memory for the next allocations instead of giving the top of each heap back to the system;
    /// returns whether the C library (glibc) took the setting.
    ///
    /// The devices' histories (``DeviceHistory``) drop half their share at once when a generation goes, and
    /// glibc's malloc would give those pages back (its trim threshold is 128 KiB) only to take them again as the
    /// next generation fills: the resident set would swing by half the devices' share. Kept, the pages are reused,
    /// and the resident set stays at its high-water mark, which the device budget bounds (its allocator headroom
    /// covers the free space between views). Blocks from 128 KiB (the slot tables, the event ids' set) are still
    /// mapped and unmapped on their own.
    @discardableResult
    public static func keepFreedMemory() -> Bool {
        launchad_keep_freed_heap_memory() == 1
    }
}
