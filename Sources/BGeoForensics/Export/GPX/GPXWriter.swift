import BGeoReader
import CLibXML2
import Foundation

/// A streaming GPX 1.1 writer over libxml2's xmlTextWriter: elements go to the file as they are
/// written, so a million-point track never exists as a document in memory. The caller writes in
/// schema order: `begin` (metadata), waypoints, then tracks of segments of points, then `finish`.
/// libxml2 escapes every text and attribute value, so customer strings cannot break the XML.
public final class GPXWriter {
    /// Our extension namespace (GPX 1.1 requires extension elements from another namespace).
    public static let extensionNamespace = "https://bgeo-forensics.invalid/gpx/1"
    public static let gpxNamespace = "http://www.topografix.com/GPX/1/1"

    /// One point (wpt or trkpt) and its optional fields.
    public struct Point: Sendable {
        public var latitude: Double
        public var longitude: Double
        public var time: Double?
        public var elevation: Double?
        public var name: String?
        public var description: String?
        public var type: String?
        /// Written under `<extensions>` as `bgeo:…` elements.
        public var extensions: Extensions

        public init(latitude: Double, longitude: Double, time: Double? = nil, elevation: Double? = nil, name: String? = nil,
                    description: String? = nil, type: String? = nil, extensions: Extensions = Extensions()) {
            self.latitude = latitude
            self.longitude = longitude
            self.time = time
            self.elevation = elevation
            self.name = name
            self.description = description
            self.type = type
            self.extensions = extensions
        }
    }

    /// Our `<extensions>` children (a fixed set: no per-point allocation), written when set.
    public struct Extensions: Sendable {
        public var accuracy: Double?
        public var speed: Double?
        public var heading: Double?
        public var uuid: String?
        public var action: String?
        public var decision: String?
        public var reason: String?

        public init(accuracy: Double? = nil, speed: Double? = nil, heading: Double? = nil, uuid: String? = nil,
                    action: String? = nil, decision: String? = nil, reason: String? = nil) {
            self.accuracy = accuracy
            self.speed = speed
            self.heading = heading
            self.uuid = uuid
            self.action = action
            self.decision = decision
            self.reason = reason
        }

        var isEmpty: Bool {
            accuracy == nil && speed == nil && heading == nil && uuid == nil && action == nil && decision == nil && reason == nil
        }
    }

    /// Metadata bounds.
    public struct Bounds: Sendable, Equatable {
        public var minLatitude, minLongitude, maxLatitude, maxLongitude: Double
        public init(minLatitude: Double, minLongitude: Double, maxLatitude: Double, maxLongitude: Double) {
            self.minLatitude = minLatitude
            self.minLongitude = minLongitude
            self.maxLatitude = maxLatitude
            self.maxLongitude = maxLongitude
        }
    }

    private let writer: xmlTextWriterPtr
    /// Reused for each track point's own markup (see `Markup`).
    private var markup: [UInt8] = []
    /// The errno of the first failed write (0 when libxml2 did not set one), nil while all went well.
    private var failure: Int32?
    private var inSegment = false
    private var inTrack = false
    public private(set) var pointCount = 0
    public private(set) var segmentCount = 0
    public private(set) var waypointCount = 0

    /// False: every point through libxml2 (the reference the one-line fast path is tested against).
    private let plainLines: Bool

    /// Opens `path` for writing ("-" writes to standard output).
    public convenience init(path: String) throws(OutputWriteError) {
        try self.init(path: path, plainLines: true)
    }

    init(path: String, plainLines: Bool) throws(OutputWriteError) {
        self.plainLines = plainLines
        bgeo_libxml_silence_errors()
        errno = 0
        guard let writer = xmlNewTextWriterFilename(path, 0) else { throw OutputWriteError(code: errno) }
        self.writer = writer
        xmlTextWriterSetIndent(writer, 1)
        xmlTextWriterSetIndentString(writer, "  ")
    }

    deinit { xmlFreeTextWriter(writer) }

    private func check(_ result: Int32) {
        if result < 0, failure == nil { failure = errno }
    }

