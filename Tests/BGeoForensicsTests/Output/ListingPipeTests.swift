import Foundation
import Testing
@testable import BGeoReader
@testable import BGeoForensics
@testable import BGeoSimulation

/// A JSON `locations` listing is formatted on other connections in chunks (`ListingPipe`,
/// `ScanRunner`'s **in order** rule) and written here in order; where a row warns, this thread
/// reads on itself. The listing read on this thread alone is the reference: on hostile rows, rows
/// that warn at chunk edges, filtered queries and every sample, redacting or not, in both JSON
/// formats, the two give the same bytes and the same warnings — and the pipe does run.
@Suite struct ListingPipeTests {
    static let piped = ListingPipe(minimumRows: 2, chunkRows: 97)
    static let alone = ListingPipe(minimumRows: .max)

    /// The listing's bytes and its dump's warnings.
    static func listing(_ path: String, _ format: RowFormat, _ query: QueueQuery, redacting: Bool, pipe: ListingPipe,
                        in folder: TestDirectory) throws -> (Data, [DumpWarning]) {
        let dump = try Dump(path: path)
        let redactor = dump.makeRedactor(enabled: redacting)
        let bytes = try ListingRowBytesTests.written(format, columns: LocationListing.columns, in: folder) { writer in
            LocationListing.write(dump, query: query, redactor: redactor, to: writer, pipe: pipe)
        }
        return (bytes, dump.warnings.all)
    }

    static func expectSame(_ path: String, _ query: QueueQuery, in folder: TestDirectory, _ label: String) throws {
        for format in [RowFormat.ndjson, .json] {
            for redacting in [true, false] {
                let piped = try listing(path, format, query, redacting: redacting, pipe: Self.piped, in: folder)
                let alone = try listing(path, format, query, redacting: redacting, pipe: Self.alone, in: folder)
                let sameBytes = piped.0 == alone.0
                #expect(sameBytes, "\(label) \(format) redacting \(redacting): \(piped.0.count) against \(alone.0.count) bytes")
                #expect(piped.1 == alone.1, "\(label) \(format) redacting \(redacting): the warnings differ")
            }
        }
    }

    @Test func hostileRowsAndEverySampleAreListedTheSamePipedOrNot() throws {
        let folder = TestDirectory("listing-pipe")
        let hostile = folder.file("hostile.db")
        try ListingRowBytesTests.hostileDump(hostile)
        for path in [hostile] + SampleReports.paths {
            try Self.expectSame(path, QueueQuery(), in: folder, path)
        }
        // Filters the read applies itself, row by row.
        let stamp = Timestamp.format(1_784_880_000 + 40_000)
        try Self.expectSame(hostile, QueueQuery(since: Timestamp.parse(stamp), kind: .location), in: folder, "since, kind")
        try Self.expectSame(hostile, QueueQuery(until: Timestamp.parse(stamp)), in: folder, "until")
        // The pipe ran: a listing of 3,000 rows in chunks of 97 is piped.
        let dump = try Dump(path: hostile)
        let pipe = LocationListing.pipedJSON(dump, query: QueueQuery(), redactor: dump.makeRedactor(),
                                             separators: RowWriter.JSONRowSeparators(before: [], after: [10]), pipe: Self.piped)
        var rows = 0
        let rest = pipe?.forEachBatch(standingInFor: dump) { _, count in rows += count }
        #expect(rest == PipedRead<UInt8>.Rest.none)
        #expect(rows == 3000)
    }

