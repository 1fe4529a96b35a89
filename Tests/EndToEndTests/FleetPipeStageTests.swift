import BGeoForensics
import BGeoFleet
import Foundation
import Testing

/// `fleet` as one stage of a pipe (xargs, GNU parallel, Spark): paths from a list or standard
/// input (`--paths-from`, `--null` for any name), rows on standard output in input order (`-o -`),
/// nothing else there. On the fleet suite's dumps, with the real binary.
@Suite struct FleetPipeStageTests {
    static let directory = TestDirectory("fleet-pipe")

    /// Each stdout line as a JSON object (a line that is not one fails the test).
    static func rows(_ stdout: String) throws -> [[String: Any]] {
        try stdout.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "not a row: \(line)")
        }
    }

    static func bytes(_ row: [String: Any]) -> [UInt8]? {
        (row["pathBytes"] as? String).flatMap { Data(base64Encoded: $0) }.map(Array.init)
    }

    /// A list file and standard input name the same inputs, after the PATH given: a blank line
    /// is skipped, a missing file gets its row; the rows are those of a run into a file.
    @Test func pathsFromAFileAndFromStandardInputAfterThePathsGiven() throws {
        let inputs = FleetCommandTests.inputs
        let listed = ["healthy-day.db", "", "missing.db", "notes.txt"].map { $0.isEmpty ? "" : inputs + "/" + $0 }
        let list = FleetPipeStageTests.directory.file("list-\(UUID().uuidString).txt")
        try (listed.joined(separator: "\n") + "\n").write(toFile: list, atomically: false, encoding: .utf8)
        let rowsFile = FleetPipeStageTests.directory.file("rows-\(UUID().uuidString).ndjson")
        let first = inputs + "/poison-batch.db"
        let expected = ["poison-batch.db", "healthy-day.db", "missing.db", "notes.txt"]

        let toFile = try ToolRunner.run(["fleet", first, "--paths-from", list, "-o", rowsFile])
        #expect(toFile.exitCode == 0, "\(toFile.stderr)")
        let fileRows = try FleetCommandTests.lines(rowsFile)
        #expect(fileRows.map(FleetCommandTests.name).sorted() == expected.sorted())
        let missing = try #require(fileRows.first { FleetCommandTests.name($0) == "missing.db" })
        #expect(missing["status"] as? String == "not_a_dump" && (missing["error"] as? String)?.contains("No such file") == true, "\(missing)")

        let piped = try ToolRunner.run(["fleet", first, "--paths-from", "-", "-o", "-", "--jobs", "2"],
                                       stdin: Data(try String(contentsOfFile: list, encoding: .utf8).utf8))
        #expect(piped.exitCode == 0, "\(piped.stderr)")
        let rows = try FleetPipeStageTests.rows(piped.stdout)
        #expect(rows.map(FleetCommandTests.name) == expected)
        // The same rows, byte for byte, as the run into a file (which writes them as they finish).
        let fileLines = try String(contentsOfFile: rowsFile, encoding: .utf8).split(separator: "\n").sorted()
        #expect(piped.stdout.split(separator: "\n").sorted() == fileLines)
        #expect(piped.stderr.contains("fleet: 4 inputs: 2 analysed, 2 not dumps in ") && piped.stderr.contains("rows on standard output"))
    }

    /// `--null`: a name holding a newline and a byte that is not UTF-8 is one input, its row `ok`,
    /// its `pathBytes` its exact bytes — from standard input and from a file. Split at newlines,
    /// the same list names two files that do not exist.
    @Test func nullSeparatedListsCarryNamesWithNewlinesAndBytesThatAreNotUTF8() throws {
        let folder = FleetPipeStageTests.directory.file("null-\(UUID().uuidString)")
        let odd = Array("two\nlines-".utf8) + [0xFF] + Array(".db".utf8)
        _ = try FleetCommandTests.dump(named: odd, in: folder)
        _ = try FleetCommandTests.dump(named: Array("plain.db".utf8), in: folder)
        let oddPath = Array(folder.utf8) + [0x2F] + odd
        let plainPath = Array((folder + "/plain.db").utf8)
        let list = Data(oddPath + [0] + plainPath + [0])

        let piped = try ToolRunner.run(["fleet", "--paths-from", "-", "--null", "-o", "-"], stdin: list)
        #expect(piped.exitCode == 0, "\(piped.stderr)")
        let rows = try FleetPipeStageTests.rows(piped.stdout)
        #expect(rows.map(FleetPipeStageTests.bytes) == [oddPath, plainPath])
        #expect(rows.allSatisfy { $0["status"] as? String == "ok" }, "\(rows)")
        #expect(rows.first?["path"] as? String == folder + "/two\nlines-\\x{ff}.db")

        let listFile = folder + "/list.bin"
        try list.write(to: URL(fileURLWithPath: listFile))
        let fromFile = try ToolRunner.run(["fleet", "--paths-from", listFile, "--null", "-o", "-"])
        #expect(fromFile.exitCode == 0 && fromFile.stdout == piped.stdout, "\(fromFile.stderr)")

        let byLines = try ToolRunner.run(["fleet", "--paths-from", "-", "-o", "-"], stdin: Data(oddPath + [10] + plainPath + [10]))
        let split = try FleetPipeStageTests.rows(byLines.stdout)
        #expect(split.map { $0["status"] as? String } == ["not_a_dump", "not_a_dump", "ok"])
    }

    /// A big dump first and small ones after it, two jobs: the small ones finish first (a run
    /// into a file shows it), yet on stdout the rows come in input order; every stdout line is a
    /// row with all the keys, and the summary is on stderr alone.
    @Test func standardOutputHoldsOnlyRowsInInputOrder() throws {
        let folder = FleetPipeStageTests.directory.file("order-\(UUID().uuidString)")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let big = folder + "/big.db"
        let made = try ToolRunner.run(["simulate", "--scenario", "healthy-day", "--records", "20000", "-o", big])
        try #require(made.exitCode == 0, "\(made.stderr)")
        let small = try FileManager.default.contentsOfDirectory(atPath: FleetCommandTests.inputs).sorted()
            .filter { !$0.hasSuffix("-wal") && !$0.hasSuffix("-shm") && $0 != "stranded-3-days.db" }
            .map { FleetCommandTests.inputs + "/" + $0 }
        let inputs = [big] + small + [folder + "/missing.db"]

        // The missing one comes from a list (a stale entry gets its row); named, it would be refused.
        let piped = try ToolRunner.run(["fleet"] + inputs.dropLast() + ["--paths-from", "-", "-o", "-", "--jobs", "2"],
                                       stdin: Data((folder + "/missing.db\n").utf8))
        #expect(piped.exitCode == 0, "\(piped.stderr)")
        #expect(piped.stdout.hasSuffix("\n"))
        let rows = try FleetPipeStageTests.rows(piped.stdout)
        #expect(rows.map(FleetPipeStageTests.bytes) == inputs.map { Array($0.utf8) })
        #expect(rows.allSatisfy { Set($0.keys) == Set(FleetRow.keys) })
        #expect(!piped.stderr.contains("{\"path\"") && piped.stderr.contains("fleet: \(inputs.count) inputs: "), "\(piped.stderr)")

        let rowsFile = folder + "/rows.ndjson"
        let toFile = try ToolRunner.run(["fleet"] + inputs.dropLast() + ["-o", rowsFile, "--jobs", "2"])
        #expect(toFile.exitCode == 0)
        let finished = try FleetCommandTests.lines(rowsFile).map(FleetCommandTests.name)
        #expect(finished.first != "big.db", "the big dump finished first: the order above proves nothing")
    }

    /// An empty list (an empty Spark partition) is a run of nothing: no row, exit 0. Options that
    /// need a file output, or a list, are refused with exit 2.
    @Test func anEmptyListIsNoRowAndMisusesAreRefused() throws {
        let empty = try ToolRunner.run(["fleet", "--paths-from", "-", "-o", "-"], stdin: Data("\n\n".utf8))
        #expect(empty.exitCode == 0 && empty.stdout.isEmpty && empty.stderr.contains("fleet: 0 inputs"), "\(empty.stderr)")
        let dump = FleetCommandTests.inputs + "/healthy-day.db"
        let findings = FleetPipeStageTests.directory.file("never-\(UUID().uuidString).ndjson")
        for words in [["fleet", dump, "-o", "-", "--json"], ["fleet", dump, "-o", "-", "--findings", findings],
                      ["fleet", dump, "-o", "-", "--null"], ["fleet", "--paths-from", "/nonexistent/list", "-o", "-"],
                      ["fleet", "--paths-from", "-"]] {
            let refused = try ToolRunner.run(words, stdin: Data())
            #expect(refused.exitCode == 2 && refused.stdout.isEmpty, "\(words): \(refused.stderr)")
        }
        #expect(!FileManager.default.fileExists(atPath: findings))
        let help = try ToolRunner.run(["fleet", "--help"])
        #expect(help.stdout.contains("--paths-from FILE") && help.stdout.contains("-o - cannot resume"))
    }
}