    // Names are static strings and values go through withCString: passing a Swift String where
    // libxml2 wants `const xmlChar *` would otherwise build a temporary array per call (a malloc
    // and a copy for every element of a million-point track). libxml2 escapes markup but writes
    // any other character as given, so values first lose what XML 1.0 cannot hold (`XMLText`;
    // a NUL would also end the C string early).
    // Text with an invisible character XML allows (a bidi override, a zero-width space, U+2028,
    // the BOM, C1 controls, a carriage return) is escaped here as KML and GeoJSON escape it
    // (`XMLText.escaped`: character references) and written raw: libxml2 would write those
    // characters as they are, and a viewer or terminal showing the file would act on them.
    private func element(_ name: StaticString, _ text: String) {
        guard !TerminalText.needsEscaping(text, keepingNewlines: true) else {
            start(name)
            writeRaw(XMLText.escaped(text))
            check(xmlTextWriterEndElement(writer))
            return
        }
        XMLText.sanitized(text).withCString { value in
            check(xmlTextWriterWriteElement(writer, name.utf8Start, UnsafeRawPointer(value).assumingMemoryBound(to: xmlChar.self)))
        }
    }

    private func attribute(_ name: StaticString, _ value: String) {
        guard !TerminalText.needsEscaping(value, keepingNewlines: true) else {
            check(xmlTextWriterStartAttribute(writer, name.utf8Start))
            writeRaw(XMLText.escaped(value).replacingOccurrences(of: "\n", with: "&#xA;"))
            check(xmlTextWriterEndAttribute(writer))
            return
        }
        XMLText.sanitized(value).withCString { v in
            check(xmlTextWriterWriteAttribute(writer, name.utf8Start, UnsafeRawPointer(v).assumingMemoryBound(to: xmlChar.self)))
        }
    }

    private func writeRaw(_ text: String) {
        var text = text
        text.withUTF8 { bytes in check(xmlTextWriterWriteRawLen(writer, bytes.baseAddress, Int32(bytes.count))) }
    }

    private func start(_ name: StaticString) {
        check(xmlTextWriterStartElement(writer, name.utf8Start))
    }

    /// Starts the document: root element with namespaces and the metadata block.
    public func begin(creator: String, name: String?, description: String?, time: Double?, bounds: Bounds?) {
        check(xmlTextWriterStartDocument(writer, "1.0", "UTF-8", nil))
        start("gpx")
        attribute("version", "1.1")
        attribute("creator", creator)
        attribute("xmlns", GPXWriter.gpxNamespace)
        attribute("xmlns:xsi", "http://www.w3.org/2001/XMLSchema-instance")
        attribute("xmlns:bgeo", GPXWriter.extensionNamespace)
        attribute("xsi:schemaLocation", "\(GPXWriter.gpxNamespace) http://www.topografix.com/GPX/1/1/gpx.xsd")
        start("metadata")
        if let name { element("name", name) }
        if let description { element("desc", description) }
        if let time { element("time", Timestamp.format(time)) }
        if let bounds {
            start("bounds")
            attribute("minlat", GPXWriter.latitude(bounds.minLatitude))
            attribute("minlon", GPXWriter.longitude(bounds.minLongitude))
            attribute("maxlat", GPXWriter.latitude(bounds.maxLatitude))
            attribute("maxlon", GPXWriter.longitude(bounds.maxLongitude))
            check(xmlTextWriterEndElement(writer))
        }
        check(xmlTextWriterEndElement(writer))
    }

    /// A `<wpt>`: only before the first track.
    public func waypoint(_ point: Point) {
        flushLines()
        writePoint("wpt", point, compact: false)
        waypointCount += 1
    }

    public func beginTrack(name: String?, description: String?, type: String?) {
        flushLines()
        endTrack()
        start("trk")
        if let name { element("name", name) }
        if let description { element("desc", description) }
        if let type { element("type", type) }
        inTrack = true
    }

    /// Closes the current segment (if any) and opens a new one.
    public func beginSegment() {
        flushLines()
        endSegment()
        start("trkseg")
        inSegment = true
        segmentCount += 1
    }

    public func endSegment() {
        flushLines()
        guard inSegment else { return }
        // The last one-line point left the cursor at its end: put the closing tag on its own line.
        check(xmlTextWriterWriteRaw(writer, "\n    "))
        check(xmlTextWriterEndElement(writer))
        inSegment = false
    }

