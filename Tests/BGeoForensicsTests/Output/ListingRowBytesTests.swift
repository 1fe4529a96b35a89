import Foundation
import Testing
@testable import BGeoReader
@testable import BGeoForensics
@testable import BGeoSimulation

/// The listings write a qualifying row from its cells as bytes (`LogListing.appendJSON`,
/// `LocationListing.appendJSON`); the built row (`cells` / `jsonText`) stays the definition. On
/// hostile rows (quotes, controls, non-ASCII and invalid UTF-8 in every text cell, messages,
/// secrets, NULLs, odd levels) and on every sample, redacting or not, in both JSON formats, the
/// two give the same bytes and the same warnings — and the byte path does run.
@Suite struct ListingRowBytesTests {
    static func hostileDump(_ path: String) throws {
        var rng = SplitMix64(seed: 2026_12_05)
        func pick<T>(_ choices: [T]) -> T { choices[rng.int(0...(choices.count - 1))] }
        let w = try DumpWriter(path: path, layout: .current)
        try w.begin()
        var t = 1_784_880_000.0
        for i in 0..<3000 {
            t += Double(rng.int(0...60))
            let stamp = Timestamp.format(t)
            try w.insertLog(
                ts: pick([stamp, stamp, stamp, stamp + "é"]), level: pick([1, 2, 3, 3, 4, 5, 99, -1]),
                src: pick(["native", "native", "js", "", "a\"b", "é", "\u{1}x", "back\\slash"]),
                event: pick(["http.request", "location", "heartbeat", "ev\"il", "\u{7F}x", "ünï", "tab\there"]),
                message: pick([nil, nil, nil, "m", "token=abc", "é"]),
                data: pick([#"{"a":1}"#, #"{"a": 1}"#, #"{"a":"é"}"#, #"{"accessToken":"sk_live_4eC39HqLyjWDarjtT1zdp7dc"}"#,
                            #"{"url":"https://u:p@h.example/x"}"#, "not json", nil, "", #"{"a":"\u0041"}"#, #"{"n":\#(i)}"#,
                            #"{"status":401,"url":"https://auth.example.com/refresh"}"#]))
            let record = #"{"uuid":"u-\#(i)","timestamp":"\#(stamp)","coords":{"latitude":52.\#(i % 90),"longitude":21.0},"#
                + pick([#""extras":{"note":"plain"}}"#, #""extras":{"note":"é"}}"#, #""extras":{"k":"a\"b"}}"#,
                        #""is_moving":true }"#, #""extras":{"password":"x"}}"#, #""odometer":1.5}"#])
            try w.insertRecord(uuid: "u-\(i)", timestamp: stamp, kind: pick([.location, .location, .geofence]), json: record,
                               createdAt: pick([stamp, "x\"y", "é", "", "\u{2}"]))
        }
        try w.commit()
        // Bytes a String cannot hold, in text cells.
        try w.database.execute("UPDATE log_entries SET event = CAST(X'6576FF' AS TEXT) WHERE id % 13 = 0")
        try w.database.execute("UPDATE log_entries SET data = CAST(X'7B2261223A2241FF227D' AS TEXT) WHERE id % 17 = 0")
        try w.database.execute("UPDATE location_events SET created_at = CAST(X'41FF' AS TEXT) WHERE id % 19 = 0")
        try w.close()
    }

    /// What `body` writes through a `RowWriter` of `format` into a file, as bytes.
    static func written(_ format: RowFormat, columns: [String], in folder: TestDirectory, _ body: (RowWriter) -> Void) throws -> Data {
        let path = folder.file("out-\(UUID().uuidString)")
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        #expect(fd >= 0)
        let output = TextOutput(fd: fd)
        let writer = RowWriter(format: format, columns: columns, output: output)
        body(writer)
        writer.finish()
        output.flush()
        close(fd)
        return try Data(contentsOf: URL(fileURLWithPath: path))
    }

    @Test(arguments: [RowFormat.ndjson, .json])
    func bytesFromCellsAreTheBuiltRows(format: RowFormat) throws {
        let folder = TestDirectory("listing-bytes")
        let hostile = folder.file("hostile.db")
        try Self.hostileDump(hostile)
        var fromCells = 0
        for path in [hostile] + SampleReports.paths {
            for redacting in [true, false] {
                let fast = try Dump(path: path), built = try Dump(path: path)
                let fastRedactor = fast.makeRedactor(enabled: redacting), builtRedactor = built.makeRedactor(enabled: redacting)
                let jsonWriter = JSONWriter()
                let logs = try Self.written(format, columns: LogListing.columns, in: folder) { writer in
                    LogListing.write(fast, query: LogQuery(order: .oldestFirst), redactor: fastRedactor, to: writer)
                }
                let builtLogs = try Self.written(format, columns: LogListing.columns, in: folder) { writer in
                    built.forEachLogEntry(LogQuery(order: .oldestFirst)) { entry in
                        writer.row(cells: LogListing.cells(entry, redactor: builtRedactor),
                                   jsonText: LogListing.jsonText(entry, redactor: builtRedactor, writer: jsonWriter))
                    }
                }
                #expect(logs == builtLogs, "\(path) logs, redacting \(redacting)")
                let records = try Self.written(format, columns: LocationListing.columns, in: folder) { writer in
                    LocationListing.write(fast, query: QueueQuery(), redactor: fastRedactor, to: writer)
                }
                let builtRecords = try Self.written(format, columns: LocationListing.columns, in: folder) { writer in
                    built.forEachRecord(QueueQuery()) { record in
                        writer.row(cells: LocationListing.cells(record, redactor: builtRedactor),
                                   jsonText: LocationListing.jsonText(record, redactor: builtRedactor, writer: jsonWriter))
                    }
                }
                #expect(records == builtRecords, "\(path) locations, redacting \(redacting)")
                #expect(fast.warnings.all.map(\.description) == built.warnings.all.map(\.description), "\(path) warnings")
                // The byte path ran: rows it can write were written by it.
                let probe = try Dump(path: path)
                var buffer: [UInt8] = []
                probe.forEachLogEntry(LogQuery(), takenFromCells: { row in
                    if LogListing.appendJSON(row, redactor: fastRedactor, to: &buffer) { fromCells += 1 }
                    buffer.removeAll(keepingCapacity: true)
                    return true
                }) { _ in }
                probe.forEachRecord(QueueQuery(), takenFromRow: { row in
                    if LocationListing.appendJSON(row, redactor: fastRedactor, to: &buffer) { fromCells += 1 }
                    buffer.removeAll(keepingCapacity: true)
                    return true
                }) { _ in }
            }
        }
        #expect(fromCells > 5_000, "only \(fromCells) rows written from their cells")
    }
}