    /// Records that do not decode (a warning each) first, at a chunk's start, inside one, and last:
    /// the pipe stands for the rows before the first, this thread lists the rest.
    @Test(arguments: [[1], [98], [150, 151, 2000], [3000]])
    func aRecordThatWarnsEndsThePipeThere(ids: [Int]) throws {
        let folder = TestDirectory("listing-pipe-warn")
        let path = folder.file("bgeo.db")
        try ListingRowBytesTests.hostileDump(path)
        let db = try Database(path: path, mode: .readWriteCreate)
        try db.execute("UPDATE location_events SET json = 'not json' WHERE id IN (\(ids.map(String.init).joined(separator: ",")))")
        let dump = try Dump(path: path)
        let pipe = LocationListing.pipedJSON(dump, query: QueueQuery(), redactor: dump.makeRedactor(),
                                             separators: RowWriter.JSONRowSeparators(before: [], after: [10]), pipe: Self.piped)
        let rest = pipe?.forEachBatch(standingInFor: dump) { _, _ in }
        #expect(rest == .readOn(after: ids[0] == 1 ? nil : Int64(ids[0] - 1)))
        try Self.expectSame(path, QueueQuery(), in: folder, "ids \(ids)")
        // The records' warnings; the log's are those of the rows the secrets' learning reads
        // (requests whose URL holds an `@` among them, some with a broken time).
        let warnings = try Self.listing(path, .ndjson, QueueQuery(), redacting: true, pipe: Self.piped, in: folder).1
        #expect(warnings.filter { $0.table == "location_events" }.count == ids.count)
    }

    /// Found by the fuzz suite: a record whose id is Int64.max - 1 made the chunks' end overflow (a
    /// trap). The chunks now end at the last id; the listing is the one read alone.
    @Test func idsReachingTheTopAreChunkedWithoutOverflow() throws {
        let folder = TestDirectory("listing-pipe-top")
        let path = folder.file("bgeo.db")
        try ListingRowBytesTests.hostileDump(path)
        let db = try Database(path: path, mode: .readWriteCreate)
        try db.execute("UPDATE location_events SET id = 9223372036854775806 WHERE id = 7")
        let dump = try Dump(path: path)
        let chunks = try #require(dump.rowChunks(of: "location_events", minimumRows: 2, size: 97))
        #expect(chunks.first?.lowerBound == 1)
        #expect(chunks.last?.upperBound == Int64.max)
        #expect(zip(chunks, chunks.dropFirst()).allSatisfy { $0.upperBound == $1.lowerBound })
        try Self.expectSame(path, QueueQuery(), in: folder, "top id")
    }

    /// The `logs` listing, piped in either order, filtered or not: the bytes and warnings of the
    /// listing read alone (the hostile log warns on many rows: the pipe stops at the first).
    @Test func logListingsAreTheSamePipedOrNot() throws {
        let folder = TestDirectory("listing-pipe-logs")
        let hostile = folder.file("hostile.db")
        try ListingRowBytesTests.hostileDump(hostile)
        let clean = folder.file("clean.db")
        try TimelinePipedLogTests.cleanLog(clean, seed: 5, rows: 3000)
        var statusQuery = LogQuery(order: .oldestFirst)
        statusQuery.statuses = [401, 500]
        let queries = [LogQuery(order: .newestFirst), LogQuery(order: .oldestFirst), statusQuery,
                       LogQuery(order: .newestFirst, maxLevel: .info, events: ["location", "http.response"])]
        for path in [hostile, clean] + SampleReports.paths {
            for query in queries {
                for format in [RowFormat.ndjson, .json] {
                    func listing(_ pipe: ListingPipe) throws -> (Data, [DumpWarning]) {
                        let dump = try Dump(path: path)
                        let redactor = dump.makeRedactor()
                        let bytes = try ListingRowBytesTests.written(format, columns: LogListing.columns, in: folder) { writer in
                            LogListing.write(dump, query: query, redactor: redactor, to: writer, pipe: pipe)
                        }
                        return (bytes, dump.warnings.all)
                    }
                    let piped = try listing(Self.piped), alone = try listing(Self.alone)
                    let sameBytes = piped.0 == alone.0
                    #expect(sameBytes, "\(path) \(query.order) \(format): \(piped.0.count) against \(alone.0.count) bytes")
                    #expect(piped.1 == alone.1, "\(path) \(query.order) \(format): the warnings differ")
                }
            }
        }
        // The clean log is piped to its end, newest first.
        let dump = try Dump(path: clean)
        let pipe = LogListing.pipedJSON(dump, query: LogQuery(order: .newestFirst), redactor: dump.makeRedactor(),
                                        separators: RowWriter.JSONRowSeparators(before: [], after: [10]), pipe: Self.piped)
        var rows = 0
        #expect(pipe?.forEachBatch(standingInFor: dump) { _, count in rows += count } == PipedRead<UInt8>.Rest.none)
        #expect(rows == 3000)
    }
}
