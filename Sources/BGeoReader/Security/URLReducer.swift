/// URLs anywhere in a text (`scheme://authority/path?query#fragment`, also JSON-escaped as
/// `scheme:\/\/authority\/path`): the user-info part (`user:password@`) is always replaced by its
/// fingerprint — it is a credential, and every output's `Redactor` applies this — and with
/// `sanitize --urls host` everything after `scheme://host[:port]` is removed (the customer's
/// paths and query strings say which API, tenant and account the device talks to).
package enum URLReducer {
    package static func apply(_ text: String, policy: URLPolicy) -> String {
        guard mayHoldURL(text) else { return text }
        let bytes = Array(text.utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var copied = 0
        let keepsTail = policy == .keep
        bytes.withUnsafeBufferPointer { buffer in forEachURL(in: buffer) { url in
            guard url.at != nil || (!keepsTail && url.end > url.authority.upperBound) else { return }
            out.append(contentsOf: bytes[copied..<url.authority.lowerBound])
            if let at = url.at, keepsTail, at > url.authority.lowerBound {
                let userInfo = String(decoding: bytes[url.authority.lowerBound..<at], as: UTF8.self)
                out.append(contentsOf: Array(Redactor.fingerprint(userInfo).utf8))
                out.append(UInt8(ascii: "@"))
            }
            out.append(contentsOf: bytes[url.hostStart..<url.authority.upperBound])
            if keepsTail { out.append(contentsOf: bytes[url.authority.upperBound..<url.end]) }
            copied = url.end
        } }
        guard copied > 0 else { return text }
        out.append(contentsOf: bytes[copied...])
        return String(decoding: out, as: UTF8.self)
    }

    /// The passwords in the user-info of the URLs in `text` (`user:password@`, the part after
    /// the first colon, as written): secrets the redactor learns where a document states them, so
    /// the same word elsewhere is redacted too, not only in its URL.
    package static func passwords(in text: String) -> [String] {
        var text = text
        guard text.withUTF8(mayHoldUserInfo) else { return [] }
        return text.withUTF8 { passwords(inBytes: $0) }
    }

    /// `passwords(in:)` of a text's UTF-8 bytes (a log row's data as stored: a password written
    /// with a JSON escape other than `\/` is not read whole here, so a caller reading JSON text
    /// parses a document that holds one).
    package static func passwords(inBytes bytes: UnsafeBufferPointer<UInt8>) -> [String] {
        var found: [String] = []
        forEachPassword(inBytes: bytes) { found.append(String(decoding: $0, as: UTF8.self)) }
        return found
    }

    /// Calls `body` with the bytes of each password `passwords(inBytes:)` finds, as written.
    package static func forEachPassword(inBytes bytes: UnsafeBufferPointer<UInt8>, _ body: (Slice<UnsafeBufferPointer<UInt8>>) -> Void) {
        forEachURL(in: bytes) { url in
            guard let at = url.at, let colon = bytes[url.authority.lowerBound..<at].firstIndex(of: UInt8(ascii: ":")),
                  colon + 1 < at else { return }
            body(bytes[(colon + 1)..<at])
        }
    }

    private static func mayHoldURL(_ text: String) -> Bool {
        var text = text
        return text.withUTF8(holdsSchemeSeparator)
    }

    /// False when no URL of `bytes` can have user-info (a password to learn): it needs an `@`
    /// and a `://` (or JSON's `:\/\/`). The learning's gate (`SecretRules.mayStateSecrets`)
    /// asks this before it parses a document: an e-mail address alone is no reason to.
    package static func mayHoldUserInfo(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        ByteSearch.contains(UInt8(ascii: "@"), in: bytes) && holdsSchemeSeparator(bytes)
    }

    /// Whether `bytes` hold `://` or JSON's `:\/\/`, where every URL `forEachURL` reads starts.
    private static func holdsSchemeSeparator(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        ["://", ":\\/\\/"].contains { (separator: StaticString) in
            ByteSearch.firstIndex(of: UnsafeBufferPointer(start: separator.utf8Start, count: separator.utf8CodeUnitCount), in: bytes) != nil
        }
    }

    /// Where one URL lies in a text's bytes: its authority (`user:password@host:port`), the `@`
    /// ending its user-info (nil: none), and the end of the whole URL.
    private struct URLSpan {
        let authority: Range<Int>
        let at: Int?
        let end: Int
        var hostStart: Int { at.map { $0 + 1 } ?? authority.lowerBound }
    }

    /// Calls `body` with each URL of `bytes` in order (`scheme://…`, also JSON-escaped as
    /// `scheme:\/\/…`): the one reading of a URL that redaction and `--urls host` share.
    private static func forEachURL(in bytes: UnsafeBufferPointer<UInt8>, _ body: (URLSpan) -> Void) {
        var i = 0
        while i + 3 <= bytes.count {
            // Every URL's separator starts with a colon: the next one by memchr, not byte by byte
            // (a password is looked for in every upload request where the config's url has one).
            guard let colon = ByteSearch.firstIndex(of: UInt8(ascii: ":"), in: bytes, from: i) else { return }
            i = colon
            guard i + 3 <= bytes.count else { return }
            let slash = UInt8(ascii: "/"), backslash = UInt8(ascii: "\\")
            let plain = bytes[i] == UInt8(ascii: ":") && bytes[i + 1] == slash && bytes[i + 2] == slash
            let escaped = !plain && i + 5 <= bytes.count && bytes[i] == UInt8(ascii: ":") && bytes[i + 1] == backslash
                && bytes[i + 2] == slash && bytes[i + 3] == backslash && bytes[i + 4] == slash
            guard plain || escaped else {
                i += 1
                continue
            }
            var schemeStart = i
            while schemeStart > 0, isSchemeByte(bytes[schemeStart - 1]) { schemeStart -= 1 }
            while schemeStart < i, !isLetter(bytes[schemeStart]) { schemeStart += 1 }
            guard schemeStart < i else { i += 3; continue }
            let authorityStart = i + (escaped ? 5 : 3)
            var authorityEnd = authorityStart
            while authorityEnd < bytes.count, !ends(bytes[authorityEnd]), !endsAuthority(bytes[authorityEnd]) {
                authorityEnd += 1
            }
            var urlEnd = authorityEnd
            while urlEnd < bytes.count {
                // In JSON text `\/` is a slash of the URL; any other backslash ends it.
                if escaped, bytes[urlEnd] == backslash, urlEnd + 1 < bytes.count, bytes[urlEnd + 1] == slash {
                    urlEnd += 2
                    continue
                }
                if ends(bytes[urlEnd]) { break }
                urlEnd += 1
            }
            let at = bytes[authorityStart..<authorityEnd].lastIndex(of: UInt8(ascii: "@"))
            body(URLSpan(authority: authorityStart..<authorityEnd, at: at, end: urlEnd))
            i = urlEnd
        }
    }

    private static func isLetter(_ b: UInt8) -> Bool { (b | 0x20) >= UInt8(ascii: "a") && (b | 0x20) <= UInt8(ascii: "z") }

    private static func isSchemeByte(_ b: UInt8) -> Bool {
        isLetter(b) || (b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9")) || b == UInt8(ascii: "+") || b == UInt8(ascii: "-")
            || b == UInt8(ascii: ".")
    }

    /// Where a URL's authority ends, besides where the URL does: its path, query or fragment.
    private static func endsAuthority(_ b: UInt8) -> Bool {
        b == UInt8(ascii: "/") || b == UInt8(ascii: "?") || b == UInt8(ascii: "#")
    }

    /// Where a URL embedded in prose, JSON text or HTML ends.
    private static func ends(_ b: UInt8) -> Bool {
        b <= 0x20 || b == 0x7f || b == UInt8(ascii: "\"") || b == UInt8(ascii: "'") || b == UInt8(ascii: "<")
            || b == UInt8(ascii: ">") || b == UInt8(ascii: "`") || b == UInt8(ascii: "\\")
    }
}