    public func endTrack() {
        flushLines()
        endSegment()
        guard inTrack else { return }
        check(xmlTextWriterEndElement(writer))
        inTrack = false
    }

    /// A `<trkpt>` in the current segment (one is opened if needed).
    /// Each point is written on one line (indentation off inside it): a third fewer bytes than
    /// indenting every child, and still one point per line for grep and diff.
    public func trackPoint(_ point: Point) {
        if !inSegment { beginSegment() }
        if plainLines, writePlainTrackPoint(point) {
            pointCount += 1
            return
        }
        flushLines()
        xmlTextWriterSetIndent(writer, 0)
        check(xmlTextWriterWriteRaw(writer, "\n      "))
        writePoint("trkpt", point, compact: true)
        xmlTextWriterSetIndent(writer, 1)
        pointCount += 1
    }

    /// Closes everything and flushes; throws if any write failed (disk full, closed pipe).
    public func finish() throws(OutputWriteError) {
        flushLines()
        endTrack()
        check(xmlTextWriterEndDocument(writer))
        check(xmlTextWriterFlush(writer))
        if let failure { throw OutputWriteError(code: failure) }
    }

    /// `compact`: a track point, written on one line (its numbers go out raw, see below); a
    /// waypoint is indented element by element.
    private func writePoint(_ tag: StaticString, _ p: Point, compact: Bool) {
        start(tag)
        attribute("lat", GPXWriter.latitude(p.latitude))
        attribute("lon", GPXWriter.longitude(p.longitude))
        // wptType order: ele, time, …, name, cmt, desc, src, link, sym, type, …, extensions.
        // Numbers and times are this writer's own text (digits, '.', '-', ':', 'T', 'Z'): nothing
        // in them needs escaping, so in a track point they go out raw, in one call (a million
        // points: a third of the writing time). Every string that comes from the dump (names,
        // uuids, reasons) goes through libxml2's escaping.
        let own = Markup(compact: compact, writer: self)
        if let ele = p.elevation, ele.isFinite { own.add("ele", DecimalText.format(ele, places: 2)) }
        if let time = p.time { own.add("time", Timestamp.format(time)) }
        own.flush()
        if let name = p.name { element("name", name) }
        if let desc = p.description { element("desc", desc) }
        if let type = p.type { element("type", type) }
        let x = p.extensions
        if !x.isEmpty {
            start("extensions")
            if let v = x.accuracy { own.add("bgeo:accuracy", DecimalText.format(v, places: 2)) }
            if let v = x.speed { own.add("bgeo:speed", DecimalText.format(v, places: 2)) }
            if let v = x.heading { own.add("bgeo:heading", DecimalText.format(v, places: 1)) }
            own.flush()
            if let v = x.uuid { element("bgeo:uuid", v) }
            if let v = x.action { element("bgeo:action", v) }
            if let v = x.decision { element("bgeo:decision", v) }
            if let v = x.reason { element("bgeo:reason", v) }
            check(xmlTextWriterEndElement(writer))
        }
        check(xmlTextWriterEndElement(writer))
    }

    /// The common track point, written as one raw line: the bytes libxml2 would write for it
    /// (the same markup `writePoint` makes, compact), without a call per element and attribute.
    /// Only when nothing in it needs escaping: every dump string in it is printable ASCII without
    /// markup characters (`plain`), so libxml2's escaping and `XMLText` would leave it as is; a
    /// point with anything else, or with no child element (libxml2 would close it with "/>"),
    /// goes through `writePoint`. A million-point track: most of the writing time.
    private func writePlainTrackPoint(_ p: Point) -> Bool {
        let x = p.extensions
        guard p.name == nil, p.description == nil, p.type == nil,
              GPXWriter.isPlain(x.uuid), GPXWriter.isPlain(x.action), GPXWriter.isPlain(x.decision), GPXWriter.isPlain(x.reason)
        else { return false }
        let elevation = p.elevation.flatMap { $0.isFinite ? $0 : nil }
        guard elevation != nil || p.time != nil || !x.isEmpty else { return false }
        // The line goes straight onto the pending lines, taken out of the class for the point:
        // every append to a class property would be an exclusive access checked at run time.
        var line: [UInt8] = []
        swap(&line, &lines)
        GPXWriter.appendPlainTrackPoint(p, elevation: elevation, to: &line)
        swap(&line, &lines)
        if lines.count >= GPXWriter.linesBatch { flushLines() }
        return true
    }

