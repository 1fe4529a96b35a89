import Testing
@testable import BGeoForensics

/// The timeline tells the rows it reads from their cells apart by one read of the event cell
/// (`TimelineRowEvent`): every name it knows gives its own kind, and any other text — a prefix, a
/// longer name, another letter case, a name of the same length — none (the row is then built).
@Suite struct TimelineRowEventTests {
    static func event(_ text: String?) -> TimelineRowEvent? {
        guard var text else { return TimelineRowEvent(eventBytes: nil) }
        return text.withUTF8 { TimelineRowEvent(eventBytes: $0) }
    }

    @Test func everyKnownNameGivesItsKind() {
        #expect(Self.event("location") == .location)
        #expect(Self.event("queue.insert") == .queueInsert)
        #expect(Self.event("queue.drop") == .drop)
        for kind in UploadRowKind.allCases { #expect(Self.event(kind.event) == .upload(kind), "\(kind)") }
        for kind in EngineRowKind.allCases { #expect(Self.event(kind.event) == .engine(kind), "\(kind)") }
    }

    @Test func anyOtherTextGivesNone() {
        let others: [String?] = [nil, "", "locatio", "locations", "Location", "LOCATION", "location ", "queue.insert2",
                                 "http.requesT", "http.reqeust", "auth.refresh.resul", "auth.refresh.results", "heartbeet", "queue.dro", "queue.drops",
                                 "filter.rejects", "config", "session.start", "app", "connectivitY", "queue.insers"]
        for text in others { #expect(Self.event(text) == nil, "\(text ?? "NULL")") }
    }
}
