import Foundation
import Testing
@testable import BGeoReader
@testable import BGeoForensics
@testable import BGeoSimulation

@Suite struct GPXTests {
    static let directory = TestDirectory("gpx")

    /// Writes the demo dump's track in `mode` and returns (path, summary, trace).
    static func export(_ mode: TrackMode) throws -> (path: String, summary: GPXExportSummary, trace: ReportTrace) {
        let dump = try Dump(path: ReportFixture.dumpPath)
        let path = directory.file("demo-\(mode.rawValue)-\(UUID().uuidString).gpx")
        let result = try GPXFile.write(dump: dump, to: path, mode: mode, generatedAt: 1_785_100_000)
        return (path, result.summary, RecordedTraceReader.read(dump))
    }

    @Test func decimalsNeverUseExponents() {
        #expect(DecimalText.format(0.00001, places: 7) == "0.00001")
        #expect(DecimalText.format(-0.00000001, places: 7) == "0")
        #expect(DecimalText.format(52.2297, places: 7) == "52.2297")
        #expect(DecimalText.format(-21.00000049, places: 7) == "-21.0000005")
        #expect(DecimalText.format(8, places: 2) == "8")
        #expect(DecimalText.format(.nan, places: 2) == "0")
        #expect(GPXWriter.longitude(180) == "-180")
        #expect(GPXWriter.longitude(179.99999999) == "-180")
        #expect(GPXWriter.latitude(91) == "90")
    }

    /// The buffer-writing formatter against a plain string-building one on random values of
    /// every magnitude and precision (the earlier implementation, kept here as the reference).
    @Test func decimalTextMatchesStringBuilding() {
        func reference(_ value: Double, _ places: Int) -> String {
            var scale: Int64 = 1
            for _ in 0..<places { scale *= 10 }
            let scaled = Int64((abs(value) * Double(scale)).rounded())
            var fraction = scaled % scale
            var text = value < 0 && scaled != 0 ? "-" : ""
            text += String(scaled / scale)
            guard places > 0, fraction != 0 else { return text }
            var digits = places
            while fraction % 10 == 0 { fraction /= 10; digits -= 1 }
            let fractionText = String(fraction)
            return text + "." + String(repeating: "0", count: digits - fractionText.count) + fractionText
        }
        var rng = SplitMix64(seed: 11)
        for i in 0..<20_000 {
            let magnitude = [1e-9, 1e-5, 0.01, 1, 180, 1e4, 1e8][i % 7]
            let value = rng.double(-1...1) * magnitude
            let places = rng.int(0...9)
            #expect(DecimalText.format(value, places: places) == reference(value, places), "\(value) \(places)")
        }
        #expect(DecimalText.format(-0.0, places: 3) == "0")
        #expect(DecimalText.format(1e12, places: 2) == "1000000000000")
        #expect(DecimalText.format(-0.05, places: 1) == "-0.1")
    }

    @Test func segmentsSplitAtGaps() throws {
        let (_, summary, trace) = try GPXTests.export(.recorded)
        #expect(summary.points == trace.fixes.filter { $0.decision.decision != .rejected }.count)
        #expect(summary.segments == 2)  // the demo has one 40-minute gap
        #expect(summary.waypoints == trace.geofences.count)
        let raw = try GPXTests.export(.raw)
        #expect(raw.summary.points == trace.fixes.count)
        let text = try String(contentsOfFile: raw.path, encoding: .utf8)
        #expect(text.contains("<bgeo:decision>rejected</bgeo:decision>"))
        #expect(text.contains("<bgeo:reason>teleport</bgeo:reason>"))
        #expect(text.contains("&lt;north&gt;"))
        #expect(text.contains("<time>2026-07-26T21:06:40.000Z</time>"))
    }

