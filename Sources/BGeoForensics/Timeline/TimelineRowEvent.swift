import BGeoReader
import Foundation

/// The rows the timeline can read from their cells, told apart by one read of the event cell
/// (the location-line, upload and engine checks read it three or four times a row, each a
/// comparison with a list of names).
enum TimelineRowEvent: Equatable {
    case location, queueInsert, drop
    case upload(UploadRowKind)
    case engine(EngineRowKind)

    /// Every name this type knows, with what it stands for.
    private static let names: [(name: StaticString, event: TimelineRowEvent)] =
        [("location", .location), ("queue.insert", .queueInsert), ("queue.drop", .drop)]
        + UploadRowKind.allCases.map { (name: $0.staticEvent, event: .upload($0)) }
        + EngineRowKind.allCases.map { (name: $0.staticEvent, event: .engine($0)) }

    /// The event of a row whose event cell holds `bytes`; nil for any other event (or none).
    init?(eventBytes bytes: UnsafeBufferPointer<UInt8>?) {
        guard let bytes, let base = bytes.baseAddress else { return nil }
        for entry in TimelineRowEvent.names where entry.name.utf8CodeUnitCount == bytes.count
            && memcmp(base, entry.name.utf8Start, bytes.count) == 0 {
            self = entry.event
            return
        }
        return nil
    }

    /// The event of `row` (one read of its event cell).
    init?(_ row: LogRowView) {
        guard let event = row.withEvent({ TimelineRowEvent(eventBytes: $0) }) else { return nil }
        self = event
    }
}
