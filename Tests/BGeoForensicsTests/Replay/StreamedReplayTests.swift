import Foundation
import Testing
@testable import BGeoReader
@testable import BGeoForensics

/// The streamed replay (a stored trace, decisions replayed again as they are written) says
/// exactly what the in-memory replay (`ReplayEngine` over `TraceBuilder.completeTrace`) says, on
/// random dumps whose disorder defeats every window: the JSON with every decision, the text, and
/// the recorded/what-if comparison.
@Suite struct StreamedReplayTests {
    static func written(_ dir: TestDirectory, _ name: String, _ body: (TextOutput) throws -> Void) throws -> String {
        let path = dir.file(name)
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        let output = TextOutput(fd: fd)
        try body(output)
        output.flush()
        close(fd)
        return try String(contentsOfFile: path, encoding: .utf8)
    }

    static func configurations(_ dump: Dump) throws -> [ReplayConfiguration] {
        let recorded = ReplayConfiguration.recorded(from: dump)
        var conservative = recorded, passThrough = recorded, off = recorded
        try conservative.apply(set: "locationFilterPolicy=Conservative")
        try passThrough.apply(set: "locationFilterPolicy=PassThrough")
        try off.apply(set: "disableLocationFilter=true")
        return [recorded, conservative, passThrough, off]
    }

    @Test(arguments: [21, 22, 23] as [UInt64])
    func randomDumpReplaysExactlyLikeTheInMemoryPath(seed: UInt64) throws {
        let dir = TestDirectory("streamed-replay-\(seed)")
        let path = dir.file("random.db")
        try RandomTraceDump.write(to: path, seed: seed)
        let memoryDump = try Dump(path: path)
        let memoryTrace = TraceBuilder.completeTrace(dump: memoryDump)
        let streamDump = try Dump(path: path)
        let stored = try TraceBuilder.storedTrace(dump: streamDump, windows: StreamedTraceTests.tiny)
        #expect(stored.spilledRecords > 50 && stored.assemblyRuns > 1, "seed \(seed): the dump did not defeat the windows")
        let configurations = try StreamedReplayTests.configurations(memoryDump)
        for (k, configuration) in configurations.enumerated() {
            let context = "seed \(seed) config \(k)"
            let memory = ReplayEngine.run(trace: memoryTrace, config: configuration.filter, source: configuration.sourceDescription,
                                          notes: configuration.notes, isWhatIf: !configuration.overrides.isEmpty)
            let summary = try StreamedReplay.summarize(stored, [configuration], top: 25).summaries[0]
            #expect(summary.text(title: "t", top: 25) == memory.text(title: "t", top: 25), "\(context): text")
            let json = try StreamedReplayTests.written(dir, "replay-\(k).json") { output in
                try StreamedReplay.writeJSON(summary, trace: stored, to: output, extra: [:], includeDecisions: true, top: 25,
                                             redactor: .disabled)
            }
            let parsed = try JSONParser.parse(json)
            #expect(parsed == memory.json(includeDecisions: true, top: 25), "\(context): JSON")
            #expect(memory.decisions.count == memoryTrace.fixes.count && memory.accepted + memory.adjusted + memory.rejected > 0)
        }
        // The comparison: counts and every changed fix, as two in-memory runs give them.
        let recorded = configurations[0], whatIf = configurations[2]
        let a = ReplayEngine.run(fixes: memoryTrace.fixes, config: recorded.filter)
        let b = ReplayEngine.run(fixes: memoryTrace.fixes, config: whatIf.filter)
        let expected = a.decisions.indices.filter { a.decisions[$0].decision != b.decisions[$0].decision || a.decisions[$0].reason != b.decisions[$0].reason }
        let comparison = try ReplayComparison(trace: stored, recorded: recorded, whatIf: whatIf)
        #expect(comparison.differenceCount == expected.count && !expected.isEmpty, "seed \(seed): differences")
        var listed: [Int] = []
        try comparison.forEachDifference { fix, x, y in
            listed.append(fix.index)
            #expect(x == a.decisions[fix.index] && y == b.decisions[fix.index])
        }
        #expect(listed == expected)
        let compareJSON = try StreamedReplayTests.written(dir, "compare.json") { output in
            try comparison.writeJSON(to: output, extra: [:], after: [:], includeDecisions: true, top: 10, redactor: .disabled)
        }
        let tree = try JSONParser.parse(compareJSON)
        #expect(tree["compare"]?["differences"]?.arrayValue?.compactMap { $0["index"] } == expected.map { .int(Int64($0)) })
        #expect(tree["compare"]?["whatIf"]?["decisions"]?.arrayValue?.count == memoryTrace.fixes.count)
        let text = try StreamedReplayTests.written(dir, "compare.txt") { output in
            try comparison.writeText(title: "t", listLimit: .max, to: output, redactor: .disabled)
        }
        #expect(text.contains("\(expected.count) fix\(expected.count == 1 ? "" : "es") change decision"))
        #expect(text.split(separator: "\n").filter { $0.hasPrefix("  \(expected[0]) ") || $0.hasPrefix("  \(expected.last!) ") }.count >= 1)
    }

    /// The pretty streamed arrays are the bytes the whole tree would print as.
    @Test func streamedDocumentPrintsTheSameBytesAsTheWholeTree() throws {
        let dir = TestDirectory("streamed-json-document")
        let elements: [JSONValue] = [["a": 1, "b": ["x", "y"]], [:], .array([]), "s"]
        for count in [0, 1, elements.count] {
            let whole: JSONValue = ["head": 1, "inner": ["list": .array(Array(elements.prefix(count))), "after": true], "tail": "t"]
            let streamed: JSONValue = ["head": 1, "inner": ["list": StreamedJSONDocument.placeholder(0), "after": true], "tail": "t"]
            let text = try StreamedReplayTests.written(dir, "doc-\(count).json") { output in
                try StreamedJSONDocument.write(streamed, arrays: [.init(.pretty(.disabled)) { emit in
                    for e in elements.prefix(count) { emit(e) }
                }], to: output)
            }
            #expect(text == JSONWriter(pretty: true).string(whole) + "\n", "count \(count)")
        }
    }
}
