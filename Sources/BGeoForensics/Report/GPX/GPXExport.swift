/// What `gpx` wrote.
public struct GPXExportSummary: Sendable, Equatable {
    public var points: Int
    public var segments: Int
    public var waypoints: Int
}

/// Turns a track into GPX 1.1: metadata (name, time, bounds), geofence events as waypoints, one
/// track split into a new segment wherever consecutive points are `gapSeconds` or more apart
/// (`TrackSegmenter`, the rule every export shares).
public struct GPXExport: Sendable {
    public var name: String
    public var description: String?
    /// metadata/time: when the file was generated (nil: omitted, for byte-stable output).
    public var generatedAt: Double?
    public var gapSeconds: Double

    /// The timeline's default gap threshold: 15 minutes.
    public static let defaultGapSeconds: Double = TrackSegmenter.defaultGapSeconds

    public init(name: String, description: String? = nil, generatedAt: Double? = nil,
                gapSeconds: Double = GPXExport.defaultGapSeconds) {
        self.name = name
        self.description = description
        self.generatedAt = generatedAt
        self.gapSeconds = gapSeconds
    }

    /// Writes the document to `path` ("-" for stdout), streaming point by point: the track's points
    /// as `trkpt` (rejected fixes only in raw mode, with their decision and reason), its geofence
    /// events as `wpt`.
    @discardableResult
    public func write(track: ExportTrack, to path: String) throws(GPXWriteError) -> GPXExportSummary {
        // Bounds first (metadata comes before the points).
        var bounds = track.trackBounds()
        for g in track.geofences { bounds = GeoBounds.including(bounds, latitude: g.latitude, longitude: g.longitude) }
        let writer = try GPXWriter(path: path)
        writer.begin(creator: "\(ToolInfo.name) \(ToolInfo.version)", name: name, description: description, time: generatedAt,
                     bounds: bounds.map { GPXWriter.Bounds(minLatitude: $0.minLatitude, minLongitude: $0.minLongitude,
                                                           maxLatitude: $0.maxLatitude, maxLongitude: $0.maxLongitude) })
        for g in track.geofences {
            writer.waypoint(GPXWriter.Point(
                latitude: g.latitude, longitude: g.longitude, time: g.time, name: g.identifier,
                description: "geofence \(g.action) \(g.identifier)", type: "geofence",
                extensions: GPXWriter.Extensions(uuid: g.uuid, action: g.action)))
        }
        let mode = track.mode
        var segmenter = TrackSegmenter(gapSeconds: gapSeconds)
        var started = false
        try points(of: track) { p in
            guard p.onTrack else { return }
            if !started {
                writer.beginTrack(name: "\(name) (\(mode.rawValue))", description: nil, type: mode.rawValue)
                started = true
            }
            if segmenter.startsSegment(at: p.time) { writer.beginSegment() }
            // Raw mode says what happened to every fix; the other modes only mark the adjusted ones.
            let decision = mode == .raw ? p.decision.rawValue : (p.decision == .adjusted ? "adjusted" : nil)
            let ext = GPXWriter.Extensions(accuracy: p.accuracy, speed: p.speed, heading: p.heading, uuid: p.uuid,
                                           decision: decision, reason: mode == .raw ? p.reason : nil)
            writer.trackPoint(GPXWriter.Point(latitude: p.latitude, longitude: p.longitude, time: p.time,
                                              elevation: p.altitude, extensions: ext))
        }
        try writer.finish()
        return GPXExportSummary(points: writer.pointCount, segments: writer.segmentCount, waypoints: writer.waypointCount)
    }

    /// A track that cannot be read back (its stored trace damaged under the run) fails the write.
    private func points(of track: ExportTrack, _ body: (TrackPoint) -> Void) throws(GPXWriteError) {
        do throws(ExportError) { try track.forEachPoint(body) } catch { throw GPXWriteError(description: error.description) }
    }
}
