import Foundation

/// The free-text layer of `Redactor`: searches and rules that find credentials by their shape
/// rather than by knowing them (JWTs, Bearer credentials, credential pairs).
extension Redactor {
    /// Byte search (`ByteSearch`): a report redacts thousands of short texts against every known
    /// secret, and Foundation's `range(of:)` costs a bridge per call.
    static func contains(_ text: String, _ needle: String) -> Bool {
        var text = text, needle = needle
        return text.withUTF8 { t in needle.withUTF8 { n in ByteSearch.firstIndex(of: n, in: t) != nil } }
    }

    /// `contains` on bytes.
    package static func contains(bytes: [UInt8], _ needle: String) -> Bool {
        var needle = needle
        return bytes.withUnsafeBufferPointer { t in needle.withUTF8 { n in ByteSearch.firstIndex(of: n, in: t) != nil } }
    }

    /// "bearer " in any letter case (ASCII), as `scrubBearer` looks for it.
    static func containsBearer(_ text: String) -> Bool {
        let word: [UInt8] = Array("bearer ".utf8)
        var text = text
        return text.withUTF8 { t in
            guard t.count >= word.count else { return false }
            for start in 0...(t.count - word.count) where t[start] | 0x20 == word[0] {
                var i = 1
                while i < word.count, (i == word.count - 1 ? t[start + i] : t[start + i] | 0x20) == word[i] { i += 1 }
                if i == word.count { return true }
            }
            return false
        }
    }

    /// Replaces `eyJ….….…` (a JWT: base64url header, payload, signature) wherever it stands.
    static func scrubJWTs(_ text: String) -> String {
        String(decoding: scrubJWTs(bytes: Array(text.utf8)), as: UTF8.self)
    }

    /// `scrubJWTs` on bytes that need not be text (a BLOB holding a token).
    package static func scrubJWTs(bytes: [UInt8]) -> [UInt8] {
        var out = [UInt8]()
        out.reserveCapacity(bytes.count)
        var i = 0
        func isB64(_ b: UInt8) -> Bool {
            (b >= 65 && b <= 90) || (b >= 97 && b <= 122) || (b >= 48 && b <= 57) || b == 45 || b == 95 || b == 61
        }
        while i < bytes.count {
            if i + 3 <= bytes.count, bytes[i] == 101, bytes[i + 1] == 121, bytes[i + 2] == 74,
               i == 0 || !isB64(bytes[i - 1]) || bytes[i - 1] == 61 {
                var j = i
                var dots = 0
                while j < bytes.count, isB64(bytes[j]) || (bytes[j] == 46 && dots < 2) {
                    if bytes[j] == 46 { dots += 1 }
                    j += 1
                }
                if dots == 2, j - i >= 20 {
                    let token = String(decoding: bytes[i..<j], as: UTF8.self)
                    out.append(contentsOf: Array(fingerprint(token).utf8))
                    i = j
                    continue
                }
            }
            out.append(bytes[i])
            i += 1
        }
        return out
    }

    static func scrubBearer(_ text: String) -> String {
        var result = ""
        var rest = Substring(text)
        while let range = rest.range(of: "bearer ", options: .caseInsensitive) {
            result += rest[..<range.upperBound]
            rest = rest[range.upperBound...]
            let token = rest.prefix { !$0.isWhitespace && $0 != "\"" && $0 != "'" && $0 != "," && $0 != "}" }
            if token.count >= 6, !token.hasPrefix("‹redacted") {
                result += fingerprint(String(token))
                rest = rest.dropFirst(token.count)
            }
        }
        return result + rest
    }

    /// Replaces the value of every credential pair whose name is sensitive (`SecretRules`):
    /// `name=value`, `name: value` (a header line in a message: `X-Api-Key: sk_live_…`), and
    /// `"name": "value"` with any spacing (`"access_token" : "…"`, broken or truncated JSON).
    /// An `Authorization` value is taken whole to the end of its line or quote, so a scheme's
    /// credentials (`Basic dXNl…`, `Digest username=…`) go with it.
    static func scrubPairs(_ text: String) -> String {
        // Bytes, not `String.contains(_:)`: with Foundation imported that is `range(of:)`, a
        // bridge per call (8 % of `logs` on a stranded dump, where every URL is redacted).
        guard text.utf8.contains(UInt8(ascii: "=")) || text.utf8.contains(UInt8(ascii: ":")) else { return text }
        // Most texts the name filter lets through (a URL holding "auth", say) pair no sensitive
        // name: told from the bytes, without walking the text character by character.
        switch hasSensitivePair(text) {
        case false?: return text
        // An ASCII text: its bytes are its characters (but a CR LF, one character), so the scrub
        // runs on them (`scrubPairsInBytes`): walking characters was 44 % of `timeline` where
        // every request's URL holds `?sig=…` (stop 48).
        case true?: return scrubPairsInBytes(text) ?? scrubPairsInFull(text)
        case nil: return scrubPairsInFull(text)
        }
    }

