import Foundation

/// A reading of bytes with one kind of escape decoded, and where each decoded byte came from, so
/// that a secret found in the reading is replaced in the original: `decoded[i]` was written as
/// `original[start[i]..<end[i]]`. Each decoder is written once, over a `DecodedBytesSink`: the
/// view records positions; a plain buffer (`withDecodedBytes`) takes the bytes alone, which is
/// all a search needs until it finds something (sanitize's check of its whole output file).
struct DecodedView: DecodedBytesSink {
    /// The escapes a secret may be written with.
    enum Reading: CaseIterable {
        /// JSON string escapes decoded (`\/`, `\"`, `\\`, `\n`, `\uXXXX` with surrogate pairs).
        case jsonUnescaped
        /// `%XX` decoded.
        case percentDecoded

        /// The byte without which the reading is the text itself.
        var escape: UInt8 { self == .jsonUnescaped ? 0x5C : 0x25 }
    }

    var decoded: [UInt8] = []
    var start: [Int] = []
    var end: [Int] = []

    mutating func append(_ byte: UInt8, from: Int, to: Int) {
        decoded.append(byte)
        start.append(from)
        end.append(to)
    }

    /// The `reading` of `bytes` with positions; nil when it holds no escape of its kind.
    init?(_ reading: Reading, _ bytes: UnsafeBufferPointer<UInt8>) {
        guard DecodedView.hasEscape(reading, bytes) else { return nil }
        decoded.reserveCapacity(bytes.count)
        DecodedView.decode(reading, bytes, into: &self)
    }

    /// Calls `body` with the `reading` of `bytes`, bytes alone (none when it holds no escape).
    /// A decoding is never longer than its input, so one buffer of that size takes it.
    static func withDecodedBytes(_ reading: Reading, _ bytes: UnsafeBufferPointer<UInt8>,
                                 _ body: (UnsafeBufferPointer<UInt8>) -> Void) {
        guard hasEscape(reading, bytes) else { return }
        let buffer = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: bytes.count)
        defer { buffer.deallocate() }
        var sink = BufferSink(base: buffer.baseAddress!, capacity: bytes.count)
        decode(reading, bytes, into: &sink)
        body(UnsafeBufferPointer(rebasing: buffer[..<sink.count]))
    }

    /// Whether `search` finds a secret in the `reading` of `bytes`.
    static func hasHit(_ reading: Reading, _ bytes: UnsafeBufferPointer<UInt8>, _ search: SecretSearch) -> Bool {
        var found = false
        withDecodedBytes(reading, bytes) { search.forEachHit(in: $0) { _ in found = true } }
        return found
    }

    private static func hasEscape(_ reading: Reading, _ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        ByteSearch.contains(reading.escape, in: bytes)
    }

    private static func decode<Sink: DecodedBytesSink>(_ reading: Reading, _ bytes: UnsafeBufferPointer<UInt8>, into sink: inout Sink) {
        switch reading {
        case .jsonUnescaped: unescapeJSON(bytes, into: &sink)
        case .percentDecoded: decodePercent(bytes, into: &sink)
        }
    }

    private static func hexValue(_ b: UInt8) -> UInt32? {
        switch b {
        case 0x30...0x39: return UInt32(b - 0x30)
        case 0x41...0x46: return UInt32(b - 0x37)
        case 0x61...0x66: return UInt32(b - 0x57)
        default: return nil
        }
    }

    private static func unescapeJSON<Sink: DecodedBytesSink>(_ bytes: UnsafeBufferPointer<UInt8>, into sink: inout Sink) {
        var i = 0
        func hex4(_ at: Int) -> UInt32? {
            guard at + 4 <= bytes.count else { return nil }
            var value: UInt32 = 0
            for k in 0..<4 {
                guard let digit = hexValue(bytes[at + k]) else { return nil }
                value = value << 4 | digit
            }
            return value
        }
        while i < bytes.count {
            let b = bytes[i]
            guard b == 0x5C, i + 1 < bytes.count else {
                sink.append(b, from: i, to: i + 1)
                i += 1
                continue
            }
            let next = bytes[i + 1]
            switch next {
            case UInt8(ascii: "u"):
                guard var scalar = hex4(i + 2) else {
                    sink.append(b, from: i, to: i + 1)
                    i += 1
                    continue
                }
                var length = 6
                if (0xD800...0xDBFF).contains(scalar), i + 12 <= bytes.count, bytes[i + 6] == 0x5C, bytes[i + 7] == UInt8(ascii: "u"),
                   let low = hex4(i + 8), (0xDC00...0xDFFF).contains(low) {
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    length = 12
                }
                // At most 4 UTF-8 bytes for 6 or 12 written: never longer than the input.
                for byte in String(Character(Unicode.Scalar(scalar) ?? "\u{FFFD}")).utf8 { sink.append(byte, from: i, to: i + length) }
                i += length
            case UInt8(ascii: "n"): sink.append(0x0A, from: i, to: i + 2); i += 2
            case UInt8(ascii: "t"): sink.append(0x09, from: i, to: i + 2); i += 2
            case UInt8(ascii: "r"): sink.append(0x0D, from: i, to: i + 2); i += 2
            case UInt8(ascii: "b"): sink.append(0x08, from: i, to: i + 2); i += 2
            case UInt8(ascii: "f"): sink.append(0x0C, from: i, to: i + 2); i += 2
            default:  // \/ \" \\ and anything else: the character itself
                sink.append(next, from: i, to: i + 2)
                i += 2
            }
        }
    }

    private static func decodePercent<Sink: DecodedBytesSink>(_ bytes: UnsafeBufferPointer<UInt8>, into sink: inout Sink) {
        var i = 0
        while i < bytes.count {
            if bytes[i] == 0x25, i + 2 < bytes.count, let high = hexValue(bytes[i + 1]), let low = hexValue(bytes[i + 2]) {
                sink.append(UInt8(high << 4 | low), from: i, to: i + 3)
                i += 3
            } else {
                sink.append(bytes[i], from: i, to: i + 1)
                i += 1
            }
        }
    }
}

/// Where a decoder writes each decoded byte and the input span it came from.
protocol DecodedBytesSink {
    mutating func append(_ byte: UInt8, from: Int, to: Int)
}

/// The decoded bytes alone, written into a buffer as long as the input.
private struct BufferSink: DecodedBytesSink {
    let base: UnsafeMutablePointer<UInt8>
    let capacity: Int
    var count = 0

    @inline(__always) mutating func append(_ byte: UInt8, from: Int, to: Int) {
        precondition(count < capacity, "a decoding is never longer than its input")
        base[count] = byte
        count += 1
    }
}
