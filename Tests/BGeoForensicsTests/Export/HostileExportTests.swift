import Foundation
import Testing
@testable import BGeoReader
@testable import BGeoForensics
@testable import BGeoSimulation

/// Strings from a dump that try to break out: terminal escapes, a right-to-left override, markup,
/// quotes, characters XML 1.0 forbids, a NUL, a 100 kB field. Every export must keep them text,
/// stay readable by the judges, and never hold a raw invisible byte a terminal would act on.
@Suite struct HostileExportTests {
    static let hostile = "\u{1B}[31mred\u{1B}[0m \u{202E}txt.exe <script>alert('x')</script> \"q\" & \u{7F}\u{85}\u{FFFF}end"
    /// 100 kB, with a NUL inside (it comes through the record's JSON, `\u0000`).
    static let huge = String(repeating: "A", count: 50_000) + "\u{0}" + String(repeating: "B", count: 50_000) + "<b>"

    /// Two fixes with hostile uuids, a rejected fix with a hostile reason, a geofence whose name is
    /// hostile and 100 kB long.
    static let dumpPath: String = {
        let path = ExportTests.directory.file("hostile.db")
        do {
            let w = try DumpWriter(path: path, layout: .current)
            for (i, second) in ["00", "30"].enumerated() {
                _ = try w.insertRecord(["uuid": .string("u\(i)-" + hostile), "timestamp": .string("2026-07-24T06:00:\(second).000Z"),
                                        "coords": ["latitude": 52.2, "longitude": .double(21.0 + Double(i) * 0.001), "accuracy": 5.0, "speed": 1.0],
                                        "is_moving": true, "odometer": .double(Double(i) * 70)])
            }
            try w.insertLog(ts: "2026-07-24T06:00:15.000Z", level: 4, event: "filter.reject",
                            data: ["reason": .string(hostile), "timestamp": "2026-07-24T06:00:15.000Z", "latitude": 52.3, "longitude": 21.5,
                                   "accuracy": 400.0])
            _ = try w.insertRecord(["uuid": "g-1", "timestamp": "2026-07-24T06:01:00.000Z", "coords": ["latitude": 52.2, "longitude": 21.0],
                                    "geofence": ["identifier": .string(hostile + huge), "action": "ENTER"]])
            try w.close()
        } catch {
            fatalError("fixture: \(error)")
        }
        return path
    }()

    /// Raw bytes a terminal or a viewer would act on: ESC, DEL, C1 NEL (C2 85), U+202E (E2 80 AE), U+FFFF (EF BF BF), NUL.
    static func rawInvisibles(in data: Data) -> [String] {
        let bytes = [UInt8](data)
        var found: [String] = []
        if bytes.contains(0x1B) { found.append("ESC") }
        if bytes.contains(0x7F) { found.append("DEL") }
        if bytes.contains(0) { found.append("NUL") }
        for (name, seq) in [("NEL", [0xC2, 0x85]), ("RLO", [0xE2, 0x80, 0xAE]), ("U+FFFF", [0xEF, 0xBF, 0xBF])] as [(String, [UInt8])] {
            if bytes.count >= seq.count, (0...(bytes.count - seq.count)).contains(where: { Array(bytes[$0..<$0 + seq.count]) == seq }) {
                found.append(name)
            }
        }
        return found
    }

    @Test func xmlTextKeepsMarkupAsTextAndNeverWritesForbiddenCharacters() {
        #expect(XMLText.escaped("plain-uuid-42") == "plain-uuid-42")
        #expect(XMLText.escaped("<a href=\"x\">&</a>") == "&lt;a href=&quot;x&quot;&gt;&amp;&lt;/a&gt;")
        #expect(XMLText.escaped("\u{1B}[0m\u{0}") == "\\u{1b}[0m\\u{0}")
        #expect(XMLText.escaped("a\u{202E}b\u{7F}\u{85}\r") == "a&#x202E;b&#x7F;&#x85;&#xD;")
        #expect(XMLText.escaped("x\u{FFFE}\u{FFFF}\ty\n") == "x\\u{fffe}\\u{ffff}\ty\n")
    }

