import BGeoForensics
/// Appends compact JSON straight into bytes, producing exactly what `JSONWriter` writes for the
/// same members in the same order. The simulator's hot path (a record and a `location` log line
/// per fix, a million times) uses it instead of building `JSONValue` trees.
struct JSONTextBuilder {
    private(set) var bytes: [UInt8] = []
    private var needsComma = false

    init(capacity: Int = 640) { bytes.reserveCapacity(capacity) }

    var text: String { String(decoding: bytes, as: UTF8.self) }

    private mutating func separator() {
        if needsComma { bytes.append(UInt8(ascii: ",")) }
    }

    mutating func open() {
        separator()
        bytes.append(UInt8(ascii: "{"))
        needsComma = false
    }

    mutating func close() {
        bytes.append(UInt8(ascii: "}"))
        needsComma = true
    }

    mutating func key(_ name: StaticString) {
        separator()
        bytes.append(UInt8(ascii: "\""))
        name.withUTF8Buffer { bytes.append(contentsOf: $0) }
        bytes.append(UInt8(ascii: "\""))
        bytes.append(UInt8(ascii: ":"))
        needsComma = false
    }

    mutating func string(_ value: String) {
        var copy = value
        let plain = copy.withUTF8 { buffer in
            !buffer.contains { $0 < 0x20 || $0 == 0x22 || $0 == 0x5C }
        }
        if plain {
            bytes.append(UInt8(ascii: "\""))
            copy.withUTF8 { bytes.append(contentsOf: $0) }
            bytes.append(UInt8(ascii: "\""))
        } else {
            var out = ""
            JSONWriter().writeString(value, into: &out)
            bytes.append(contentsOf: out.utf8)
        }
        needsComma = true
    }

    mutating func double(_ value: Double) {
        raw(JSONWriter.format(value))
    }

    mutating func int(_ value: Int) {
        raw(String(value))
    }

    mutating func bool(_ value: Bool?) {
        raw(value.map { $0 ? "true" : "false" } ?? "null")
    }

    /// Already-serialised JSON (a nested value written by `JSONWriter`).
    mutating func raw(_ json: String) {
        separator()
        var copy = json
        copy.withUTF8 { bytes.append(contentsOf: $0) }
        needsComma = true
    }

    mutating func value(_ value: JSONValue) {
        raw(value.jsonText)
    }
}
