import Foundation

/// The one parser of the log's fix lines (`location`, `filter.reject`, `filter.adjust`): every
/// field any reader takes from a line's `data`, picked in one validating pass by the field
/// scanner (no JSON tree), read through named accessors. What a reader makes of them — replay's
/// fix, the recorded trace's, the timeline's coverage — is that reader's policy, not a parse of
/// its own. Valid only while its bytes are (it points into SQLite's row).
package struct FixLineFields {
    static let scanner = FieldScanner(paths: [
        "uuid", "timestamp", "latitude", "longitude", "accuracy", "speed", "heading", "altitude",
        "raw_latitude", "raw_longitude", "reason", "adjusted_latitude", "adjusted_longitude", "odometer", "is_moving",
    ])
    private enum Slot {
        static let uuid = 0, timestamp = 1, latitude = 2, longitude = 3, accuracy = 4, speed = 5, heading = 6
        static let altitude = 7, rawLatitude = 8, rawLongitude = 9, reason = 10, adjustedLatitude = 11
        static let adjustedLongitude = 12, odometer = 13, isMoving = 14
    }

    let bytes: UnsafeBufferPointer<UInt8>
    private let fields: [FieldScanner.Field]

    /// Scans `bytes` into `fields` (a buffer the caller reuses line after line, so no array is
    /// made per line); nil when the data is not a JSON object.
    package init?(_ bytes: UnsafeBufferPointer<UInt8>, reusing fields: inout [FieldScanner.Field]) {
        guard FixLineFields.scanner.scan(bytes, into: &fields) else { return nil }
        self.bytes = bytes
        self.fields = fields
    }

    /// The fix's uuid (built now); nil when missing or not a string.
    package var uuid: String? { fields[Slot.uuid].string(in: bytes) }
    /// Whether the line states a `timestamp` string (the fix's own time, not when it was logged).
    package var hasTimestamp: Bool { fields[Slot.timestamp].isString }
    /// The `timestamp` as a time; nil when missing or not ISO-8601.
    package var time: Double? { fields[Slot.timestamp].withStringBytes(in: bytes) { $0.flatMap(Timestamp.parse(bytes:)) } }
    /// The `timestamp` as written (built now).
    package var timestampText: String? { fields[Slot.timestamp].string(in: bytes) }

    package var latitude: Double? { fields[Slot.latitude].double }
    package var longitude: Double? { fields[Slot.longitude].double }
    /// The position before the filter moved it (`location` lines of an adjusted fix).
    package var rawLatitude: Double? { fields[Slot.rawLatitude].double }
    package var rawLongitude: Double? { fields[Slot.rawLongitude].double }
    /// The position the filter moved a fix to (`filter.adjust` lines).
    package var adjustedLatitude: Double? { fields[Slot.adjustedLatitude].double }
    package var adjustedLongitude: Double? { fields[Slot.adjustedLongitude].double }
    /// Metres; nil when missing or negative (unknown).
    package var accuracy: Double? { known(Slot.accuracy) }
    /// m/s; nil when missing or negative (unknown).
    package var speed: Double? { known(Slot.speed) }
    /// Degrees as stated (may be negative: unknown).
    package var heading: Double? { fields[Slot.heading].double }
    /// Degrees; nil when missing or negative (unknown).
    package var knownHeading: Double? { known(Slot.heading) }
    package var altitude: Double? { fields[Slot.altitude].double }
    package var odometer: Double? { fields[Slot.odometer].double }
    package var isMoving: Bool? { fields[Slot.isMoving].bool }
    /// The filter's reason (`filter.reject` lines; built now).
    package var reason: String? { fields[Slot.reason].string(in: bytes) }

    /// Moving as the SDK decides it (`FixMotion.moving`).
    package var moving: Bool? { FixMotion.moving(isMoving: isMoving, speed: speed) }

    private func known(_ slot: Int) -> Double? {
        guard let value = fields[slot].double, value >= 0 else { return nil }
        return value
    }
}

extension FixLineFields {
    private static let timestampKey = Array("timestamp".utf8)

    /// The fix `timestamp` of a line alone — the one field the gap finder needs from every
    /// `location` line — read without the validating scan: one pass over the top-level keys,
    /// stopping at `timestamp`, several times cheaper on a million rows. A line with any
    /// backslash is declined, so every `"` delimits a string and a string followed by `:` is a
    /// key. Anything unexpected returns nil and the caller scans the line in full. The data is
    /// not validated here: the log read's own check (`LogLineFields.checkData`) warns of a line
    /// that is not JSON, whatever this reads of it.
    package static func quickTime(_ bytes: UnsafeBufferPointer<UInt8>) -> Double? {
        guard let base = bytes.baseAddress, bytes.count > 1 else { return nil }
        guard !ByteSearch.contains(0x5C, in: bytes) else { return nil }  // no escapes anywhere
        let n = bytes.count
        var depth = 0
        var i = 0
        while i < n {
            let byte = bytes[i]
            if byte == 0x22 {  // "
                guard let end = ByteSearch.firstIndex(of: 0x22, in: bytes, from: i + 1) else { return nil }
                var j = end + 1
                while j < n, bytes[j] == 0x20 || bytes[j] == 0x0A || bytes[j] == 0x0D || bytes[j] == 0x09 { j += 1 }
                if depth == 1, j < n, bytes[j] == 0x3A, end - i - 1 == timestampKey.count,
                   memcmp(base + i + 1, timestampKey, timestampKey.count) == 0 {
                    // The value must be a string.
                    j += 1
                    while j < n, bytes[j] == 0x20 { j += 1 }
                    guard j < n, bytes[j] == 0x22,
                          let valueEnd = ByteSearch.firstIndex(of: 0x22, in: bytes, from: j + 1) else { return nil }
                    return Timestamp.parse(bytes: UnsafeBufferPointer(rebasing: bytes[(j + 1)..<valueEnd]))
                }
                i = end + 1
                continue
            }
            if byte == 0x7B || byte == 0x5B { depth += 1 } else if byte == 0x7D || byte == 0x5D { depth -= 1 }
            i += 1
        }
        return nil
    }
}
