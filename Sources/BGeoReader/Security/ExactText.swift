import Foundation

/// A string compared, hashed and ordered by its UTF-8 bytes. Swift's `String ==` is canonical
/// equivalence (`"ä"` precomposed equals `"a"` + U+0308), but every search for a secret matches
/// bytes: a set of secrets keyed by `String` kept one of two spellings and never searched the
/// other's bytes, and `sanitize`'s memory of clean words took a secret for the clean other
/// spelling seen before it (stop 56). Sets and caches whose verdict rests on bytes key by this.
public struct ExactText: Hashable, Comparable, Sendable, ExpressibleByStringLiteral, CustomStringConvertible {
    public let text: String

    public init(_ text: String) { self.text = text }

    public init(stringLiteral value: String) { text = value }

    public static func == (a: ExactText, b: ExactText) -> Bool {
        guard a.text.utf8.count == b.text.utf8.count else { return false }
        var a = a.text, b = b.text
        return a.withUTF8 { x in b.withUTF8 { y in x.count == 0 || memcmp(x.baseAddress!, y.baseAddress!, x.count) == 0 } }
    }

    public func hash(into hasher: inout Hasher) {
        var text = text
        text.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
    }

    /// Byte order (UTF-8 order is scalar order), so a list in this order is the same in every run.
    public static func < (a: ExactText, b: ExactText) -> Bool {
        a.text.utf8.lexicographicallyPrecedes(b.text.utf8)
    }

    public var description: String { text }
}
