import Foundation
import Testing
@testable import BGeoReader
@testable import BGeoForensics
@testable import BGeoSimulation

/// `PendingRedactor` learns the secrets on a second connection while the tables are read. A
/// redactor made up front is the reference: the same redacted output, the same warnings in the
/// same order, on hostile and damaged dumps too.
@Suite struct PendingRedactorTests {
    /// Queue rows that warn, config lines that warn (bad time, broken JSON), a secret that only a
    /// late config line names (so earlier text needs it), and enough log rows for the timeline's
    /// split read; `damage` garbles a page of the log.
    static let requestPassword = "req-url-password-41"
    static let refreshPassword = "refresh-url-password-42"

    static func hostileDump(_ path: String, damage: Bool) throws {
        let w = try DumpWriter(path: path, layout: .current)
        try w.begin()
        for i in 1...300 { try w.insertRecord(Fixtures.record(i)) }
        _ = try w.insertRecord(uuid: "bad-1", timestamp: "2026-07-24T09:00:00.000Z", json: "{\"coords\":")
        _ = try w.insertRecord(uuid: "bad-2", timestamp: "not a time", json: "{}")
        let lateSecret = "sk_live_only_in_the_last_config_1234"
        _ = try w.insertLog(ts: "2026-07-24T09:00:00.000Z", level: 3, event: "config", data: Fixtures.config)
        _ = try w.insertLog(ts: "2026-07-24T09:00:01.000Z", level: 2, src: "js", event: "app", message: "key \(lateSecret) in use", data: nil as String?)
        _ = try w.insertLog(ts: "bad time", level: 3, event: "config", data: "{}")
        _ = try w.insertLog(ts: "2026-07-24T09:00:02.000Z", level: 3, event: "config", data: "{\"headers\":")
        for i in 0..<6000 {
            let t = Timestamp.format(1_784_880_100 + Double(i) * 5)
            _ = try w.insertLog(ts: t, level: 4, event: i % 50 == 7 ? "http.response" : "location",
                                data: i % 50 == 7 ? "{\"status\":401,\"count\":1,\"response\":\"token \(Fixtures.accessToken)\"}"
                                    : "{\"uuid\":\"u\(i)\",\"timestamp\":\"\(t)\",\"latitude\":52.1,\"longitude\":21.0}")
        }
        var late = Fixtures.config.objectValue!
        late["headers"] = ["X-Api-Key": .string(lateSecret)]
        _ = try w.insertLog(ts: "2026-07-24T20:00:00.000Z", level: 3, event: "config", data: .object(late))
        // URL passwords only the SDK's records of its calls state (`Dump.urlSecretEvents`), each
        // repeated as a word earlier in time; a broken request with an `@` (read by the learning,
        // warned where its scan would warn) and one without (read only by commands that show it).
        _ = try w.insertLog(ts: "2026-07-24T09:00:03.000Z", level: 2, src: "js", event: "app",
                            message: "retry with \(requestPassword) and \(refreshPassword)", data: nil as String?)
        _ = try w.insertLog(ts: "2026-07-24T20:00:01.000Z", level: 3, event: "http.request",
                            data: #"{"url":"https://u:\#(requestPassword)@h.example/x","method":"POST","count":1,"uuids":["u1"],"bytes":9,"attempt":1}"#)
        _ = try w.insertLog(ts: "2026-07-24T20:00:02.000Z", level: 3, event: "auth.refresh",
                            data: #"{"url":"https://r:\#(refreshPassword)@auth.example/token"}"#)
        _ = try w.insertLog(ts: "2026-07-24T20:00:03.000Z", level: 3, event: "http.request", data: #"{"url":"https://u:x@h"#)
        _ = try w.insertLog(ts: "2026-07-24T20:00:04.000Z", level: 3, event: "http.request", data: #"{"url":"#)
        try w.commit()
        try w.setState("config", Fixtures.config)
        try w.setState("auth", raw: "{not json")
        try w.close()
        if damage { try PageDamage.garble(path, at: 2.0 / 3) }
    }

    /// `inspect` learns the log's secrets as it counts the log (`LogSecrets`), not on a scan of
    /// their own: the summary is the one a redactor made first gives, its warnings in the same
    /// order (those of the config lines and the log's damage first, where the secrets' scan put
    /// them). On a damaged log every scan states the same stop, where whole rows stop (3557): the
    /// secrets' own scan, filtered to config lines, used to say "after row 4", its last config line
    /// before the damage (`DamageStopTests`).
    @Test(arguments: [false, true])
    func inspectIsTheSameAsWithARedactorMadeFirst(damage: Bool) throws {
        let dir = TestDirectory("pending-inspect-\(damage)")
        let path = dir.file("bgeo.db")
        try Self.hostileDump(path, damage: damage)
        let upFront = try Dump(path: path)
        let reference = try DumpSummary(dump: upFront, redactor: upFront.makeRedactor())
        let stops = reference.warnings.all.filter(Dump.isScanStop)
        #expect(stops.map(\.rowId) == (damage ? [3557] : []), "\(reference.warnings.all)")
        let learningDump = try Dump(path: path)
        let summary = try DumpSummary(dump: learningDump, redacting: true)
        #expect(summary.json.jsonText == reference.json.jsonText)
        #expect(summary.redactor.knownSecrets == upFront.makeRedactor().knownSecrets)
        #expect(summary.redactor.redact(text: summary.text) == upFront.makeRedactor().redact(text: reference.text))
        #expect(learningDump.warnings.all == upFront.warnings.all)
        #expect(upFront.warnings.all.count >= 4, "\(upFront.warnings.all)")
        #expect(!summary.json.jsonText.contains(Fixtures.accessToken))
        #expect(!summary.json.jsonText.contains("sk_live_only_in_the_last_config_1234"))
        #expect(summary.redactor.knownSecrets.contains("sk_live_only_in_the_last_config_1234"))
        for password in [Self.requestPassword, Self.refreshPassword] {
            #expect(summary.redactor.knownSecrets.contains(ExactText(password)), "\(password)")
        }
    }

    @Test(arguments: [false, true])
    func theTimelineIsTheSameAsWithARedactorMadeFirst(damage: Bool) throws {
        let dir = TestDirectory("pending-timeline-\(damage)")
        let path = dir.file("bgeo.db")
        try Self.hostileDump(path, damage: damage)
        let upFront = try Dump(path: path)
        let reference = TimelineBuilder(dump: upFront, redactor: upFront.makeRedactor()).build()
        let pendingDump = try Dump(path: path)
        let timeline = TimelineBuilder(dump: pendingDump, pendingRedactor: PendingRedactor(pendingDump)).build()
        #expect(timeline.json().jsonText == reference.json().jsonText)
        #expect(pendingDump.warnings.all == upFront.warnings.all)
        #expect(!timeline.json().jsonText.contains("sk_live_only_in_the_last_config_1234"))
        #expect(!timeline.json().jsonText.contains(Fixtures.accessToken))
        // Regression (stop 53): a password only a request or refresh URL states was shown as a word.
        for password in [Self.requestPassword, Self.refreshPassword] {
            #expect(!timeline.json().jsonText.contains(password), "\(password)")
        }
        #expect(reference.json().jsonText.contains("retry with ‹redacted sha256:"))
        if damage { #expect(upFront.warnings.all.contains { $0.table == "log_entries" && $0.message.contains("reading stopped") }) }
    }

    /// As the command runs it: the secrets learned beside the track's read and, for a replayed
    /// track, the recorded config from the same scan of the `config` lines (`SecretsAndConfig`).
    @Test(arguments: [TrackMode.recorded, .replayed, .raw])
    func gpxIsTheSameAsWithARedactorMadeFirst(mode: TrackMode) throws {
        let dir = TestDirectory("pending-gpx-\(mode.rawValue)")
        let path = dir.file("bgeo.db")
        try Self.hostileDump(path, damage: true)
        let upFront = try Dump(path: path)
        _ = try GPXFile.write(dump: upFront, to: dir.file("first.gpx"), mode: mode, generatedAt: 0, redactor: upFront.makeRedactor())
        let pendingDump = try Dump(path: path)
        _ = try GPXFile.write(dump: pendingDump, to: OutputFile(dir.file("pending.gpx"), protecting: EvidenceSet(inputs: [path])),
                              mode: mode, generatedAt: 0,
                              learning: SecretsAndConfig(pendingDump, showSecrets: false, configurationWanted: mode == .replayed))
        let first = try Data(contentsOf: URL(fileURLWithPath: dir.file("first.gpx")))
        #expect(try Data(contentsOf: URL(fileURLWithPath: dir.file("pending.gpx"))) == first)
        #expect(first.count > 1000)
        #expect(pendingDump.warnings.all == upFront.warnings.all)
    }

    /// `WarningLog.place`: the placed warnings read as if found at the mark; one found since is
    /// moved there, not repeated.
    @Test func placedWarningsTakeTheirPlace() {
        let log = WarningLog()
        func w(_ n: Int) -> DumpWarning { DumpWarning(table: "t", rowId: Int64(n), message: "m") }
        log.add(w(1))
        let mark = log.count
        log.add(w(5))
        log.add(w(3))
        log.add(w(6))
        let other = WarningLog()
        other.add(w(2))
        other.add(w(3))
        other.add(w(1))
        log.place(other, at: mark)
        #expect(log.all == [w(1), w(2), w(3), w(5), w(6)])
        log.add(w(2))
        #expect(log.all.count == 5)
    }
}