    @Test(.enabled(if: ReportFixture.tool("xmllint") != nil && ReportFixture.gpxSchema != nil,
                   "xmllint or the GPX 1.1 schema is missing: install libxml2-utils"),
          arguments: TrackMode.allCases)
    func validAgainstGPX11Schema(mode: TrackMode) throws {
        let (path, _, _) = try GPXTests.export(mode)
        let result = try ReportFixture.run(ReportFixture.tool("xmllint")!, ["--noout", "--schema", ReportFixture.gpxSchema!, path])
        #expect(result.status == 0, "\(result.output)")
        #expect(result.output.contains("validates"))
    }

    @Test(.enabled(if: ReportFixture.tool("gpsbabel") != nil, "gpsbabel is not installed"), arguments: [TrackMode.recorded, .raw])
    func gpsbabelReadsSameCounts(mode: TrackMode) throws {
        let (path, summary, _) = try GPXTests.export(mode)
        let csv = try ReportFixture.run(ReportFixture.tool("gpsbabel")!, ["-t", "-i", "gpx", "-f", path, "-o", "unicsv", "-F", "-"])
        #expect(csv.status == 0, "\(csv.output)")
        let lines = csv.output.split(whereSeparator: \.isNewline).filter { $0.first?.isNumber == true }
        #expect(lines.count == summary.points)
        let gpx = try ReportFixture.run(ReportFixture.tool("gpsbabel")!, ["-t", "-i", "gpx", "-f", path, "-o", "gpx", "-F", "-"])
        #expect(gpx.output.components(separatedBy: "<trkseg>").count - 1 == summary.segments)
        let wpts = try ReportFixture.run(ReportFixture.tool("gpsbabel")!, ["-w", "-i", "gpx", "-f", path, "-o", "unicsv", "-F", "-"])
        #expect(wpts.output.split(whereSeparator: \.isNewline).filter { $0.first?.isNumber == true }.count == summary.waypoints)
    }

    @Test func emptyDumpWritesValidEmptyGPX() throws {
        let path = GPXTests.directory.file("empty.db")
        let writer = try DumpWriter(path: path, layout: .current)
        try writer.close()
        let dump = try Dump(path: path)
        let out = GPXTests.directory.file("empty.gpx")
        let result = try GPXFile.write(dump: dump, to: out, mode: .recorded, generatedAt: nil)
        #expect(result.summary == GPXExportSummary(points: 0, segments: 0, waypoints: 0))
        let text = try String(contentsOfFile: out, encoding: .utf8)
        #expect(text.contains("<gpx version=\"1.1\""))
        #expect(!text.contains("<bounds"))
        if let xmllint = ReportFixture.tool("xmllint"), let schema = ReportFixture.gpxSchema {
            #expect(try ReportFixture.run(xmllint, ["--noout", "--schema", schema, out]).status == 0)
        }
    }

    /// Strings from the dump (uuids, geofence names) are escaped by libxml2 in track points and
    /// waypoints alike: markup in them stays text, the file stays valid, and the parsed text is
    /// the original string.
    @Test func customerStringsAreEscaped() throws {
        let path = GPXTests.directory.file("hostile.db")
        let writer = try DumpWriter(path: path, layout: .current)
        let hostile = "<script>alert(1)</script>&\"'"
        for (i, second) in [0, 30].enumerated() {
            let record: JSONValue = ["uuid": .string("u\(i)-" + hostile), "timestamp": .string("2026-07-24T06:00:\(second == 0 ? "00" : "30").000Z"),
                                     "coords": ["latitude": 52.2, "longitude": 21.0, "accuracy": 5.0, "speed": 1.0]]
            _ = try writer.insertRecord(record)
        }
        let fence: JSONValue = ["uuid": "g-1", "timestamp": "2026-07-24T06:01:00.000Z",
                                "coords": ["latitude": 52.2, "longitude": 21.0],
                                "geofence": ["identifier": .string(hostile), "action": "ENTER"]]
        _ = try writer.insertRecord(fence)
        try writer.close()
        let out = GPXTests.directory.file("hostile.gpx")
        let result = try GPXFile.write(dump: try Dump(path: path), to: out, mode: .recorded, generatedAt: nil)
        #expect(result.summary.points == 2 && result.summary.waypoints == 1)
        let text = try String(contentsOfFile: out, encoding: .utf8)
        #expect(!text.contains("<script>"))
        #expect(text.contains("&lt;script&gt;alert(1)&lt;/script&gt;&amp;"))
        if let xmllint = ReportFixture.tool("xmllint"), let schema = ReportFixture.gpxSchema {
            #expect(try ReportFixture.run(xmllint, ["--noout", "--schema", schema, out]).status == 0)
            // The two track points' uuids, in document order.
            for (i, query) in ["string((//*[local-name()='trkpt']//*[local-name()='uuid'])[1])", "string((//*[local-name()='trkpt']//*[local-name()='uuid'])[2])"].enumerated() {
                let parsed = try ReportFixture.run(xmllint, ["--xpath", query, out])
                #expect(parsed.output.trimmingCharacters(in: .newlines) == "u\(i)-" + hostile)
            }
            let name = try ReportFixture.run(xmllint, ["--xpath", "string(//*[local-name()='wpt']/*[local-name()='name'])", out])
            #expect(name.output.trimmingCharacters(in: .newlines) == hostile)
        }
    }
}

