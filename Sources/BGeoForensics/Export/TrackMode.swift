import BGeoReader

/// Which positions an exported track carries (`gpx`, `export`).
public enum TrackMode: String, Sendable, CaseIterable {
    /// Fixes the engine accepted, at the positions it recorded (smoothed/adjusted).
    case recorded
    /// Fixes a replay with the dump's config (plus `--set` overrides) accepts, at its output positions.
    case replayed
    /// Every fix the engine saw, rejected ones included, at the raw device positions.
    case raw
}
