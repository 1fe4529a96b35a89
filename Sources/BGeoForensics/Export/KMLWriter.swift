import BGeoReader
import CLibXML2
import Foundation

/// Streams a track as KML 2.2 over libxml2's xmlTextWriter: a Document with styles for the track,
/// accepted, adjusted and rejected fixes and geofence events; a "Track" folder with one LineString
/// Placemark per segment (its TimeSpan) and a Point Placemark per one-point segment; with
/// `--points` a "Fixes" folder with one Placemark per fix (TimeStamp, style by decision,
/// ExtendedData); a "Geofence events" folder. Folders are opened when they get their first
/// placemark. The document's structure goes through xmlTextWriter; each placemark is one line of
/// markup built here and written raw in one call (a million fixes), with every string from the
/// dump passed through `XMLText.escaped`.
final class KMLWriter: TrackFeatureWriter {
    static let namespace = "http://www.opengis.net/kml/2.2"

    private let writer: xmlTextWriterPtr
    private let name: String
    private let description: String
    private let mode: TrackMode
    private var markup: [UInt8] = []
    /// The errno of the first failed write (0 when libxml2 did not set one), nil while all went well.
    private var failure: Int32?
    private var section: TrackFeatureSection = .track
    private var folderOpen = false

    init(path: String, name: String, description: String, mode: TrackMode) throws(OutputWriteError) {
        bgeo_libxml_silence_errors()
        errno = 0
        guard let writer = xmlNewTextWriterFilename(path, 0) else { throw OutputWriteError(code: errno) }
        self.writer = writer
        self.name = name
        self.description = description
        self.mode = mode
        markup.reserveCapacity(1 << 16)
    }

    deinit { xmlFreeTextWriter(writer) }

    private func check(_ result: Int32) {
        if result < 0, failure == nil { failure = errno }
    }

    private func start(_ element: StaticString) { check(xmlTextWriterStartElement(writer, element.utf8Start)) }
    private func end() { check(xmlTextWriterEndElement(writer)) }

    /// Raw text: markup this writer made (constants, numbers, times) or a dump string after `XMLText.escaped`.
    private func raw(_ text: String) {
        var copy = text
        copy.withUTF8 { bytes in check(xmlTextWriterWriteRawLen(writer, bytes.baseAddress, Int32(bytes.count))) }
    }

    private func flushMarkup() {
        guard !markup.isEmpty else { return }
        markup.withUnsafeBufferPointer { bytes in check(xmlTextWriterWriteRawLen(writer, bytes.baseAddress, Int32(bytes.count))) }
        markup.removeAll(keepingCapacity: true)
    }

    private func add(_ text: String) { markup.append(contentsOf: text.utf8) }

    /// `<tag>text</tag>` for text this writer made (appended piece by piece: no temporary strings).
    private func add(_ tag: String, _ text: String) {
        markup.append(UInt8(ascii: "<")); add(tag); markup.append(UInt8(ascii: ">"))
        add(text)
        markup.append(contentsOf: [UInt8(ascii: "<"), UInt8(ascii: "/")]); add(tag); markup.append(UInt8(ascii: ">"))
    }

    /// `lon,lat`: KML's order, −180…180 / −90…90, at most 7 decimals.
    private func addCoordinates(_ latitude: Double, _ longitude: Double) {
        add(DecimalText.format(min(max(longitude, -180), 180), places: 7))
        markup.append(UInt8(ascii: ","))
        add(DecimalText.format(min(max(latitude, -90), 90), places: 7))
    }

    func begin(outline: TrackOutline, geofences: [ReportGeofence], includesFixes: Bool) {
        check(xmlTextWriterStartDocument(writer, "1.0", "UTF-8", nil))
        start("kml")
        check(xmlTextWriterWriteAttribute(writer, "xmlns", KMLWriter.namespace))
        raw("\n")
        start("Document")
        raw("\n  <name>" + XMLText.escaped(name) + "</name>\n  <description>" + XMLText.escaped(description) + "</description>")
        // KML colours are aabbggrr. Labels are hidden on fixes: a million names would bury the map.
        let styles: [(id: String, body: String)] = [
            ("track", "<LineStyle><color>ffd27b1f</color><width>3</width></LineStyle>"),
            ("accepted", "<IconStyle><color>ff3c9a2e</color><scale>0.5</scale></IconStyle><LabelStyle><scale>0</scale></LabelStyle>"),
            ("adjusted", "<IconStyle><color>ff0a8ff2</color><scale>0.6</scale></IconStyle><LabelStyle><scale>0</scale></LabelStyle>"),
            ("rejected", "<IconStyle><color>ff2828d6</color><scale>0.7</scale></IconStyle><LabelStyle><scale>0</scale></LabelStyle>"),
            ("geofence", "<IconStyle><color>ffb4419b</color><scale>1.0</scale></IconStyle>"),
        ]
        for style in styles { raw("\n  <Style id=\"" + style.id + "\">" + style.body + "</Style>") }
    }

