import BGeoReader

/// What a Timesketch line states of a row's data besides its text: the uuids, the status and the
/// fields of a refresh, backoff, prune or drop. Picked out of the data's bytes by one field scan,
/// each string redacted as `Redactor.redact` redacts that member of the parsed object, each number
/// read as `UploadTracker.int` / `double` read it: the same values as the redacted tree gave,
/// without the tree (a `queue.drop` row of 1.5 million uuids held a parsed tree, its redacted
/// copy and their 60 MB text at once: 570 MB for `timeline --format timesketch`).
struct TimesketchRowFields {
    /// `uuid`, then the string elements of `uuids` (a row's line).
    var uuids = TimesketchUUIDField()
    /// The string elements of `uuids` (a drop's line).
    var dropped = TimesketchUUIDField()
    var status: Int?
    /// `success` as a flag, or an integer (non-zero: true).
    var success: Bool?
    var failures: Int?
    var delay: Double?
    var nextAttemptAt: String?
    var count: Int?
    var reason: String?

    private static let paths = ["uuid", "uuids", "status", "success", "failures", "delay_s", "next_attempt_at", "count", "reason"]
    private static let scanner = FieldScanner(paths: paths)
    private enum Slot: Int { case uuid, uuids, status, success, failures, delay, nextAttemptAt, count, reason }

    init() {}

    /// The fields of `data` (nil, not JSON or not an object: none).
    init(data: UnsafeBufferPointer<UInt8>?, redactor: Redactor) {
        guard let data else { return }
        self = TimesketchRowFields.scanner.withFields(of: data) { slots in
            var fields = TimesketchRowFields()
            guard let slots else { return fields }
            func field(_ slot: Slot) -> FieldScanner.Field { slots[slot.rawValue] }
            func text(_ slot: Slot) -> String? {
                field(slot).string(in: data).map { TimesketchRowFields.redacted($0, member: TimesketchRowFields.paths[slot.rawValue], redactor: redactor) }
            }
            if let uuid = text(.uuid) { fields.uuids.add(uuid) }
            field(.uuids).forEachStringElement(in: data) { element in
                let uuid = TimesketchRowFields.redacted(element(), member: "uuids", redactor: redactor)
                fields.uuids.add(uuid)
                fields.dropped.add(uuid)
            }
            // A number stated as a string is read after redaction, as the tree's reading was.
            func int(_ slot: Slot) -> Int? {
                field(slot).kind == .number ? field(slot).integer(in: data) : text(slot).flatMap(UploadRowFields.int(text:))
            }
            fields.status = int(.status)
            fields.success = field(.success).bool ?? int(.success).map { $0 != 0 }
            fields.failures = int(.failures)
            if let number = field(.delay).double {
                fields.delay = number.isFinite ? number : nil
            } else {
                fields.delay = text(.delay).flatMap(UploadRowFields.double(text:))
            }
            fields.nextAttemptAt = text(.nextAttemptAt)
            fields.count = int(.count)
            fields.reason = text(.reason)
            return fields
        }
    }

    /// A string member of the data's top object as `Redactor.redact` leaves it: fingerprinted
    /// whole under a sensitive name, else redacted as text.
    private static func redacted(_ string: String, member: String, redactor: Redactor) -> String {
        guard redactor.enabled else { return string }
        return Redactor.isSensitiveKey(member) ? Redactor.redactAll(string: string) : redactor.redact(text: string)
    }
}
