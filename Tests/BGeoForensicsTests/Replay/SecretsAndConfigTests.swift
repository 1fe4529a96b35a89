import Foundation
import Testing
@testable import BGeoReader
@testable import BGeoForensics
@testable import BGeoSimulation

/// `SecretsAndConfig` learns the dump's secrets and its recorded replay config from one scan of
/// the `config` log lines where the redactor and replay each read them on their own: the same
/// redactor, the same config notes and the same warnings, in the same order, with or without
/// `state.config` — learned now (the report, fleet) or beside the trace's read (replay).
@Suite struct SecretsAndConfigTests {
    static func write(_ path: String, stateConfig: Bool) throws {
        let w = try DumpWriter(path: path, layout: .current)
        try w.begin()
        if stateConfig {
            try w.setState("config", .object(["url": .string("https://ingest.example/api?key=state-secret-1"),
                                              "locationFilterMaxAccuracy": .int(50)]))
        }
        try w.setState("auth", .object(["accessToken": .string("state-access-token-1")]))
        var t = 1_784_880_000.0
        for i in 0..<40 {
            t += 60
            let stamp = Timestamp.format(t)
            let accuracy = i % 4 == 0 ? 50 : 20 + i
            try w.insertLog(ts: i == 7 ? "not a time" : stamp, level: 3, event: "config",
                            data: i == 11 ? "{\"locationFilterMaxAccuracy\":" : i == 13 ? nil
                                : "{\"locationFilterMaxAccuracy\":\(accuracy),\"authorization\":{\"accessToken\":\"line-token-\(i)\"}}")
            try w.insertLog(ts: stamp, level: 4, event: "auth.refresh.result",
                            data: i == 5 ? "not json" : "{\"status\":200,\"accessToken\":\"refreshed-token-\(i)\"}")
            try w.insertLog(ts: stamp, level: 4, event: "location",
                            data: "{\"uuid\":\"u\(i)\",\"timestamp\":\"\(stamp)\",\"latitude\":52.1,\"longitude\":21.0,\"accuracy\":5}")
        }
        try w.commit()
        try w.close()
    }

    @Test(arguments: [true, false])
    func oneScanGivesWhatTheTwoGave(stateConfig: Bool) throws {
        let dir = TestDirectory("report-config-scan-\(stateConfig)")
        let path = dir.file("bgeo.db")
        try Self.write(path, stateConfig: stateConfig)
        let apart = try Dump(path: path)
        let apartRedactor = apart.makeRedactor(enabled: true)
        let apartConfig = ReplayConfiguration.recorded(from: apart)
        let together = try Dump(path: path)
        let (redactor, config) = SecretsAndConfig.learnedNow(together, showSecrets: false)
        #expect(config.history == apartConfig.history)
        #expect(config.source == apartConfig.source)
        #expect(config.filter == apartConfig.filter)
        #expect(config.history.first?.hasPrefix(stateConfig ? "26 of 37 config log lines" : "") == true, "\(config.history)")
        for secret in ["state-secret-1", "state-access-token-1", "line-token-3", "refreshed-token-9"] {
            let text = "seen: \(secret)"
            #expect(redactor.redact(text: text) == apartRedactor.redact(text: text))
            if secret != "state-secret-1" { #expect(redactor.redact(text: text) != text, "\(secret)") }
        }
        #expect(together.warnings.all == apart.warnings.all)
        #expect(together.warnings.all.count >= 3)
    }

    @Test func showSecretsReadsTheConfigLinesOnly() throws {
        let dir = TestDirectory("report-config-scan-shown")
        let path = dir.file("bgeo.db")
        try Self.write(path, stateConfig: true)
        let apart = try Dump(path: path)
        let apartConfig = ReplayConfiguration.recorded(from: apart)
        let together = try Dump(path: path)
        let (redactor, config) = SecretsAndConfig.learnedNow(together, showSecrets: true)
        #expect(!redactor.enabled)
        #expect(config.history == apartConfig.history)
        // No auth.refresh.result line is read, so its bad data is not warned about here.
        #expect(together.warnings.all == apart.warnings.all)
        #expect(!together.warnings.all.contains { $0.message.contains("kept as text") && $0.rowId == 17 })
    }

    /// Replay's way: the secrets learned by the trace's own read of the log, the config taken from
    /// the same read after it (`folded`; unfolded, the redactor learns by a scan of its own when
    /// asked). The reference is the way before: a `PendingRedactor` on its own scan, the config's
    /// own scan, the trace, then the redactor. Also on a dump with a garbled page and config lines
    /// that warn.
    @Test(arguments: [("state-config", true), ("no-state-config", false), ("damaged", true)], [true, false])
    func besideTheTraceItGivesWhatTheTwoGave(_ dumpCase: (name: String, stateConfig: Bool), folded: Bool) throws {
        let (name, stateConfig) = dumpCase
        let dir = TestDirectory("secrets-and-config-\(name)-\(folded)")
        let path = dir.file("bgeo.db")
        if name == "damaged" {
            try PendingRedactorTests.hostileDump(path, damage: true)
        } else {
            try Self.write(path, stateConfig: stateConfig)
        }
        let apart = try Dump(path: path)
        let pending = PendingRedactor(apart)
        let apartConfig = ReplayConfiguration.recorded(from: apart)
        let apartTrace = try TraceBuilder.storedTrace(dump: apart)
        let apartRedactor = pending.redactor

        let together = try Dump(path: path)
        let learning = SecretsAndConfig(together, showSecrets: false)
        let trace = try TraceBuilder.storedTrace(dump: together, following: nil, secrets: folded ? learning.pendingRedactor : nil)
        let redactor = learning.redactor
        let config = learning.configuration
        #expect(config.history == apartConfig.history)
        #expect(config.source == apartConfig.source)
        #expect(config.filter == apartConfig.filter)
        #expect(trace.count == apartTrace.count && trace.count > 0)
        #expect(together.warnings.all == apart.warnings.all)
        #expect(together.warnings.all.count >= 3, "\(together.warnings.all)")
        for secret in ["line-token-3", "refreshed-token-9", "sk_live_only_in_the_last_config_1234", Fixtures.accessToken] {
            let text = "seen: \(secret)"
            #expect(redactor.redact(text: text) == apartRedactor.redact(text: text))
        }
        if stateConfig, name != "damaged" {
            #expect(config.history.first?.hasPrefix("26 of 37 config log lines") == true, "\(config.history)")
        }
        if name == "damaged" { #expect(config.history.isEmpty == apartConfig.history.isEmpty) }
    }
}