@Suite struct MapGeometryTests {
    @Test func straightLineSimplifiesToEnds() {
        let points = (0...1000).map { (x: Double($0), y: Double($0) * 0.5) }
        let simple = PolylineSimplifier.simplify(points, tolerance: 0.5)
        #expect(simple.count == 2)
        #expect(simple.first! == (x: 0, y: 0) && simple.last! == (x: 1000, y: 500))
    }

    @Test func cornersSurvive() {
        var points: [(x: Double, y: Double)] = (0...100).map { (x: Double($0), y: 0) }
        points += (1...100).map { (x: 100, y: Double($0)) }
        let simple = PolylineSimplifier.simplify(points, tolerance: 0.5)
        #expect(simple.count == 3)
        #expect(simple[1] == (x: 100, y: 0))
        // Every dropped point is within tolerance of the simplified line.
        for p in points {
            let d = zip(simple, simple.dropFirst()).map { PolylineSimplifier.segmentDistanceSquared(p, $0, $1) }.min()!
            #expect(d <= 0.25 + 1e-9)
        }
    }

    @Test func millionPointsStayFast() {
        let points = (0..<1_000_000).map { i in (x: Double(i) / 1000, y: sin(Double(i) / 5000) * 100) }
        let start = Date()
        let simple = PolylineSimplifier.simplify(points, tolerance: 0.5)
        #expect(simple.count < 5000)
        #expect(Date().timeIntervalSince(start) < 20)
    }

    @Test func projectionFitsAndKeepsNorthUp() {
        let lats = [52.0, 52.1], lons = [21.0, 21.3]
        let p = MapProjection(latitudes: lats, longitudes: lons, width: 800, height: 500, padding: 20)
        let sw = p.point(latitude: 52.0, longitude: 21.0), ne = p.point(latitude: 52.1, longitude: 21.3)
        #expect(ne.y < sw.y && ne.x > sw.x)
        for q in [sw, ne] { #expect(q.x >= 19.9 && q.x <= 780.1 && q.y >= 19.9 && q.y <= 480.1) }
        // Same ground distance, same pixels: 0.1° lat vs 0.1°/cos(lat) lon.
        let a = p.point(latitude: 52.05, longitude: 21.1)
        let b = p.point(latitude: 52.05, longitude: 21.1 + 0.01 / cos(52.05 * .pi / 180))
        let c = p.point(latitude: 52.06, longitude: 21.1)
        #expect(abs((b.x - a.x) - (a.y - c.y)) < 0.2)
        let bar = p.scaleBar()
        #expect([1.0, 2.0, 5.0].contains(bar.metres / pow(10, floor(log10(bar.metres)))))
        #expect(bar.pixels > 40 && bar.pixels <= 120)
    }
}
