import BGeoReader

/// What a writer must know before it streams a track: its segments (split at gaps, with their
/// first and last times and point counts) and its bounds. One pass over the track; only one
/// small value per segment is kept, never the points.
public struct TrackOutline: Sendable {
    public struct Segment: Sendable, Equatable {
        public var start: Double
        public var end: Double
        public var count: Int
    }

    public private(set) var segments: [Segment] = []
    /// Bounds of the track points (`onTrack`).
    public private(set) var trackBounds: GeoBounds?
    /// Bounds of every fix.
    public private(set) var fixBounds: GeoBounds?
    /// Bounds of the geofence events.
    public private(set) var geofenceBounds: GeoBounds?
    /// Every fix of the track, on the line or not.
    public private(set) var fixes = 0

    public init(track: ExportTrack, gapSeconds: Double) throws(ExportError) {
        var segmenter = TrackSegmenter(gapSeconds: gapSeconds)
        try track.forEachPoint { p in
            fixes += 1
            fixBounds = GeoBounds.including(fixBounds, latitude: p.latitude, longitude: p.longitude)
            guard p.onTrack else { return }
            trackBounds = GeoBounds.including(trackBounds, latitude: p.latitude, longitude: p.longitude)
            if segmenter.startsSegment(at: p.time) {
                segments.append(Segment(start: p.time, end: p.time, count: 1))
            } else {
                segments[segments.count - 1].end = p.time
                segments[segments.count - 1].count += 1
            }
        }
        for g in track.geofences {
            geofenceBounds = GeoBounds.including(geofenceBounds, latitude: g.latitude, longitude: g.longitude)
        }
    }

    /// Points on the track line.
    public var trackPoints: Int { segments.reduce(0) { $0 + $1.count } }
    /// Segments of two or more points: the ones a line can be drawn through.
    public var lineSegments: Int { segments.filter { $0.count >= 2 }.count }
}
