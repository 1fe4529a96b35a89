import Foundation
import Testing
@testable import BGeoReader
@testable import BGeoForensics
@testable import BGeoSimulation

/// `Dump.makeRedactor` reads a big log's secret-stating rows in two parts at once (`ScanRunner`'s
/// **two parts** rule). One pass over the same rows is the reference: the same secrets, in the
/// same longest-first order, and the same warnings in the same order, secrets in both halves.
@Suite struct RedactorLogPartsTests {
    static func bigLog(_ path: String, rows: Int = 60_000, broken: Bool) throws {
        let w = try DumpWriter(path: path, layout: .current)
        try w.begin()
        try w.insertRecord(Fixtures.record(1, timestamp: Timestamp.format(1_784_880_000)))
        for i in 0..<rows {
            let stamp = Timestamp.format(1_784_880_000 + Double(i))
            switch i {
            case 10, 30_500, 59_990:
                _ = try w.insertLog(ts: stamp, level: 3, event: "config",
                                    data: #"{"url":"https://h.example/\#(i)","authorization":{"accessToken":"config-secret-\#(i)-abcdef"}}"#)
            case 20, 45_000:
                _ = try w.insertLog(ts: stamp, level: 3, event: "auth.refresh.result",
                                    data: #"{"success":true,"accessToken":"refreshed-\#(i)-token","refreshToken":"r-\#(i)-longer-token"}"#)
            case 25 where broken, 50_000 where broken:
                _ = try w.insertLog(ts: stamp, level: 3, event: "config", data: #"{"authorization":"#)
            case 26 where broken, 50_001 where broken:
                _ = try w.insertLog(ts: "not a time \(i)", level: 3, event: "auth.refresh.result", data: "{}")
            default:
                _ = try w.insertLog(ts: stamp, level: 4, event: "heartbeat", data: nil as String?)
            }
        }
        try w.commit()
        try w.close()
    }

    @Test(arguments: [false, true])
    func aBigLogsSecretsAreThoseOfOnePass(broken: Bool) throws {
        let folder = TestDirectory("redactor-parts-\(broken)")
        let path = folder.file("bgeo.db")
        try Self.bigLog(path, broken: broken)
        let parted = try Dump(path: path)
        #expect(parted.rowHalves(of: "log_entries", minimumRows: 50_000) != nil, "the log is big enough to be read in two parts")
        let redactor = parted.makeRedactor()
        // The reference: one pass over the same rows, on a dump of its own.
        let single = try Dump(path: path)
        var reference = Redactor()
        single.forEachLogEntry(LogQuery(events: ["config", "auth.refresh.result"])) { entry in
            if let data = entry.data { reference.learnSecrets(in: data) }
        }
        #expect(redactor.knownSecrets == reference.knownSecrets)
        #expect(redactor.secretsLongestFirst == reference.secretsLongestFirst)
        #expect(redactor.knownSecrets.count == 7)
        #expect(parted.warnings.all == single.warnings.all)
        #expect(parted.warnings.all.count == (broken ? 4 : 0))
        #expect(redactor.redact(text: "x config-secret-59990-abcdef y") != "x config-secret-59990-abcdef y")
    }
}
