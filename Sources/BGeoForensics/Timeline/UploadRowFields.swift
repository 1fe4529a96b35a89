import BGeoReader
import Foundation

/// What the upload conversation reads of an `http.request`, `http.response` or `http.backoff`
/// row: a few fields, picked out of the row's `data` bytes by one field scan (no tree, no
/// strings but the ones kept). One decoder whether the row is read from its cells (the
/// timeline's fast path) or from a built `LogEntry` (a split read's later half), so the two
/// paths cannot disagree (issue 27: an attempt cost a `LogEntry` and a JSON tree, 100–320 µs).
///
/// The readings are the tracker's (`UploadTracker.int`/`double` on a parsed value): a count or
/// status is an integer literal, another integral number below 9e15, or a string holding an
/// integer; a delay is a finite number or a string holding one; data that is not a JSON object
/// states nothing.
struct UploadRowFields {
    /// The data was a JSON object (the scan that read it validated it).
    private(set) var isObject = false
    /// `uuids`: its string elements, the first `uuidLimit` kept, all counted.
    var uuids: [String] = []
    var uuidCount = 0
    var count: Int?
    var url: String?
    var status: Int?
    var ms: Double?
    /// The response body as the row states it: a string as it is, anything else but null as its
    /// JSON text.
    var response: String?
    /// `retry_after`, else `retryAfter` (the first one present decides).
    var retryAfter: Double?
    /// `failures` as a number (its range is checked as stated) and as a count.
    var failuresValue: Double?
    var failures: Int?
    var delay: Double?

    private static let scanner = FieldScanner(paths: ["uuids", "count", "url", "status", "ms", "response",
                                                      "retry_after", "retryAfter", "failures", "delay_s"])
    private enum Slot: Int { case uuids, count, url, status, ms, response, retryAfter, retryAfterCamel, failures, delay }

    /// The fields of `data` (nil: the row has none).
    init(data: UnsafeBufferPointer<UInt8>?, uuidLimit: Int) {
        guard let data else { return }
        self = UploadRowFields.scanner.withFields(of: data) { slots in
            var fields = UploadRowFields()
            guard let slots else { return fields }
            fields.read(slots, in: data, uuidLimit: uuidLimit)
            return fields
        }
    }

    private init() {}

    private mutating func read(_ slots: UnsafeBufferPointer<FieldScanner.Field>, in data: UnsafeBufferPointer<UInt8>, uuidLimit: Int) {
        func field(_ slot: Slot) -> FieldScanner.Field { slots[slot.rawValue] }
        isObject = true
        field(.uuids).forEachStringElement(in: data) { uuid in
            if uuidCount < uuidLimit { uuids.append(uuid()) }
            uuidCount += 1
        }
        count = UploadRowFields.int(field(.count), in: data)
        url = field(.url).string(in: data)
        status = UploadRowFields.int(field(.status), in: data)
        ms = field(.ms).double
        switch field(.response).kind {
        case .missing, .null: response = nil
        case .string, .escapedString: response = field(.response).string(in: data)
        default:
            // A number, a flag or a structure: written back as JSON (rare; the tree is built for it).
            let text = String(decoding: data, as: UTF8.self)
            response = (try? JSONParser.parse(text))?["response"]?.jsonText
        }
        let retry = field(.retryAfter).isMissing ? field(.retryAfterCamel) : field(.retryAfter)
        retryAfter = UploadRowFields.double(retry, in: data)
        failuresValue = UploadRowFields.double(field(.failures), in: data)
        failures = UploadRowFields.int(field(.failures), in: data)
        delay = UploadRowFields.double(field(.delay), in: data)
    }

    /// The fields of a built entry's data text.
    init(_ entry: LogEntry, uuidLimit: Int) {
        self = entry.withData { UploadRowFields(data: $0, uuidLimit: uuidLimit) }
    }

    /// A number read as an integer (`FieldScanner.Field.integer`, the tree's rule), or a string
    /// holding one (spaces around allowed): `UploadTracker.int` on a parsed value, from the bytes.
    static func int(_ field: FieldScanner.Field, in data: UnsafeBufferPointer<UInt8>) -> Int? {
        if field.kind == .number { return field.integer(in: data) }
        return field.string(in: data).flatMap(int(text:))
    }

    /// An integer stated as a string, spaces around it allowed (`UploadTracker.int`'s reading).
    static func int(text: String) -> Int? { Int(text.trimmingCharacters(in: .whitespaces)) }

    /// A finite number stated as a string, spaces around it allowed (`UploadTracker.double`'s).
    static func double(text: String) -> Double? {
        guard let number = Double(text.trimmingCharacters(in: .whitespaces)), number.isFinite else { return nil }
        return number
    }

    /// A finite number, or a string holding one.
    static func double(_ field: FieldScanner.Field, in data: UnsafeBufferPointer<UInt8>) -> Double? {
        if let number = field.double { return number.isFinite ? number : nil }
        return field.string(in: data).flatMap(double(text:))
    }
}
