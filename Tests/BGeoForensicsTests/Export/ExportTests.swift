import Foundation
import Testing
@testable import BGeoReader
@testable import BGeoForensics

/// The shared track iteration and the GeoJSON / KML writers, on the report's demo dump (a drive
/// with one 40-minute gap, adjusted and rejected fixes, geofence events).
@Suite struct ExportTests {
    static let directory = TestDirectory("export")

    /// Judges are installed by .ci/run: on CI a missing one fails instead of skipping.
    static func judge(_ name: String) -> Bool {
        ReportFixture.tool(name) != nil || ProcessInfo.processInfo.environment["CI"] != nil
    }

    static func export(_ format: ExportFormat, _ mode: TrackMode, points: Bool = true, dump path: String = ReportFixture.dumpPath)
        throws -> (path: String, summary: ExportSummary) {
        let out = directory.file("demo-\(mode.rawValue)-\(UUID().uuidString).\(format.rawValue)")
        let result = try ExportFile.write(dump: try Dump(path: path), to: out,
                                          options: ExportOptions(format: format, mode: mode, includesFixes: points))
        return (out, result.summary)
    }

    @Test func segmenterStartsAtTheFirstPointAndAtEveryGap() {
        var segmenter = TrackSegmenter(gapSeconds: 60)
        #expect([0, 30, 89, 149, 150, 400].map { segmenter.startsSegment(at: $0) } == [true, false, false, true, false, true])
    }

    /// Every mode visits every fix once; only raw puts rejected fixes on the line; the outline's
    /// segments are what the GPX writer splits (same rule).
    @Test(arguments: TrackMode.allCases)
    func trackVisitsEveryFixOnce(mode: TrackMode) throws {
        let dump = try Dump(path: ReportFixture.dumpPath)
        let track = try ExportTrack.read(dump, mode: mode)
        var count = 0, onTrack = 0, rejectedOnTrack = 0
        var previous = -Double.infinity
        try track.forEachPoint { p in
            count += 1
            #expect(p.time >= previous)
            previous = p.time
            if p.onTrack { onTrack += 1 }
            if p.onTrack, p.decision == .rejected { rejectedOnTrack += 1 }
        }
        #expect(count == track.fixCount)
        #expect(count > onTrack || mode == .raw)
        #expect(rejectedOnTrack == 0 || mode == .raw)
        let outline = try TrackOutline(track: track, gapSeconds: TrackSegmenter.defaultGapSeconds)
        #expect(outline.trackPoints == onTrack)
        let gpx = ExportTests.directory.file("outline-\(mode.rawValue).gpx")
        let summary = try GPXExport(name: "demo").write(track: track, to: gpx)
        #expect(summary.segments == outline.segments.count && summary.points == outline.trackPoints)
    }

