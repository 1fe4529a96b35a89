/// URLs anywhere in a text (`scheme://authority/path?query#fragment`): the user-info part
/// (`user:password@`) is always replaced by its fingerprint — it is a credential — and with
/// `--urls host` everything after `scheme://host[:port]` is removed (the customer's paths and
/// query strings say which API, tenant and account the device talks to).
enum URLReducer {
    static func apply(_ text: String, policy: URLPolicy) -> String {
        guard Redactor.contains(text, "://") else { return text }
        let bytes = Array(text.utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var copied = 0
        var i = 0
        while i + 3 <= bytes.count {
            guard bytes[i] == UInt8(ascii: ":"), bytes[i + 1] == UInt8(ascii: "/"), bytes[i + 2] == UInt8(ascii: "/") else {
                i += 1
                continue
            }
            var schemeStart = i
            while schemeStart > 0, isSchemeByte(bytes[schemeStart - 1]) { schemeStart -= 1 }
            while schemeStart < i, !isLetter(bytes[schemeStart]) { schemeStart += 1 }
            guard schemeStart < i else { i += 3; continue }
            let authorityStart = i + 3
            var authorityEnd = authorityStart
            while authorityEnd < bytes.count, !ends(bytes[authorityEnd]),
                  ![UInt8(ascii: "/"), UInt8(ascii: "?"), UInt8(ascii: "#")].contains(bytes[authorityEnd]) {
                authorityEnd += 1
            }
            var urlEnd = authorityEnd
            while urlEnd < bytes.count, !ends(bytes[urlEnd]) { urlEnd += 1 }
            let at = bytes[authorityStart..<authorityEnd].lastIndex(of: UInt8(ascii: "@"))
            let hostStart = at.map { $0 + 1 } ?? authorityStart
            let keepsTail = policy == .keep
            guard at != nil || (!keepsTail && urlEnd > authorityEnd) else { i = urlEnd; continue }
            out.append(contentsOf: bytes[copied..<authorityStart])
            if let at, keepsTail, at > authorityStart {
                let userInfo = String(decoding: bytes[authorityStart..<at], as: UTF8.self)
                out.append(contentsOf: Array(Redactor.fingerprint(userInfo).utf8))
                out.append(UInt8(ascii: "@"))
            }
            out.append(contentsOf: bytes[hostStart..<authorityEnd])
            if keepsTail { out.append(contentsOf: bytes[authorityEnd..<urlEnd]) }
            copied = urlEnd
            i = urlEnd
        }
        guard copied > 0 else { return text }
        out.append(contentsOf: bytes[copied...])
        return String(decoding: out, as: UTF8.self)
    }

    private static func isLetter(_ b: UInt8) -> Bool { (b | 0x20) >= UInt8(ascii: "a") && (b | 0x20) <= UInt8(ascii: "z") }

    private static func isSchemeByte(_ b: UInt8) -> Bool {
        isLetter(b) || (b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9")) || b == UInt8(ascii: "+") || b == UInt8(ascii: "-")
            || b == UInt8(ascii: ".")
    }

    /// Where a URL embedded in prose, JSON text or HTML ends.
    private static func ends(_ b: UInt8) -> Bool {
        b <= 0x20 || b == 0x7f || b == UInt8(ascii: "\"") || b == UInt8(ascii: "'") || b == UInt8(ascii: "<")
            || b == UInt8(ascii: ">") || b == UInt8(ascii: "`") || b == UInt8(ascii: "\\")
    }
}
