import BGeoReader
import Foundation

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
    /// events as `wpt`. A track whose bounds are known only after a pass (`ExportTrack.boundsKnown`
    /// false) is written once through `scratch` (see `Pass`), else visited once more for them first.
    @discardableResult
    public func write(track: ExportTrack, to path: String, scratch: (body: String, header: String)? = nil)
        throws -> GPXExportSummary {
        try pass(track: track, to: path, scratch: scratch).summary
    }

    /// What one writing pass saw: the summary, and the decisions of every point it visited (on
    /// the track or not), which a replayed track read without its counting pass notes.
    struct Pass {
        var summary: GPXExportSummary
        var accepted = 0, adjusted = 0, rejected = 0
    }

    /// Writes the document; when the bounds are not known first and `scratch` names two files in
    /// the private working folder, the whole document goes to `scratch.body` without the bounds
    /// while the pass gathers them, then `scratch.header` gets the header with them, and `path`
    /// gets that header up to the end of its metadata followed by the rest of the body: the same
    /// bytes as when the bounds were known first (nothing after the metadata depends on them),
    /// for one replay instead of two.
    func pass(track: ExportTrack, to path: String, scratch: (body: String, header: String)?) throws -> Pass {
        var pointBounds = track.trackBounds()
        if !track.boundsKnown, scratch == nil {
            try points(of: track) { p in if p.onTrack { pointBounds = GeoBounds.including(pointBounds, latitude: p.latitude, longitude: p.longitude) } }
        }
        guard !track.boundsKnown, let scratch else { return try document(track: track, to: path, pointBounds: pointBounds).pass }
        // Each writer is gone (its file closed, so all its bytes are there) before the splice reads it.
        let (pass, gathered) = try document(track: track, to: scratch.body, pointBounds: nil)
        try writeHeader(track: track, to: scratch.header, pointBounds: gathered)
        try GPXExport.splice(header: scratch.header, body: scratch.body, into: path)
        return pass
    }

    /// The document with the metadata bounds of `pointBounds` and the waypoints; also the bounds
    /// of the points it wrote (for a header written after them).
    private func document(track: ExportTrack, to path: String, pointBounds: GeoBounds?) throws
        -> (pass: Pass, gathered: GeoBounds?) {
        let writer = try GPXWriter(path: path)
        begin(writer, track: track, pointBounds: pointBounds)
        let mode = track.mode
        var segmenter = TrackSegmenter(gapSeconds: gapSeconds)
        var started = false
        var gathered: GeoBounds?
        var accepted = 0, adjusted = 0, rejected = 0
        try points(of: track) { p in
            switch p.decision {
            case .accepted: accepted += 1
            case .adjusted: adjusted += 1
            case .rejected: rejected += 1
            }
            guard p.onTrack else { return }
            gathered = GeoBounds.including(gathered, latitude: p.latitude, longitude: p.longitude)
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
        let summary = GPXExportSummary(points: writer.pointCount, segments: writer.segmentCount, waypoints: writer.waypointCount)
        return (Pass(summary: summary, accepted: accepted, adjusted: adjusted, rejected: rejected), gathered)
    }

    /// A document of the metadata and the waypoints alone (the header the splice takes).
    private func writeHeader(track: ExportTrack, to path: String, pointBounds: GeoBounds?) throws {
        let writer = try GPXWriter(path: path)
        begin(writer, track: track, pointBounds: pointBounds)
        try writer.finish()
    }

    /// The metadata (its bounds: the points' and the geofence events') and the waypoints.
    private func begin(_ writer: GPXWriter, track: ExportTrack, pointBounds: GeoBounds?) {
        var bounds = pointBounds
        for g in track.geofences { bounds = GeoBounds.including(bounds, latitude: g.latitude, longitude: g.longitude) }
        writer.begin(creator: "\(ToolInfo.name) \(ToolInfo.version)", name: name, description: description, time: generatedAt,
                     bounds: bounds.map { GPXWriter.Bounds(minLatitude: $0.minLatitude, minLongitude: $0.minLongitude,
                                                           maxLatitude: $0.maxLatitude, maxLongitude: $0.maxLongitude) })
        for g in track.geofences {
            writer.waypoint(GPXWriter.Point(
                latitude: g.latitude, longitude: g.longitude, time: g.time, name: g.identifier,
                description: "geofence \(g.action) \(g.identifier)", type: "geofence",
                extensions: GPXWriter.Extensions(uuid: g.uuid, action: g.action)))
        }
    }

    /// `path` ("-": standard output) gets `header` up to and with its `</metadata>`, then `body`
    /// from after its own. Dump text in the metadata is escaped (`<` is `&lt;`), so the first
    /// `</metadata>` of each is the element's end.
    static func splice(header: String, body: String, into path: String) throws {
        let marker = Array("</metadata>".utf8)
        func failed(_ what: String) -> GPXWriteError { GPXWriteError(description: "writing the GPX failed (\(what))") }
        guard let headerBytes = FileManager.default.contents(atPath: header).map(Array.init),
              let headerEnd = end(of: marker, in: headerBytes[...]) else { throw failed("its header could not be read back") }
        let input = open(body, O_RDONLY | O_CLOEXEC)
        guard input >= 0 else { throw failed("its body could not be read back") }
        defer { close(input) }
        let output = path == "-" ? STDOUT_FILENO : open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o666)
        guard output >= 0 else { throw OutputWriteError(code: errno) }
        defer { if output != STDOUT_FILENO { close(output) } }
        func put(_ bytes: ArraySlice<UInt8>) throws {
            if let error = bytes.withUnsafeBytes({ FileDescriptorWrite.all(output, $0) }) { throw OutputWriteError(code: error) }
        }
        try put(headerBytes[..<headerEnd])
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        var skipping = true
        var held: [UInt8] = []
        while true {
            let n = buffer.withUnsafeMutableBytes { read(input, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                throw failed("its body could not be read back")
            }
            if n == 0 { break }
            guard skipping else {
                try put(buffer[..<n])
                continue
            }
            // The body's metadata ends within its first few hundred bytes; held until it is found.
            held += buffer[..<n]
            guard let bodyEnd = end(of: marker, in: held[...]) else { continue }
            try put(held[bodyEnd...])
            held = []
            skipping = false
        }
        if skipping { throw failed("its body has no metadata") }
    }

    /// The index just after the first `marker` in `bytes`.
    private static func end(of marker: [UInt8], in bytes: ArraySlice<UInt8>) -> Int? {
        guard bytes.count >= marker.count else { return nil }
        var i = bytes.startIndex
        while i <= bytes.endIndex - marker.count {
            if bytes[i] == marker[0], bytes[i..<(i + marker.count)].elementsEqual(marker) { return i + marker.count }
            i += 1
        }
        return nil
    }

    /// A track that cannot be read back (its stored trace damaged under the run) fails the write.
    private func points(of track: ExportTrack, _ body: (TrackPoint) -> Void) throws {
        do throws(ExportError) { try track.forEachPoint(body) } catch { throw GPXWriteError(description: error.description) }
    }
}
