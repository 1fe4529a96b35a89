#if canImport(Glibc)
import Glibc
#endif

/// How the process's allocator treats large blocks, set once when the tool starts.
public enum LargeAllocations {
    /// The size from which a block is mapped on its own, and so given back to the system when
    /// it is freed. Above the 1 MiB buffers some loops take and free again and again (`sanitize`
    /// on every 50: 254 unmaps of 1 MiB and 4 kB at 1 MiB, 7 % slower; none at 2 MiB).
    public static let threshold = 2 << 20

    /// Maps blocks of `threshold` bytes and more on their own. glibc otherwise raises its
    /// threshold each time such a block is freed (up to 32 MiB) and keeps later ones in its heap,
    /// where freed memory stays counted: the peak the system sees held buffers long freed (the
    /// gaps shape at 4 M fixes: `report` 330 → 248 MB, `timeline --json` 185 → 127 MB, stop 52).
    /// Returns whether the allocator took the setting (always true off glibc, which has none).
    @discardableResult
    public static func returnedWhenFreed() -> Bool {
        #if canImport(Glibc)
        // `mallopt` is declared in <malloc.h>, which the Glibc module does not bring in: it is
        // looked up by name, with glibc's stable value of M_MMAP_THRESHOLD.
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "mallopt") else { return false }
        typealias Mallopt = @convention(c) (Int32, Int32) -> Int32
        let mallopt = unsafeBitCast(symbol, to: Mallopt.self)
        let mmapThreshold: Int32 = -3
        return mallopt(mmapThreshold, Int32(threshold)) == 1
        #else
        return true
        #endif
    }
}
