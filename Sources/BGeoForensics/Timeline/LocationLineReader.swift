import Foundation

/// Reads the three fields the gap finder needs from a `location` log line's data — fix
/// `timestamp`, `is_moving`, `speed` — by looking for the engine's own key spellings, which is
/// several times cheaper than a validating scan of the whole object on a million rows. SQLite
/// has already checked the text is JSON (`json_valid`). Anything unexpected (a key missing, a
/// value of another type, a key that also appears inside a string) returns nil and the caller
/// falls back to `FieldScanner`.
enum LocationLineReader {
    struct Fields {
        var time: Double?
        var moving: Bool?
        var speed: Double?
        var latitude: Double?
        var longitude: Double?
    }

    private static let timestampKey = Array("\"timestamp\":".utf8)
    private static let movingKey = Array("\"is_moving\":".utf8)
    private static let speedKey = Array("\"speed\":".utf8)
    private static let latitudeKey = Array("\"latitude\":".utf8)
    private static let longitudeKey = Array("\"longitude\":".utf8)

    static func read(_ bytes: UnsafeBufferPointer<UInt8>) -> Fields? {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return nil }
        /// Offset just after `key`, nil when absent, -1 when the key text appears twice (it
        /// then also sits somewhere else, e.g. inside a nested object: give up).
        func search(_ key: [UInt8], from: Int) -> Int? {
            key.withUnsafeBufferPointer { k -> Int? in
                var i = from
                while i + k.count <= bytes.count {
                    guard let quote = memchr(base + i, Int32(k[0]), bytes.count - i) else { return nil }
                    let at = UnsafeRawPointer(quote) - UnsafeRawPointer(base)
                    if at + k.count <= bytes.count, memcmp(base + at, k.baseAddress!, k.count) == 0 { return at + k.count }
                    i = at + 1
                }
                return nil
            }
        }
        func find(_ key: [UInt8]) -> Int? {
            guard let after = search(key, from: 0) else { return nil }
            return search(key, from: after) == nil ? after : -1
        }
        guard memchr(base, 0x5C, bytes.count) == nil else { return nil }  // no escapes anywhere
        var fields = Fields()
        guard let t = find(timestampKey), t >= 0 else { return nil }
        var i = t
        while i < bytes.count, bytes[i] == 0x20 { i += 1 }
        guard i < bytes.count, bytes[i] == 0x22 else { return nil }
        let start = i + 1
        guard let close = memchr(base + start, 0x22, bytes.count - start) else { return nil }
        let end = UnsafeRawPointer(close) - UnsafeRawPointer(base)
        guard let time = Timestamp.parse(bytes: UnsafeBufferPointer(rebasing: bytes[start..<end])) else { return nil }
        fields.time = time
        if let m = find(movingKey) {
            guard m >= 0 else { return nil }
            var j = m
            while j < bytes.count, bytes[j] == 0x20 { j += 1 }
            if j + 4 <= bytes.count, bytes[j] == 0x74 { fields.moving = true }          // true
            else if j + 5 <= bytes.count, bytes[j] == 0x66 { fields.moving = false }    // false
            else if j < bytes.count, bytes[j] == 0x6E { fields.moving = nil }           // null
            else { return nil }
        }
        func number(after key: [UInt8]) -> Double?? {
            guard let s = find(key) else { return .some(nil) }
            guard s >= 0 else { return nil }
            var j = s
            while j < bytes.count, bytes[j] == 0x20 { j += 1 }
            var k = j
            while k < bytes.count, (bytes[k] >= 0x30 && bytes[k] <= 0x39) || bytes[k] == 0x2E || bytes[k] == 0x2D
                || bytes[k] == 0x65 || bytes[k] == 0x45 || bytes[k] == 0x2B { k += 1 }
            guard k > j else { return .some(nil) }
            return .some(Double(String(decoding: UnsafeBufferPointer(rebasing: bytes[j..<k]), as: UTF8.self)))
        }
        if fields.moving == nil {
            guard let speed = number(after: speedKey) else { return nil }
            fields.speed = speed
        }
        guard let latitude = number(after: latitudeKey), let longitude = number(after: longitudeKey) else { return nil }
        fields.latitude = latitude
        fields.longitude = longitude
        return fields
    }
}