    /// `writePlainTrackPoint`'s line (the point checked plain), appended to `line`.
    private static func appendPlainTrackPoint(_ p: Point, elevation: Double?, to line: inout [UInt8]) {
        let x = p.extensions
        append("\n      <trkpt lat=\"", to: &line)
        appendLatitude(p.latitude, to: &line)
        append("\" lon=\"", to: &line)
        appendLongitude(p.longitude, to: &line)
        append("\">", to: &line)
        if let elevation { number("ele", elevation, places: 2, to: &line) }
        if let time = p.time {
            appendElement("time", to: &line) { Timestamp.append(time, to: &$0) }
        }
        if !x.isEmpty {
            append("<extensions>", to: &line)
            if let v = x.accuracy { number("bgeo:accuracy", v, places: 2, to: &line) }
            if let v = x.speed { number("bgeo:speed", v, places: 2, to: &line) }
            if let v = x.heading { number("bgeo:heading", v, places: 1, to: &line) }
            if let v = x.uuid { text("bgeo:uuid", v, to: &line) }
            if let v = x.action { text("bgeo:action", v, to: &line) }
            if let v = x.decision { text("bgeo:decision", v, to: &line) }
            if let v = x.reason { text("bgeo:reason", v, to: &line) }
            append("</extensions>", to: &line)
        }
        append("</trkpt>", to: &line)
    }

    /// One-line points not yet handed to libxml2: written in one call per 64 KiB, and before any
    /// other call to libxml2 (which must see them in order).
    private var lines: [UInt8] = []
    private static let linesBatch = 1 << 16

    private func flushLines() {
        guard !lines.isEmpty else { return }
        lines.withUnsafeBufferPointer { bytes in
            check(xmlTextWriterWriteRawLen(writer, bytes.baseAddress, Int32(bytes.count)))
        }
        lines.removeAll(keepingCapacity: true)
    }

    /// `<name>value</name>` with the value as `DecimalText` writes it.
    private static func number(_ name: StaticString, _ value: Double, places: Int, to bytes: inout [UInt8]) {
        appendElement(name, to: &bytes) { DecimalText.append(value, places: places, to: &$0) }
    }

    /// `<name>text</name>` for a text that needs no escaping (plain, or this writer's own).
    fileprivate static func text(_ name: StaticString, _ text: String, to bytes: inout [UInt8]) {
        appendElement(name, to: &bytes) { bytes in
            var text = text
            text.withUTF8 { bytes.append(contentsOf: $0) }
        }
    }

    /// `<name>…</name>` appended to `bytes`, `content` writing what goes between the tags.
    private static func appendElement(_ name: StaticString, to bytes: inout [UInt8], _ content: (inout [UInt8]) -> Void) {
        let tag = UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount)
        bytes.append(UInt8(ascii: "<"))
        bytes.append(contentsOf: tag)
        bytes.append(UInt8(ascii: ">"))
        content(&bytes)
        bytes.append(UInt8(ascii: "<"))
        bytes.append(UInt8(ascii: "/"))
        bytes.append(contentsOf: tag)
        bytes.append(UInt8(ascii: ">"))
    }


    private static func append(_ text: StaticString, to bytes: inout [UInt8]) {
        bytes.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    /// Elements whose text this writer formatted itself (numbers, times; never a string from
    /// the dump): gathered as bytes and written raw in one call when compact, else element by
    /// element.
    private struct Markup {
        let compact: Bool
        let writer: GPXWriter

        func add(_ name: StaticString, _ value: String) {
            guard compact else { return writer.element(name, value) }
            GPXWriter.text(name, value, to: &writer.markup)
        }

        func flush() {
            guard !writer.markup.isEmpty else { return }
            writer.markup.withUnsafeBufferPointer { bytes in
                writer.check(xmlTextWriterWriteRawLen(writer.writer, bytes.baseAddress, Int32(bytes.count)))
            }
            writer.markup.removeAll(keepingCapacity: true)
        }
    }
}
