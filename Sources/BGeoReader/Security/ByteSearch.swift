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
            guard let hit = memchr(base + index, Int32(needle[0]), last - index + 1) else { return nil }
            index = base.distance(to: hit.assumingMemoryBound(to: UInt8.self))
            if memcmp(base + index, needle.baseAddress!, needle.count) == 0 { return index }
            index += 1
        }
        return nil
    }
}
