import Foundation
import Testing
@testable import BGeoReader
@testable import BGeoForensics

/// A damaged log is one fact: where a read of its whole rows stops. Every scan that meets the
/// damage states that row (`Dump.stopOfWholeRows`), filtered or not, so every command tells the
/// same story. Before, a filtered scan stated its own last row: on a copy of
/// `Samples/stranded-refresh.db` garbled two thirds in, `timeline` said "after row 1023" (the last
/// `auth.refresh.result` line before the damage, from the secrets' scan; its own read then
/// salvaged silently), `replay` and `gpx` that and "after row 1051" (their last fix line),
/// `inspect` "after row 1052", where whole rows stop. Here, the secrets' scan said "after row 4".
@Suite struct DamageStopTests {
    /// The hostile dump of `PendingRedactorTests`, its log garbled two thirds in.
    static func damagedLog(_ dir: TestDirectory) throws -> String {
        let path = dir.file("bgeo.db")
        try PendingRedactorTests.hostileDump(path, damage: true)
        return path
    }

    static func stops(_ dump: Dump) -> [DumpWarning] { dump.warnings.all.filter(Dump.isScanStop) }

    @Test(arguments: [LogQuery.Order.oldestFirst, .newestFirst])
    func aFilteredScanStatesWhereWholeRowsStop(order: LogQuery.Order) throws {
        let dir = TestDirectory("damage-stop-\(order)")
        let path = try Self.damagedLog(dir)
        let whole = try Dump(path: path)
        whole.forEachLogEntry(LogQuery(order: order)) { _ in }
        let wholeStops = Self.stops(whole)
        #expect(wholeStops.count == 1, "\(whole.warnings.all)")
        for events in [["config"], ["config", "auth.refresh.result"], ["location", "filter.reject", "filter.adjust"], ["http.response"]] {
            let filtered = try Dump(path: path)
            filtered.forEachLogEntry(LogQuery(order: order, events: events)) { _ in }
            #expect(Self.stops(filtered) == wholeStops, "\(events): \(filtered.warnings.all)")
        }
        if order == .oldestFirst { #expect(wholeStops.first?.rowId == 3557) }
    }

    /// The commands' reads, each on a dump of its own: one stop, the same, in every output.
    @Test func everyReadStatesTheSameStop() throws {
        let dir = TestDirectory("damage-stop-commands")
        let path = try Self.damagedLog(dir)
        let inspected = try Dump(path: path)
        _ = try DumpSummary(dump: inspected, redacting: true)
        let expected = Self.stops(inspected)
        #expect(expected.map(\.rowId) == [3557])

        let timelineDump = try Dump(path: path)
        _ = TimelineBuilder(dump: timelineDump, pendingRedactor: PendingRedactor(timelineDump)).build()
        #expect(Self.stops(timelineDump) == expected, "\(timelineDump.warnings.all)")

        let replayDump = try Dump(path: path)
        let learning = SecretsAndConfig(replayDump, showSecrets: false)
        _ = try TraceBuilder.storedTrace(dump: replayDump)
        _ = learning.redactor
        _ = learning.configuration
        #expect(Self.stops(replayDump) == expected, "\(replayDump.warnings.all)")

        let gpxDump = try Dump(path: path)
        _ = try GPXFile.write(dump: gpxDump, to: OutputFile(dir.file("track.gpx"), protecting: EvidenceSet(inputs: [path])),
                              mode: .replayed, generatedAt: 0, learning: SecretsAndConfig(gpxDump, showSecrets: false))
        #expect(Self.stops(gpxDump) == expected, "\(gpxDump.warnings.all)")
    }
}
