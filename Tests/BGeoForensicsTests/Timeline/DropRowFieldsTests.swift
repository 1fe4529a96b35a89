import Foundation
import Testing
@testable import BGeoReader
@testable import BGeoForensics

/// A `queue.drop` row is read by a field scan (`DropRowFields`), not a tree: it must read what
/// the tree gave (`UploadTracker.strings`, `int`, `Evidence.unique`) on any data — repeated and
/// non-canonical uuids, escaped strings, other elements, repeated keys, data that is no object —
/// and a row naming a million uuids is then read without a string per uuid.
@Suite struct DropRowFieldsTests {
    typealias Generator = AssemblyStorageTests.Generator

    static func element(_ generator: inout Generator, pool: [String]) -> String {
        switch generator.below(12) {
        case 0: return "\"\(pool[generator.below(pool.count)].uppercased())\""
        case 1: return "\"\\u0036\(pool[generator.below(pool.count)].dropFirst())\""
        case 2: return "\"not a uuid \(generator.below(5))\""
        case 3: return ["1", "null", "true", "{\"uuid\": \"x\"}", "[\"\(pool[0])\"]"][generator.below(5)]
        default: return "\"\(pool[generator.below(pool.count)])\""
        }
    }

    static func data(_ generator: inout Generator, pool: [String]) -> String {
        let space = generator.below(2) == 0 ? "" : " \n"
        let uuids = (0..<generator.below(90)).map { _ in element(&generator, pool: pool) }.joined(separator: "," + space)
        var members = ["\"uuids\":\(space)[\(uuids)]"]
        switch generator.below(4) {
        case 0: members.append("\"status\": 422")
        case 1: members.append("\"status\": \" 500 \"")
        case 2: members.append("\"status\": 4.2e2")
        default: break
        }
        if generator.below(3) == 0 { members.append("\"count\": \(generator.below(200))") }
        if generator.below(6) == 0 { members.append("\"uuids\": [\"\(pool[1])\", \"\(pool[1])\"]") }
        if generator.below(8) == 0 { members.append("\"\\u0075uids\": [\"\(pool[3])\"]") }
        if generator.below(8) == 0 { members.append("\"st\\u0061tus\": 401") }
        members.shuffle(using: &generator)
        switch generator.below(12) {
        case 0: return "[\(uuids)]"
        case 1: return "{\"uuids\": \"\(pool[2])\"}"
        default: return "{" + members.joined(separator: "," + space) + "}"
        }
    }

    static func entry(_ data: String) -> LogEntry {
        LogEntry(rowId: 7, tsText: "", time: 0, level: 2, src: "native", event: "queue.drop", dataText: data)
    }

    @Test func readsWhatTheTreeGave() throws {
        var generator = Generator(state: 20261207)
        let pool = (0..<30).map { _ in UUID().uuidString.lowercased() }
        for round in 0..<600 {
            let text = Self.data(&generator, pool: pool)
            let kept = 1 + generator.below(12)
            let fields = DropRowFields(Self.entry(text), kept: kept)
            let tree = try? JSONParser.parse(text)
            let uuids = UploadTracker.strings(tree?["uuids"])
            let distinct = Evidence.unique(uuids)
            #expect(fields.uuids == Array(uuids.prefix(kept)), "\(round): \(text)")
            #expect(fields.uuidCount == uuids.count, "\(round): \(text)")
            #expect(fields.distinctUUIDs == Array(distinct.prefix(kept)), "\(round): \(text)")
            #expect(fields.distinctCount == distinct.count, "\(round): \(text)")
            #expect(fields.status == UploadTracker.int(tree?["status"]), "\(round): \(text)")
            #expect(fields.count == UploadTracker.int(tree?["count"]), "\(round): \(text)")
        }
    }

    /// 300,000 uuids, every third a repeat: counted, the distinct ones too, the first few kept.
    @Test func aRowOfManyUUIDsIsCountedWithoutATree() {
        let pool = (0..<200_000).map { i in String(format: "%08x-0000-4000-8000-%012x", i, i * 7) }
        var uuids: [String] = []
        for i in 0..<300_000 { uuids.append(i % 3 == 2 ? pool[i / 3] : pool[i - i / 3]) }
        let text = "{\"status\": 422, \"uuids\": [" + uuids.map { "\"\($0)\"" }.joined(separator: ", ") + "]}"
        let fields = DropRowFields(Self.entry(text), kept: 50)
        #expect(fields.uuidCount == 300_000)
        #expect(fields.distinctCount == 200_000)
        #expect(fields.uuids == Array(uuids.prefix(50)))
        #expect(fields.distinctUUIDs == Array(Evidence.unique(Array(uuids.prefix(200))).prefix(50)))
        #expect(fields.status == 422)
    }
}
