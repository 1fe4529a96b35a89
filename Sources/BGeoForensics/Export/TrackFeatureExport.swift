import BGeoReader

/// Counts of what an export wrote.
public struct ExportSummary: Sendable, Equatable {
    /// Track segments (split at gaps), isolated fixes included.
    public var segments = 0
    /// Segments written as lines (two or more points).
    public var lines = 0
    /// Points on the lines.
    public var linePoints = 0
    /// One-point segments, written as points beside the lines.
    public var isolatedFixes = 0
    /// Fix features (`--points`).
    public var fixes = 0
    public var geofences = 0

    public init() {}

    public var json: JSONValue {
        ["segments": .from(segments), "lines": .from(lines), "linePoints": .from(linePoints),
         "isolatedFixes": .from(isolatedFixes), "fixes": .from(fixes), "geofences": .from(geofences)]
    }
}

/// Drives a `TrackFeatureWriter` over a track: the outline first (segments, bounds), then the
/// lines point by point, the isolated fixes, every fix when asked, the geofence events. The
/// track is visited twice or three times and never copied.
struct TrackFeatureExport {
    let gapSeconds: Double
    let includesFixes: Bool

    func write(_ track: ExportTrack, to writer: some TrackFeatureWriter) throws -> ExportSummary {
        let outline = try TrackOutline(track: track, gapSeconds: gapSeconds)
        var summary = ExportSummary()
        summary.segments = outline.segments.count
        writer.begin(outline: outline, geofences: track.geofences, includesFixes: includesFixes)
        writer.section(.track)
        var segmenter = TrackSegmenter(gapSeconds: gapSeconds)
        var segment = -1
        var inLine = false
        var isolated: [(point: TrackPoint, segment: Int)] = []
        try track.forEachPoint { p in
            guard p.onTrack else { return }
            if segmenter.startsSegment(at: p.time) {
                if inLine { writer.endLine() }
                segment += 1
                inLine = outline.segments[segment].count >= 2
                if inLine {
                    summary.lines += 1
                    writer.beginLine(outline.segments[segment], number: segment + 1)
                } else {
                    isolated.append((p, segment + 1))
                }
            }
            if inLine {
                writer.vertex(p)
                summary.linePoints += 1
            }
        }
        if inLine { writer.endLine() }
        for lone in isolated { writer.isolatedFix(lone.point, segment: lone.segment) }
        summary.isolatedFixes = isolated.count
        if includesFixes {
            writer.section(.fixes)
            try track.forEachPoint { p in writer.fix(p) }
            summary.fixes = outline.fixes
        }
        writer.section(.geofences)
        for g in track.geofences { writer.geofence(g) }
        summary.geofences = track.geofences.count
        try writer.finish()
        return summary
    }
}
