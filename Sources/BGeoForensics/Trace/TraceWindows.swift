import BGeoReader

/// The bounds of the streamed trace's windows: what is held in memory at once, whatever the
/// dump's size. Larger windows absorb more disorder without touching disk; none changes the
/// result, only where the work happens (the tests shrink them to force every path).
public struct TraceWindows: Sendable, Equatable {
    /// Records each stream holds to restore time order; a record arriving later than this much
    /// disorder allows is spilled to a sorted table on disk.
    public var reorder: Int
    /// Seconds a uuid's first copy waits for the others (a queue row and its log line carry the
    /// same fix time); copies further apart are found afterwards and merged exactly.
    public var groupSeconds: Double
    /// Uuids waiting for their other copies at once.
    public var openGroups: Int
    /// Bits of the filter that notices a uuid seen in an earlier group.
    public var filterBits: Int
    /// Fixes waiting to be placed at once: past it, the fixes of the first waiting millisecond (a
    /// stuck clock puts every fix in one) are kept and settled on disk, tie groups sorted there in
    /// runs of at most this many.
    public var heldFixes: Int
    /// Uuids found apart (copies in two groups) held by their text; past it, by a filter of their
    /// hashes (a false alarm gathers one more uuid apart).
    public var apartUUIDs: Int

    public init(reorder: Int = 16_384, groupSeconds: Double = 300, openGroups: Int = 32_768, filterBits: Int = 1 << 27,
                heldFixes: Int = 8_192, apartUUIDs: Int = 65_536) {
        self.reorder = reorder
        self.groupSeconds = groupSeconds
        self.openGroups = openGroups
        self.filterBits = filterBits
        self.heldFixes = heldFixes
        self.apartUUIDs = apartUUIDs
    }

    public static let standard = TraceWindows()
}