    func section(_ section: TrackFeatureSection) {
        closeFolder()
        self.section = section
    }

    private func openFolderIfNeeded() {
        guard !folderOpen else { return }
        flushMarkup()
        let title: String
        switch section {
        case .track: title = "Track (\(mode.rawValue))"
        case .fixes: title = "Fixes"
        case .geofences: title = "Geofence events"
        }
        raw("\n  ")
        start("Folder")
        raw("<name>" + title + "</name>")
        folderOpen = true
    }

    private func closeFolder() {
        flushMarkup()
        guard folderOpen else { return }
        raw("\n  ")
        end()
        folderOpen = false
    }

    func beginLine(_ segment: TrackOutline.Segment, number: Int) {
        openFolderIfNeeded()
        add("\n    <Placemark>")
        add("name", "segment \(number)")
        add("<TimeSpan>"); add("begin", Timestamp.format(segment.start)); add("end", Timestamp.format(segment.end)); add("</TimeSpan>")
        add("styleUrl", "#track")
        add("<ExtendedData>")
        data("segment", String(number))
        data("points", String(segment.count))
        add("</ExtendedData><LineString><tessellate>1</tessellate><coordinates>")
        flushMarkup()
    }

    func vertex(_ point: TrackPoint) {
        addCoordinates(point.latitude, point.longitude)
        markup.append(UInt8(ascii: " "))
        if markup.count >= 1 << 16 { flushMarkup() }
    }

    func endLine() {
        if markup.last == UInt8(ascii: " ") { markup.removeLast() }
        add("</coordinates></LineString></Placemark>")
        flushMarkup()
    }

    func isolatedFix(_ point: TrackPoint, segment number: Int) {
        openFolderIfNeeded()
        placemark(point, name: "segment \(number) (one fix)")
    }

    func fix(_ point: TrackPoint) {
        openFolderIfNeeded()
        placemark(point, name: point.uuid.map(XMLText.escaped) ?? "\(point.decision.rawValue) fix")
    }

    func geofence(_ event: ReportGeofence) {
        openFolderIfNeeded()
        add("\n    <Placemark>")
        add("name", XMLText.escaped(event.identifier))
        add("description", "geofence " + XMLText.escaped(event.action) + " " + XMLText.escaped(event.identifier))
        add("<TimeStamp>"); add("when", Timestamp.format(event.time)); add("</TimeStamp>")
        add("styleUrl", "#geofence")
        add("<ExtendedData>")
        data("uuid", XMLText.escaped(event.uuid))
        data("identifier", XMLText.escaped(event.identifier))
        data("action", XMLText.escaped(event.action))
        add("</ExtendedData>")
        add("<Point><coordinates>")
        addCoordinates(event.latitude, event.longitude)
        add("</coordinates></Point></Placemark>")
        flushMarkup()
    }

    /// A fix as one line: name, TimeStamp, style by decision, ExtendedData (known values only), Point.
    /// `name` is already escaped.
    private func placemark(_ p: TrackPoint, name: String) {
        add("\n    <Placemark>")
        add("name", name)
        let time = Timestamp.format(p.time)
        add("<TimeStamp>"); add("when", time); add("</TimeStamp>")
        add("<styleUrl>#"); add(p.decision.rawValue); add("</styleUrl>")
        add("<ExtendedData>")
        if let uuid = p.uuid { data("uuid", XMLText.escaped(uuid)) }
        data("time", time)
        number("accuracy", p.accuracy, places: 2)
        number("speed", p.speed, places: 2)
        number("heading", p.heading, places: 1)
        number("altitude", p.altitude, places: 2)
        number("odometer", p.odometer, places: 2)
        if mode == .replayed { number("recorded_odometer", p.recordedOdometer, places: 2) }
        if let moving = p.isMoving { data("is_moving", moving ? "true" : "false") }
        data("decision", p.decision.rawValue)
        if let reason = p.reason { data("reason", XMLText.escaped(reason)) }
        add("</ExtendedData>")
        add("<Point><coordinates>")
        addCoordinates(p.latitude, p.longitude)
        add("</coordinates></Point></Placemark>")
        if markup.count >= 1 << 16 { flushMarkup() }
    }

    /// `<Data name="…"><value>…</value></Data>`; `value` is this writer's text or already escaped.
    private func data(_ name: String, _ value: String) {
        add("<Data name=\""); add(name); add("\"><value>"); add(value); add("</value></Data>")
    }

    private func number(_ name: String, _ value: Double?, places: Int) {
        guard let value, value.isFinite else { return }
        data(name, DecimalText.format(value, places: places))
    }

    func finish() throws(OutputWriteError) {
        flushMarkup()
        closeFolder()
        raw("\n")
        end()  // Document
        raw("\n")
        check(xmlTextWriterEndDocument(writer))
        check(xmlTextWriterFlush(writer))
        if let failure { throw OutputWriteError(code: failure) }
    }
}
