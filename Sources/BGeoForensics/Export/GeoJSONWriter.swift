import BGeoReader

/// Streams a track as an RFC 7946 GeoJSON FeatureCollection: the track as one LineString feature
/// (MultiLineString when gaps split it), one-point segments as Point features, with `--points`
/// one Point feature per fix carrying its properties, and geofence events as Points. Positions
/// are `[longitude, latitude]` with at most 7 decimals (≈ 1 cm), WGS 84 as the RFC requires (no
/// `crs` member); `bbox` comes from the outline, so the whole file is written in one pass after it.
/// One feature per line; the line's coordinates one segment per line.
final class GeoJSONWriter: TrackFeatureWriter {
    private let out: BufferedFileWriter
    private let name: String
    private let mode: TrackMode
    private var features = 0
    private var lineCount = 0
    private var linesWritten = 0
    private var firstVertex = true
    /// Reused for each feature's text.
    private var text = ""

    init(path: String, name: String, mode: TrackMode) throws(OutputWriteError) {
        out = try BufferedFileWriter(path: path)
        self.name = name
        self.mode = mode
        text.reserveCapacity(1024)
    }

    func begin(outline: TrackOutline, geofences: [ReportGeofence], includesFixes: Bool) {
        lineCount = outline.lineSegments
        var header = #"{"type":"FeatureCollection","name":"# + JSONWriter().literal(name)
        var bounds: GeoBounds?
        for box in [outline.trackBounds, outline.geofenceBounds, includesFixes ? outline.fixBounds : nil] {
            guard let box else { continue }
            bounds = GeoBounds.including(bounds, latitude: box.minLatitude, longitude: box.minLongitude)
            bounds = GeoBounds.including(bounds, latitude: box.maxLatitude, longitude: box.maxLongitude)
        }
        if let b = bounds {
            header += #","bbox":["# + GeoJSONWriter.longitude(b.minLongitude) + "," + GeoJSONWriter.latitude(b.minLatitude) + ","
                + GeoJSONWriter.longitude(b.maxLongitude) + "," + GeoJSONWriter.latitude(b.maxLatitude) + "]"
        }
        out.write(header + #","features":["#)
        // The track feature's properties are known from the outline before its coordinates.
        let lines = outline.segments.filter { $0.count >= 2 }
        if let first = lines.first, let last = lines.last {
            startFeature()
            text += #"{"type":"Feature","properties":{"kind":"track","mode":"# + "\"\(mode.rawValue)\""
            text += #","segments":\#(lines.count),"points":\#(lines.reduce(0) { $0 + $1.count })"#
            text += #","start":"# + GeoJSONWriter.time(first.start) + #","end":"# + GeoJSONWriter.time(last.end)
            text += #"},"geometry":{"type":"# + (lines.count == 1 ? #""LineString""# : #""MultiLineString""#) + #","coordinates":["#
            flush()
        }
    }

    func section(_ section: TrackFeatureSection) {}

    func beginLine(_ segment: TrackOutline.Segment, number: Int) {
        if lineCount > 1 { out.write(linesWritten == 0 ? "\n[" : ",\n[") } else { out.write("\n") }
        firstVertex = true
    }

    func vertex(_ point: TrackPoint) {
        if !firstVertex { text += "," }
        firstVertex = false
        text += "[" + GeoJSONWriter.longitude(point.longitude) + "," + GeoJSONWriter.latitude(point.latitude) + "]"
        if text.utf8.count >= 16_384 { flush() }
    }

    func endLine() {
        if lineCount > 1 { text += "]" }
        linesWritten += 1
        if linesWritten == lineCount { text += "\n]}}" }
        flush()
    }

    func isolatedFix(_ point: TrackPoint, segment number: Int) {
        writePoint(point, kind: "isolated_fix", segment: number)
        flush()
    }

    func fix(_ point: TrackPoint) {
        writePoint(point, kind: "fix", segment: nil)
    }

    func geofence(_ event: ReportGeofence) {
        flush()
        startFeature()
        text += #"{"type":"Feature","geometry":"# + GeoJSONWriter.point(latitude: event.latitude, longitude: event.longitude)
        text += #","properties":{"kind":"geofence","uuid":"# + JSONWriter().literal(event.uuid)
        text += #","time":"# + GeoJSONWriter.time(event.time)
        text += #","identifier":"# + JSONWriter().literal(event.identifier)
        text += #","action":"# + JSONWriter().literal(event.action) + "}}"
        flush()
    }

    func finish() throws(OutputWriteError) {
        flush()
        out.write("\n]}\n")
        try out.finish()
    }

    private func writePoint(_ p: TrackPoint, kind: String, segment: Int?) {
        // Appended piece by piece: a million fixes, no temporary strings.
        startFeature()
        text += #"{"type":"Feature","geometry":{"type":"Point","coordinates":["#
        text += GeoJSONWriter.longitude(p.longitude)
        text += ","
        text += GeoJSONWriter.latitude(p.latitude)
        text += #"]},"properties":{"kind":""#
        text += kind
        text += "\""
        if let segment {
            text += #","segment":"#
            text += String(segment)
        }
        text += #","uuid":"#
        text += p.uuid.map(JSONWriter().literal) ?? "null"
        text += #","time":""#
        text += Timestamp.format(p.time)
        text += #"","accuracy":"#
        number(p.accuracy, places: 2)
        text += #","speed":"#
        number(p.speed, places: 2)
        text += #","heading":"#
        number(p.heading, places: 1)
        text += #","altitude":"#
        number(p.altitude, places: 2)
        text += #","odometer":"#
        number(p.odometer, places: 2)
        if mode == .replayed {
            text += #","recorded_odometer":"#
            number(p.recordedOdometer, places: 2)
        }
        text += #","is_moving":"#
        text += p.isMoving.map { $0 ? "true" : "false" } ?? "null"
        text += #","decision":""#
        text += p.decision.rawValue
        text += #"","reason":"#
        text += p.reason.map(JSONWriter().literal) ?? "null"
        text += "}}"
        if text.utf8.count >= 1 << 16 { flush() }
    }

    private func number(_ value: Double?, places: Int) {
        if let value, value.isFinite { text += DecimalText.format(value, places: places) } else { text += "null" }
    }

    private func startFeature() {
        text += features == 0 ? "\n" : ",\n"
        features += 1
    }

    private func flush() {
        out.write(text)
        text.removeAll(keepingCapacity: true)
    }

    static func point(latitude: Double, longitude: Double) -> String {
        #"{"type":"Point","coordinates":["# + GeoJSONWriter.longitude(longitude) + "," + GeoJSONWriter.latitude(latitude) + "]}"
    }

    /// −90…90, at most 7 decimals.
    static func latitude(_ value: Double) -> String { DecimalText.format(min(max(value, -90), 90), places: 7) }
    /// −180…180, at most 7 decimals.
    static func longitude(_ value: Double) -> String { DecimalText.format(min(max(value, -180), 180), places: 7) }
    /// ISO-8601 UTC with milliseconds, quoted.
    static func time(_ t: Double) -> String { "\"" + Timestamp.format(t) + "\"" }
}
