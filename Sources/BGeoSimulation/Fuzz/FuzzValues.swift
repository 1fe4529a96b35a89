import BGeoForensics
/// The hostile material the fuzz suite plants in dumps: strings that attack a terminal, an XML,
/// HTML or CSV reader, or a length assumption; numbers that do not fit; JSON that is broken,
/// wrong-typed or nested too deep. Each value is what a phone (or an app's customer data) could
/// really hold; none needs the tool to be wrong to be written.
enum FuzzValues {
    static let strings: [String] = [
        "\u{1B}[2J\u{1B}[H", "\u{1B}]0;owned\u{07}", "evil\u{202E}txt.exe", "\u{2066}rtl\u{2069}", "nul\u{0}byte",
        "\u{FFFE}\u{FFFF}", "<script>alert(1)</script>", "\"'&<>]]>", "line\r\nbreak", "c1\u{85}\u{9B}31m", "\u{7F}del",
        "", " ", "tab\there", "=cmd|' /C calc'!A0", "%s%n%x", "../../etc/passwd", "😀👨‍👩‍👧", "e\u{301}\u{301}\u{301}",
        "NaN", "Infinity", "-0", "1e999", "null", "true", "2026-02-30T25:61:61Z", "2026-07-24T09:14:32.1111111111111111111Z",
        "0000-01-01T00:00:00Z", "9999-12-31T23:59:59.999Z", "\u{2028}\u{2029}", "\u{200F}\u{061C}",
    ]

    /// JSON number texts that parse but do not fit what they stand for.
    static let numberTexts = [
        "1e308", "-1e308", "1e400", "-1e400", "-0.0", "9223372036854775807", "9223372036854775808", "-9223372036854775809",
        "1e16", "1e19", "-1e19", "5e-324", "123456789012345678901234567890", "0", "-1", "4294967296", "1e15", "99999999999",
    ]

    /// Record / data texts that are not JSON objects.
    static let brokenJSON = [
        "", "{", "}", "[", "{\"coords\":{\"latitude\":NaN,\"longitude\":1}}", "{\"a\":1,}", "{'single':1}", "null", "[]",
        "\"just a string\"", "42", "{\"coords\":", "{\"uuid\":\"x\"} trailing", "{\"a\":\"\\ud800\"}", "{\"a\":\"\\u00\"}",
        "\u{FEFF}{\"a\":1}", "/* c */ {}", "{\"a\":Infinity}", "{\"a\":-}",
    ]

    /// Values to put where a JSON field is expected, as JSON text.
    static func jsonValue(_ rng: inout SplitMix64) -> String {
        switch rng.int(0...7) {
        case 0: return numberTexts[rng.int(0...(numberTexts.count - 1))]
        case 1: return JSONValue.string(string(&rng)).jsonText
        case 2: return ["{}", "[]", "true", "false", "null", "{\"nested\":{\"deeper\":[1,2,{\"x\":null}]}}"][rng.int(0...5)]
        case 3: return nested(depth: [10, 200, 511, 513, 3000][rng.int(0...4)], rng: &rng)
        case 4: return JSONValue.string(huge(&rng)).jsonText
        case 5: return "[" + (0..<rng.int(1...3000)).map { String($0) }.joined(separator: ",") + "]"
        case 6: return "\"" + String(repeating: "\\u0000\\u001b", count: rng.int(1...50)) + "\""
        default: return JSONValue.string(["1e16", "abc", "", "NaN", "-5"][rng.int(0...4)]).jsonText
        }
    }

    static func string(_ rng: inout SplitMix64) -> String {
        rng.chance(0.15) ? huge(&rng) : strings[rng.int(0...(strings.count - 1))]
    }

    /// 70,000 characters of one kind (ASCII, combining marks, controls, wide characters).
    static func huge(_ rng: inout SplitMix64) -> String {
        let unit = ["x", "\u{301}", "\u{1B}", "界", "a b ", "\u{202E}"][rng.int(0...5)]
        return String(repeating: unit, count: 70_000 / max(1, unit.count))
    }

    /// `[[[…]]]` nested `depth` deep (the parsers stop at 512).
    static func nested(depth: Int, rng: inout SplitMix64) -> String {
        let object = rng.chance(0.5)
        if object {
            return String(repeating: "{\"a\":", count: depth) + "1" + String(repeating: "}", count: depth)
        }
        return String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
    }

    /// A JWT-shaped token whose payload carries `exp` as the given JSON text.
    static func jwt(exp: String) -> String {
        func base64URL(_ text: String) -> String {
            Array(text.utf8).base64URLEncoded()
        }
        return base64URL("{\"alg\":\"HS256\"}") + "." + base64URL("{\"sub\":\"dev\",\"exp\":\(exp)}") + ".c2ln"
    }
}

extension Array where Element == UInt8 {
    /// Base64url without padding.
    func base64URLEncoded() -> String {
        let table = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
        var out: [UInt8] = []
        var i = 0
        while i < count {
            let b0 = self[i], b1 = i + 1 < count ? self[i + 1] : 0, b2 = i + 2 < count ? self[i + 2] : 0
            out.append(table[Int(b0 >> 2)])
            out.append(table[Int((b0 & 3) << 4 | b1 >> 4)])
            if i + 1 < count { out.append(table[Int((b1 & 15) << 2 | b2 >> 6)]) }
            if i + 2 < count { out.append(table[Int(b2 & 63)]) }
            i += 3
        }
        return String(decoding: out, as: UTF8.self)
    }
}