    /// Whether some `=` or `:` in `text` follows a sensitive pair name, read as `scrubPairsInFull`
    /// reads names (trailing blanks, a quote and its escape dropped; letters, digits, `_ - .`).
    /// False means the scrub leaves the text as it is. Nil for text that is not ASCII, whose
    /// characters are not its bytes.
    static func hasSensitivePair(_ text: String) -> Bool? {
        var text = text
        return text.withUTF8 { bytes -> Bool? in
            for byte in bytes where byte >= 0x80 { return nil }
            for sep in bytes.indices where bytes[sep] == 0x3D || bytes[sep] == 0x3A {
                var end = sep
                while end > 0, bytes[end - 1] == 0x20 || bytes[end - 1] == 0x09 { end -= 1 }
                if end > 0, bytes[end - 1] == 0x22 {
                    end -= 1
                    if end > 0, bytes[end - 1] == 0x5C { end -= 1 }
                }
                var start = end
                while start > 0, isPairNameByte(bytes[start - 1]) { start -= 1 }
                if start < end, SecretRules.isSensitivePairName(String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self)) {
                    return true
                }
            }
            return false
        }
    }

    /// The scrub itself, character by character (`scrubPairs` without its shortcut).
    static func scrubPairsInFull(_ text: String) -> String {
        var out = ""
        var rest = Substring(text)
        while let sep = rest.firstIndex(where: { $0 == "=" || $0 == ":" }) {
            var before = rest[..<sep]
            while before.last == " " || before.last == "\t" { before = before.dropLast() }
            let quotedName = before.last == "\""
            if quotedName { before = before.dropLast() }
            if quotedName, before.last == "\\" { before = before.dropLast() }  // `\"name\":` inside JSON text
            let nameStart = before.lastIndex { !($0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" || $0 == ".") }
                .map { before.index(after: $0) } ?? before.startIndex
            let name = String(before[nameStart...])
            out += rest[...sep]
            rest = rest[rest.index(after: sep)...]
            guard !name.isEmpty, SecretRules.isSensitivePairName(name) else { continue }
            let spaces = rest.prefix { $0 == " " || $0 == "\t" }
            guard rest.dropFirst(spaces.count).first != "/" else { continue }  // a URL's "//", not a value
            out += spaces
            rest = rest.dropFirst(spaces.count)
            let opening = rest.hasPrefix("\\\"") ? rest.prefix(2) : rest.first == "\"" || rest.first == "'" ? rest.prefix(1) : nil
            if let opening, let quote = opening.last {
                out += opening
                rest = rest.dropFirst(opening.count)
                var value = rest.prefix { $0 != quote }
                if value.hasSuffix("\\") { value = value.dropLast() }  // `\"` inside JSON text ends at the escape
                replace(value, in: &rest, into: &out)
                continue
            }
            if quotedName, rest.first != nil { continue }  // `"name": 12` or an object: no string to replace
            let authorization = name.lowercased().hasSuffix("authorization")
            let stops = authorization ? authorizationValueStops : pairValueStops
            let value = rest.prefix { !stops.contains($0) }
            // `name: word` in prose ("token: expired") is a sentence, not a header line: a bare
            // colon value counts when it looks like a credential (not only lower-case letters).
            if !authorization, text[sep] == ":",
               value.count < 16, value.allSatisfy({ $0.isLowercase && $0.isLetter }) { continue }
            replace(value, in: &rest, into: &out)
        }
        return out + rest
    }

    /// `scrubPairsInFull` on the bytes of an ASCII text without a CR LF (there every byte is one
    /// character); nil for any other text. The character walk stays the definition
    /// (`PairScrubShortcutTests` compares the two on random texts).
    static func scrubPairsInBytes(_ text: String) -> String? {
        var text = text
        return text.withUTF8 { t -> String? in
            let n = t.count
            for i in 0..<n where t[i] >= 0x80 || (t[i] == 0x0D && i + 1 < n && t[i + 1] == 0x0A) { return nil }
            let space = UInt8(ascii: " "), tab = UInt8(ascii: "\t"), quote = UInt8(ascii: "\""), backslash = UInt8(ascii: "\\")
            var out: [UInt8] = []
            out.reserveCapacity(n + 64)
            var rest = 0
            /// `t[rest..<end]` as its fingerprint, unless `replace`'s rule keeps it.
            func replace(upTo end: Int) {
                let value = String(decoding: UnsafeBufferPointer(rebasing: t[rest..<end]), as: UTF8.self)
                guard end - rest >= 4, !isTemplate(value) else { return }
                out.append(contentsOf: fingerprint(value).utf8)
                rest = end
            }
            while let sep = (rest..<n).first(where: { t[$0] == UInt8(ascii: "=") || t[$0] == UInt8(ascii: ":") }) {
                var end = sep
                while end > rest, t[end - 1] == space || t[end - 1] == tab { end -= 1 }
                let quotedName = end > rest && t[end - 1] == quote
                if quotedName { end -= 1 }
                if quotedName, end > rest, t[end - 1] == backslash { end -= 1 }
                var start = end
                while start > rest, isPairNameByte(t[start - 1]) { start -= 1 }
                let name = String(decoding: UnsafeBufferPointer(rebasing: t[start..<end]), as: UTF8.self)
                out.append(contentsOf: UnsafeBufferPointer(rebasing: t[rest...sep]))
                rest = sep + 1
                guard !name.isEmpty, SecretRules.isSensitivePairName(name) else { continue }
                var spaces = rest
                while spaces < n, t[spaces] == space || t[spaces] == tab { spaces += 1 }
                guard spaces == n || t[spaces] != UInt8(ascii: "/") else { continue }  // a URL's "//", not a value
                out.append(contentsOf: UnsafeBufferPointer(rebasing: t[rest..<spaces]))
                rest = spaces
                let opening = rest + 1 < n && t[rest] == backslash && t[rest + 1] == quote ? 2
                    : rest < n && (t[rest] == quote || t[rest] == UInt8(ascii: "'")) ? 1 : 0
                if opening > 0 {
                    let closing = t[rest + opening - 1]
                    out.append(contentsOf: UnsafeBufferPointer(rebasing: t[rest..<(rest + opening)]))
                    rest += opening
                    var end = rest
                    while end < n, t[end] != closing { end += 1 }
                    if end > rest, t[end - 1] == backslash { end -= 1 }  // `\"` inside JSON text ends at the escape
                    replace(upTo: end)
                    continue
                }
                if quotedName, rest < n { continue }  // `"name": 12` or an object: no string to replace
                let authorization = name.lowercased().hasSuffix("authorization")
                let stops = authorization ? Redactor.authorizationValueStopBytes : Redactor.pairValueStopBytes
                var valueEnd = rest
                while valueEnd < n, !stops[Int(t[valueEnd])] { valueEnd += 1 }
                // `name: word` in prose is a sentence, not a header line (as `scrubPairsInFull`).
                if !authorization, t[sep] == UInt8(ascii: ":"), valueEnd - rest < 16,
                   (rest..<valueEnd).allSatisfy({ t[$0] >= 0x61 && t[$0] <= 0x7A }) { continue }
                replace(upTo: valueEnd)
            }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: t[rest..<n]))
            return String(decoding: out, as: UTF8.self)
        }
    }

    /// The characters that end a pair's bare value; an `Authorization` value runs to its line's end
    /// or quote, so a scheme's credentials go with it.
    private static let pairValueStops = "&#; \"',}\n\r\t<>)]\\"
    private static let authorizationValueStops = "\n\r\"'<>{}"
    /// The same lists as tables by byte, for `scrubPairsInBytes`.
    private static let pairValueStopBytes = stopTable(pairValueStops)
    private static let authorizationValueStopBytes = stopTable(authorizationValueStops)
    private static func stopTable(_ stops: String) -> [Bool] {
        (0..<256).map { b in stops.utf8.contains(UInt8(b)) }
    }

    /// A byte a pair's name may hold (ASCII letters, digits, `_ - .`): the name rule of
    /// `scrubPairsInFull` on ASCII text, where a byte is a character.
    @inline(__always) private static func isPairNameByte(_ b: UInt8) -> Bool {
        (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) || b == 0x5F || b == 0x2D || b == 0x2E
    }

    /// `value` (the start of `rest`) as its fingerprint in `out`, unless it is too short to be a
    /// credential, holds a fingerprint already or is an SDK template (`{refreshToken}`).
    private static func replace(_ value: Substring, in rest: inout Substring, into out: inout String) {
        guard value.count >= 4, !value.contains("‹redacted"), !isTemplate(String(value)) else { return }
        out += fingerprint(String(value))
        rest = rest.dropFirst(value.count)
    }
}