    @Test func jsonLiteralsEscapeInvisiblesAndReadBackUnchanged() throws {
        #expect(JSONWriter().literal("abc-123") == "\"abc-123\"")
        let literal = JSONWriter().literal(HostileExportTests.hostile)
        #expect(HostileExportTests.rawInvisibles(in: Data(literal.utf8)).isEmpty)
        #expect(literal.contains("\\u202e") && literal.contains("\\u001b") && literal.contains("\\u0085"))
        let back = try JSONSerialization.jsonObject(with: Data("[\(literal)]".utf8)) as? [String]
        #expect(back == [HostileExportTests.hostile])
        #expect(JSONWriter().literal("a\u{0}b") == "\"a\\u0000b\"")
    }

    @Test(arguments: [TrackMode.raw, .recorded])
    func geoJSONKeepsEveryStringExactly(mode: TrackMode) throws {
        let (path, summary) = try ExportTests.export(.geojson, mode, dump: HostileExportTests.dumpPath)
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(HostileExportTests.rawInvisibles(in: data).isEmpty)
        let root = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let properties = (root["features"] as? [[String: Any]] ?? []).compactMap { $0["properties"] as? [String: Any] }
        let uuids = properties.filter { $0["kind"] as? String == "fix" }.compactMap { $0["uuid"] as? String }
        #expect(uuids == ["u0-" + HostileExportTests.hostile, "u1-" + HostileExportTests.hostile])
        #expect(properties.contains { $0["identifier"] as? String == HostileExportTests.hostile + HostileExportTests.huge })
        #expect(properties.contains { $0["reason"] as? String == HostileExportTests.hostile })
        #expect(summary.fixes == 3 && summary.geofences == 1)
        if let ogrinfo = ReportFixture.tool("ogrinfo") {
            #expect(try ReportFixture.run(ogrinfo, ["-ro", "-so", "-al", path]).status == 0)
        }
    }

    /// KML: markup stays text, forbidden characters become visible stand-ins, invisible ones
    /// character references — xmllint reads the file and the strings back as documented.
    @Test(arguments: [TrackMode.raw, .recorded])
    func kmlStaysWellFormedAndReadsBack(mode: TrackMode) throws {
        let (path, summary) = try ExportTests.export(.kml, mode, dump: HostileExportTests.dumpPath)
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(HostileExportTests.rawInvisibles(in: data).isEmpty)
        let text = String(decoding: data, as: UTF8.self)
        #expect(!text.contains("<script>") && text.contains("&lt;script&gt;"))
        #expect(summary.fixes == 3)
        let shown = { (text: String) in
            text.replacingOccurrences(of: "\u{1B}", with: "\\u{1b}").replacingOccurrences(of: "\u{FFFF}", with: "\\u{ffff}")
                .replacingOccurrences(of: "\u{0}", with: "\\u{0}")
        }
        let expected = "u0-" + shown(HostileExportTests.hostile)
        if let xmllint = ReportFixture.tool("xmllint") {
            #expect(try ReportFixture.run(xmllint, ["--noout", path]).status == 0)
            let name = try ReportFixture.run(xmllint, ["--xpath", "string((//*[local-name()='Folder'][*[local-name()='name']='Fixes']/*[local-name()='Placemark'])[1]/*[local-name()='name'])", path])
            #expect(name.output.trimmingCharacters(in: .newlines) == expected, "\(name.output.debugDescription)")
            // The NUL inside the 100 kB geofence name became visible, as on a terminal.
            let fence = try ReportFixture.run(xmllint, ["--xpath", "string(//*[local-name()='Folder'][*[local-name()='name']='Geofence events']/*[local-name()='Placemark']/*[local-name()='name'])", path])
            let fenceName = fence.output.trimmingCharacters(in: .newlines)
            #expect(fenceName == shown(HostileExportTests.hostile + HostileExportTests.huge))
            #expect(fenceName.contains("A\\u{0}B") && fenceName.hasSuffix("<b>"))
        } else {
            #expect(ProcessInfo.processInfo.environment["CI"] == nil, "xmllint is missing on CI")
        }
        if let ogrinfo = ReportFixture.tool("ogrinfo") {
            #expect(try ReportFixture.run(ogrinfo, ["-ro", "-so", "-al", path]).status == 0)
        }
        if let gpsbabel = ReportFixture.tool("gpsbabel") {
            #expect(try ReportFixture.run(gpsbabel, ["-w", "-i", "kml", "-f", path, "-o", "unicsv", "-F", "/dev/null"]).status == 0)
        }
    }
}