    /// RFC 7946: a FeatureCollection of Features; positions [longitude, latitude] in range with at
    /// most 7 decimals; no `crs`; a bbox holding every position; checked with Foundation's parser.
    @Test(arguments: TrackMode.allCases)
    func geoJSONFollowsRFC7946(mode: TrackMode) throws {
        let (path, summary) = try ExportTests.export(.geojson, mode)
        let text = try String(contentsOfFile: path, encoding: .utf8)
        let root = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        #expect(root["type"] as? String == "FeatureCollection")
        #expect(!text.contains("\"crs\""))
        let bbox = try #require(root["bbox"] as? [Double])
        let features = try #require(root["features"] as? [[String: Any]])
        var kinds: [String: Int] = [:]
        var positions: [[Double]] = []
        for feature in features {
            #expect(feature["type"] as? String == "Feature")
            let geometry = try #require(feature["geometry"] as? [String: Any])
            let properties = try #require(feature["properties"] as? [String: Any])
            kinds[properties["kind"] as? String ?? "?", default: 0] += 1
            switch geometry["type"] as? String {
            case "Point": positions.append(try #require(geometry["coordinates"] as? [Double]))
            case "LineString": positions += try #require(geometry["coordinates"] as? [[Double]])
            case "MultiLineString":
                let lines = try #require(geometry["coordinates"] as? [[[Double]]])
                #expect(lines.allSatisfy { $0.count >= 2 })
                #expect(lines.count == summary.lines)
                positions += lines.flatMap { $0 }
            default: Issue.record("unexpected geometry \(geometry)")
            }
        }
        for p in positions {
            #expect(p.count == 2)
            #expect((-180...180).contains(p[0]) && (-90...90).contains(p[1]))
            #expect(p[0] >= bbox[0] && p[1] >= bbox[1] && p[0] <= bbox[2] && p[1] <= bbox[3])
        }
        // The demo drives around Warsaw: longitude ≈ 21, latitude ≈ 52 — in that order.
        #expect(positions.allSatisfy { abs($0[0] - 21) < 1 && abs($0[1] - 52.2) < 1 })
        #expect(text.range(of: #"\d\.\d{8,}"#, options: .regularExpression) == nil)
        #expect(kinds["track"] == 1 && summary.lines == 2)
        #expect(kinds["fix"] == summary.fixes)
        #expect(kinds["geofence"] == summary.geofences && summary.geofences > 0)
        #expect(kinds["isolated_fix", default: 0] == summary.isolatedFixes)
    }

    /// A fix's properties carry what the issue lists; in replayed mode the replay's decision and
    /// reason, and the replayed and recorded odometers.
    @Test func fixPropertiesCarryTheDecision() throws {
        let (path, _) = try ExportTests.export(.geojson, .replayed)
        let root = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any])
        let fixes = (root["features"] as? [[String: Any]] ?? []).compactMap { $0["properties"] as? [String: Any] }
            .filter { $0["kind"] as? String == "fix" }
        let keys: Set<String> = ["kind", "uuid", "time", "accuracy", "speed", "heading", "altitude", "odometer", "recorded_odometer",
                                 "is_moving", "decision", "reason"]
        #expect(fixes.allSatisfy { Set($0.keys) == keys })
        let rejected = fixes.filter { $0["decision"] as? String == "rejected" }
        #expect(!rejected.isEmpty && rejected.allSatisfy { ["accuracy", "teleport", "time"].contains($0["reason"] as? String ?? "") })
        #expect(fixes.contains { $0["decision"] as? String == "adjusted" })
        #expect(fixes.allSatisfy { ($0["time"] as? String)?.hasSuffix("Z") == true })
        #expect(fixes.contains { $0["is_moving"] is Bool })
        let odometers = fixes.compactMap { $0["odometer"] as? Double }
        #expect(odometers == odometers.sorted() && (odometers.last ?? 0) > 1000)
    }

    @Test(.enabled(if: ExportTests.judge("ogrinfo"), "ogrinfo is not installed: install gdal-bin"), arguments: TrackMode.allCases)
    func ogrinfoOpensBothFormatsWithTheExpectedFeatures(mode: TrackMode) throws {
        let ogrinfo = try #require(ReportFixture.tool("ogrinfo"))
        let (geojson, g) = try ExportTests.export(.geojson, mode)
        let name = "demo.db"  // the FeatureCollection's name is the layer's
        let byType = try ExportTests.ogrCounts(ogrinfo, geojson,
            "SELECT GeometryType(geometry) AS t, kind AS k, COUNT(*) AS n FROM \"\(name)\" GROUP BY t, k")
        #expect(byType["MULTILINESTRING/track"] == 1)
        #expect(byType["POINT/fix"] == g.fixes)
        #expect(byType["POINT/geofence"] == g.geofences)
        #expect(byType["POINT/isolated_fix", default: 0] == g.isolatedFixes)

        let (kml, k) = try ExportTests.export(.kml, mode)
        let layers = try ReportFixture.run(ogrinfo, ["-ro", "-q", kml])
        #expect(layers.status == 0, "\(layers.output)")
        let track = try ExportTests.ogrCounts(ogrinfo, kml, "SELECT GeometryType(geometry) AS t, COUNT(*) AS n FROM \"Track (\(mode.rawValue))\" GROUP BY t")
        #expect(track["LINESTRING"] == k.lines && k.lines == 2)
        #expect(track["POINT", default: 0] == k.isolatedFixes)
        #expect(try ExportTests.ogrCounts(ogrinfo, kml, "SELECT GeometryType(geometry) AS t, COUNT(*) AS n FROM \"Fixes\" GROUP BY t")["POINT"] == k.fixes)
        #expect(try ExportTests.ogrCounts(ogrinfo, kml, "SELECT GeometryType(geometry) AS t, COUNT(*) AS n FROM \"Geofence events\" GROUP BY t")["POINT"] == k.geofences)
        #expect(k == g)
    }

    @Test(.enabled(if: ExportTests.judge("gpsbabel"), "gpsbabel is not installed"), arguments: TrackMode.allCases)
    func gpsbabelReadsTheKMLBackWithTheSamePoints(mode: TrackMode) throws {
        let gpsbabel = try #require(ReportFixture.tool("gpsbabel"))
        let (kml, summary) = try ExportTests.export(.kml, mode)
        func rows(_ arguments: [String]) throws -> Int {
            let csv = try ReportFixture.run(gpsbabel, arguments + ["-i", "kml", "-f", kml, "-o", "unicsv", "-F", "-"])
            #expect(csv.status == 0, "\(csv.output)")
            return csv.output.split(whereSeparator: \.isNewline).filter { $0.first?.isNumber == true }.count
        }
        #expect(try rows(["-t"]) == summary.linePoints)
        #expect(try rows(["-w"]) == summary.fixes + summary.isolatedFixes + summary.geofences)
        // The same points as the GPX writer puts on its track (one iteration for every format).
        let gpx = try GPXFile.write(dump: try Dump(path: ReportFixture.dumpPath), to: ExportTests.directory.file("same-\(mode).gpx"),
                                    mode: mode, generatedAt: nil)
        #expect(gpx.summary.points == summary.linePoints + summary.isolatedFixes)
    }

    /// `ogrinfo -dialect sqlite -sql …` rows as "t[/k]" → n.
    static func ogrCounts(_ ogrinfo: String, _ path: String, _ sql: String) throws -> [String: Int] {
        let result = try ReportFixture.run(ogrinfo, ["-ro", "-q", "-dialect", "sqlite", path, "-sql", sql])
        #expect(result.status == 0, "\(result.output)")
        var counts: [String: Int] = [:]
        var key: [String] = []
        for line in result.output.split(separator: "\n") {
            let text = line.trimmingCharacters(in: .whitespaces)
            if text.hasPrefix("OGRFeature") { key = [] }
            if text.hasPrefix("t (String) = ") || text.hasPrefix("k (String) = ") { key.append(String(text.dropFirst(13))) }
            if text.hasPrefix("n (Integer) = ") { counts[key.joined(separator: "/")] = Int(text.dropFirst(14)) }
        }
        return counts
    }
}
