/// Which positions a GPX track carries.
public enum GPXTrackMode: String, Sendable, CaseIterable {
    /// Fixes the engine accepted, at the positions it recorded (smoothed/adjusted).
    case recorded
    /// Fixes a replay with the dump's config (plus `--set` overrides) accepts, at its output positions.
    case replayed
    /// Every fix the engine saw, rejected ones included, at the raw device positions.
    case raw
}

/// A point of the exported track with the extras we put under `<extensions>`.
public struct GPXTrackPoint: Sendable {
    public var time: Double
    public var latitude: Double
    public var longitude: Double
    public var altitude: Double?
    public var accuracy: Double?
    public var speed: Double?
    public var heading: Double?
    public var uuid: String?
    /// Set in raw mode (and for adjusted replayed points): `rejected`, `adjusted`, …
    public var decision: String?
    public var reason: String?

    public init(time: Double, latitude: Double, longitude: Double, altitude: Double? = nil, accuracy: Double? = nil,
                speed: Double? = nil, heading: Double? = nil, uuid: String? = nil, decision: String? = nil, reason: String? = nil) {
        self.time = time
        self.latitude = latitude
        self.longitude = longitude
        self.altitude = altitude
        self.accuracy = accuracy
        self.speed = speed
        self.heading = heading
        self.uuid = uuid
        self.decision = decision
        self.reason = reason
    }
}

/// What `gpx` wrote.
public struct GPXExportSummary: Sendable, Equatable {
    public var points: Int
    public var segments: Int
    public var waypoints: Int
}

/// Turns a trace into GPX 1.1: metadata (name, time, bounds), geofence events as waypoints, one
/// track split into a new segment wherever consecutive points are `gapSeconds` or more apart
/// (the timeline's tracking-gap rule: a silence of at least the threshold).
public struct GPXExport: Sendable {
    public var name: String
    public var description: String?
    /// metadata/time: when the file was generated (nil: omitted, for byte-stable output).
    public var generatedAt: Double?
    public var gapSeconds: Double
    public var mode: GPXTrackMode

    /// The timeline's default gap threshold: 15 minutes.
    public static let defaultGapSeconds: Double = 15 * 60

    public init(name: String, description: String? = nil, generatedAt: Double? = nil,
                gapSeconds: Double = GPXExport.defaultGapSeconds, mode: GPXTrackMode = .replayed) {
        self.name = name
        self.description = description
        self.generatedAt = generatedAt
        self.gapSeconds = gapSeconds
        self.mode = mode
    }

    /// Points for `recorded` and `raw` straight from the trace (replayed points come from a replay).
    public static func points(from trace: ReportTrace, mode: GPXTrackMode) -> [GPXTrackPoint] {
        var out: [GPXTrackPoint] = []
        out.reserveCapacity(trace.fixes.count)
        for fix in trace.fixes {
            switch mode {
            case .raw:
                out.append(GPXTrackPoint(time: fix.time, latitude: fix.latitude, longitude: fix.longitude, altitude: fix.altitude,
                                         accuracy: fix.accuracy, speed: fix.speed, heading: fix.heading, uuid: fix.uuid,
                                         decision: fix.decision.rawValue, reason: fix.reason))
            case .recorded, .replayed:
                guard fix.decision != .rejected else { continue }
                out.append(GPXTrackPoint(time: fix.time, latitude: fix.outputLatitude, longitude: fix.outputLongitude,
                                         altitude: fix.altitude, accuracy: fix.accuracy, speed: fix.speed, heading: fix.heading,
                                         uuid: fix.uuid, decision: fix.decision == .adjusted ? "adjusted" : nil))
            }
        }
        return out
    }

    /// Indices where a new segment starts (always 0 when there are points).
    public func segmentStarts(_ points: [GPXTrackPoint]) -> [Int] {
        guard !points.isEmpty else { return [] }
        var starts = [0]
        for i in 1..<points.count where points[i].time - points[i - 1].time >= gapSeconds { starts.append(i) }
        return starts
    }

    /// Writes the document to `path` ("-" for stdout), streaming point by point.
    @discardableResult
    public func write(points: [GPXTrackPoint], geofences: [ReportGeofence], to path: String) throws(GPXWriteError) -> GPXExportSummary {
        var bounds: GPXWriter.Bounds?
        func include(_ lat: Double, _ lon: Double) {
            if var b = bounds {
                b.minLatitude = min(b.minLatitude, lat); b.maxLatitude = max(b.maxLatitude, lat)
                b.minLongitude = min(b.minLongitude, lon); b.maxLongitude = max(b.maxLongitude, lon)
                bounds = b
            } else {
                bounds = GPXWriter.Bounds(minLatitude: lat, minLongitude: lon, maxLatitude: lat, maxLongitude: lon)
            }
        }
        for p in points { include(p.latitude, p.longitude) }
        for g in geofences { include(g.latitude, g.longitude) }
        let writer = try GPXWriter(path: path)
        writer.begin(creator: "\(ToolInfo.name) \(ToolInfo.version)", name: name, description: description,
                     time: generatedAt, bounds: bounds)
        for g in geofences {
            writer.waypoint(GPXWriter.Point(
                latitude: g.latitude, longitude: g.longitude, time: g.time, name: g.identifier,
                description: "geofence \(g.action) \(g.identifier)", type: "geofence",
                extensions: GPXWriter.Extensions(uuid: g.uuid, action: g.action)))
        }
        if !points.isEmpty {
            writer.beginTrack(name: "\(name) (\(mode.rawValue))", description: nil, type: mode.rawValue)
            var previous: Double?
            for p in points {
                if let previous, p.time - previous >= gapSeconds { writer.beginSegment() }
                previous = p.time
                let ext = GPXWriter.Extensions(accuracy: p.accuracy, speed: p.speed, heading: p.heading, uuid: p.uuid,
                                               decision: p.decision, reason: p.reason)
                writer.trackPoint(GPXWriter.Point(latitude: p.latitude, longitude: p.longitude, time: p.time,
                                                  elevation: p.altitude, extensions: ext))
            }
        }
        try writer.finish()
        return GPXExportSummary(points: writer.pointCount, segments: writer.segmentCount, waypoints: writer.waypointCount)
    }
}
