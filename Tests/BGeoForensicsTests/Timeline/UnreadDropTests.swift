import Foundation
import Testing
@testable import BGeoReader
@testable import BGeoForensics

/// A `queue.drop` row whose data is not a JSON object (a number too large for a Double makes the
/// whole document invalid, stop 54's hk probe) states no records: the findings and the event say
/// that how many is not known, never "0 records were dropped", and list no empty uuids.
@Suite struct UnreadDropTests {
    static let directory = TestDirectory("unread-drop")

    static func dump(_ name: String, readableDrop: Bool) throws -> (path: String, drop: Int64) {
        let path = directory.file(name + ".db")
        let f = try TimelineFixture(path: path)
        try f.config(TimelineFixture.plainConfig)
        var sent: [String] = []
        for _ in 0..<3 { sent.append(try f.fix()) }
        try f.request(sent)
        try f.response(500, count: 3)
        let drop = try f.drop(sent, status: 500)
        if readableDrop { try f.drop([sent[0]], status: 422) }
        try f.close()
        let db = try Database(path: path, mode: .readWriteCreate)
        try db.execute("UPDATE log_entries SET data = '{\"uuids\":[\"a\",\"b\"],\"status\":1e400}' WHERE id = \(drop)")
        return (path, drop)
    }

    @Test func anUnreadDropSaysHowManyIsNotKnown() throws {
        let (path, drop) = try UnreadDropTests.dump("alone", readableDrop: false)
        let timeline = try Scenarios.timeline(path)
        let poison = try #require(timeline.findings(code: "poison.dropped").first)
        #expect(poison.summary.hasPrefix("Records were dropped from the queue (how many is not known: the data of the queue.drop row is not a JSON object)"))
        #expect(poison.summary.contains("gone from the device.") && !poison.summary.contains("device: ."))
        #expect(!poison.summary.contains("0 records"))
        let violation = try #require(timeline.findings(code: "policy.violation").first)
        #expect(violation.summary.contains("records (how many is not known: the row's data is not a JSON object) dropped (row \(drop))"))
        #expect(!violation.summary.contains("0 records"))
        let text = TimelineTextRenderer(colour: false).lines(timeline).joined(separator: "\n")
        #expect(text.contains("dropped poison records (how many is not known"))
        let event = try #require(timeline.events.first { $0.logId == drop && $0.kind == .poisonDrop })
        #expect(event.summary == "dropped poison " + DropRowFields.unreadRecords, "\(event.summary)")
        #expect(!text.contains("dropped 0 poison records"))
    }

    @Test func aReadDropIsCountedBesideAnUnreadOne() throws {
        let (path, _) = try UnreadDropTests.dump("beside", readableDrop: true)
        let poison = try #require(try Scenarios.timeline(path).findings(code: "poison.dropped").first)
        #expect(poison.summary.hasPrefix("1 record was dropped from the queue, and more by 1 queue.drop row whose data is not a JSON object (how many is not known)"))
    }
}
