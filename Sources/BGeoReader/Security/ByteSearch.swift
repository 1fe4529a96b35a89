import Foundation

/// The one plain byte search: where a needle first occurs in bytes. The redactor asks it of
/// thousands of short texts, the timeline's streamed document of one long one; Foundation's
/// `range(of:)` costs a bridge per call.
package enum ByteSearch {
    /// Where `needle` first starts in `haystack` at or after `start`; nil when it does not (an
    /// empty needle is found at `start`).
    package static func firstIndex(of needle: UnsafeBufferPointer<UInt8>, in haystack: UnsafeBufferPointer<UInt8>,
                                   from start: Int = 0) -> Int? {
        guard !needle.isEmpty else { return start <= haystack.count ? start : nil }
        guard let base = haystack.baseAddress, start >= 0, haystack.count - start >= needle.count else { return nil }
        let last = haystack.count - needle.count
        var index = start
        while index <= last {
            // The first byte by memchr, the rest compared where it stands.
            guard let hit = firstIndex(of: needle[0], in: UnsafeBufferPointer(start: base, count: last + 1), from: index) else { return nil }
            index = hit
            if memcmp(base + index, needle.baseAddress!, needle.count) == 0 { return index }
            index += 1
        }
        return nil
    }

    /// Where `byte` first stands in `haystack` at or after `start` (memchr); nil when it does not.
    package static func firstIndex(of byte: UInt8, in haystack: UnsafeBufferPointer<UInt8>, from start: Int = 0) -> Int? {
        guard let base = haystack.baseAddress, start >= 0, start < haystack.count,
              let hit = memchr(base + start, Int32(byte), haystack.count - start) else { return nil }
        return base.distance(to: hit.assumingMemoryBound(to: UInt8.self))
    }

    /// Whether `byte` stands anywhere in `haystack` (nil: NULL, which holds none).
    package static func contains(_ byte: UInt8, in haystack: UnsafeBufferPointer<UInt8>?) -> Bool {
        haystack.flatMap { firstIndex(of: byte, in: $0) } != nil
    }

    /// `byte` with an ASCII capital letter lower-cased, any other byte as it is.
    package static func foldedASCII(_ byte: UInt8) -> UInt8 {
        byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte
    }
}
