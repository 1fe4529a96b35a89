import Foundation

/// `logs --grep`'s test of a row: the needle, lower-cased, is a substring of the row's message or
/// data lower-cased, as Foundation's `contains` finds one. Most rows are ASCII, and for
/// them the test is decided on the cells' bytes (`verdict`): no entry is built for a row that
/// does not match, and no lower-cased copy of a row is made (a 60 MB `queue.drop` row cost
/// two). A row the bytes cannot decide is tested by the definition (`matches`).
struct LogGrep {
    /// The needle, lower-cased.
    let needle: String
    /// Its bytes when the byte test may decide: ASCII, and no `\r` or `\n` (whether one matches
    /// inside a `\r\n` is the definition's business), no NUL, nor the `\u{1}` the definition puts
    /// between message and data. Nil: every row is tested by the definition.
    private let asciiNeedle: [UInt8]?

    init(_ grep: String) {
        needle = grep.lowercased()
        let bytes = Array(needle.utf8)
        // An empty needle is left to the definition (whether `contains("")` holds is the
        // definition's own business).
        let byteTestable = !bytes.isEmpty && bytes.allSatisfy { $0 < 0x80 && $0 != 0x0A && $0 != 0x0D && $0 != 0x01 && $0 != 0 }
        asciiNeedle = byteTestable ? bytes : nil
    }

    /// The definition: the needle in `message`, a `\u{1}` and `data`, lower-cased. A needle
    /// holding a NUL (none comes from a command line) is looked for byte by byte: Foundation's
    /// `contains` answers wrongly for one and traps when it matches at the end after a character
    /// outside ASCII (`"éa".contains("a\0")`).
    func matches(message: String?, data: String?) -> Bool {
        let haystack = ((message ?? "") + "\u{1}" + (data ?? "")).lowercased()
        guard needle.utf8.contains(0) else { return haystack.contains(needle) }
        let bytes = Array(haystack.utf8), wanted = Array(needle.utf8)
        guard bytes.count >= wanted.count else { return false }
        return (0...(bytes.count - wanted.count)).contains { bytes[$0..<($0 + wanted.count)].elementsEqual(wanted) }
    }

    /// The test decided on the cells' bytes (nil: NULL): true or false where they decide it as
    /// `matches` would, nil where they cannot (a byte outside ASCII where it matters).
    func verdict(message: UnsafeBufferPointer<UInt8>?, data: UnsafeBufferPointer<UInt8>?) -> Bool? {
        guard let asciiNeedle else { return nil }
        let inMessage = LogGrep.verdict(asciiNeedle, in: message)
        if inMessage == true { return true }
        let inData = LogGrep.verdict(asciiNeedle, in: data)
        if inData == true { return true }
        return inMessage == false && inData == false ? false : nil
    }

    /// Whether `needle` (lower-cased ASCII, not empty) is in `text` as the definition finds it:
    /// true for a match with ASCII on both sides (a byte outside ASCII beside it could join it
    /// into a character, `e` + U+0301, which the definition does not split); false when `text`
    /// is ASCII and holds none; nil otherwise.
    private static func verdict(_ needle: [UInt8], in text: UnsafeBufferPointer<UInt8>?) -> Bool? {
        guard let text else { return false }
        guard text.count >= needle.count else { return text.allSatisfy { $0 < 0x80 } ? false : nil }
        var ascii = true
        let first = needle[0], last = text.count - needle.count
        var i = 0
        while i < text.count {
            let byte = text[i]
            if byte >= 0x80 {
                ascii = false
            } else if i <= last, ByteSearch.foldedASCII(byte) == first, matchesAt(i, needle, text),
                      i == 0 || text[i - 1] < 0x80, i + needle.count == text.count || text[i + needle.count] < 0x80 {
                return true
            }
            i += 1
        }
        return ascii ? false : nil
    }

    private static func matchesAt(_ start: Int, _ needle: [UInt8], _ text: UnsafeBufferPointer<UInt8>) -> Bool {
        var k = 1
        while k < needle.count {
            if ByteSearch.foldedASCII(text[start + k]) != needle[k] { return false }
            k += 1
        }
        return true
    }
}
