import Foundation
import Testing
@testable import BGeoReader
@testable import BGeoForensics
@testable import BGeoSimulation

/// `JSONWriter` writes a string that needs escapes run by run from its UTF-8; the reference
/// here is the scalar-by-scalar writer it replaced. On random strings of quotes, backslashes,
/// controls (C0, DEL, C1, bidi, U+2028/9, BOM), HTML specials and multi-byte scalars (2, 3 and
/// 4 bytes, combining marks after an escape) both must write the same bytes, HTML-safe or not.
@Suite struct JSONWriterEscapeTests {
    static func reference(_ s: String, htmlSafe: Bool) -> String {
        var out = "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case "<" where htmlSafe: out += "\\u003c"
            case ">" where htmlSafe: out += "\\u003e"
            case "&" where htmlSafe: out += "\\u0026"
            default:
                if TerminalText.isControl(scalar.value) {
                    let hex = String(scalar.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }

    @Test(arguments: [false, true])
    func runsAreWrittenAsScalarByScalar(htmlSafe: Bool) {
        var rng = SplitMix64(seed: htmlSafe ? 77 : 78)
        let pieces: [String] = ["a", "uuid", "0123456789abcdef", "\"", "\\", "\n", "\r", "\t", "\u{0}", "\u{1F}", "\u{7F}",
                                "\u{80}", "\u{9F}", "\u{A0}", "é", "e\u{301}", "\"\u{301}", "\u{61C}", "\u{180E}", "\u{200B}",
                                "\u{202E}", "\u{2028}", "\u{2069}", "\u{FEFF}", "\u{FFFD}", "\u{FFFE}", "\u{FFFF}", "€", "日本",
                                "😀", "\u{10FFFF}", "\u{E0001}", "<", ">", "&", "</script>", " ", "{\"k\":[1,2]}"]
        var written = 0
        for _ in 0..<4000 {
            var s = ""
            for _ in 0..<rng.int(0...24) { s += pieces[rng.int(0...(pieces.count - 1))] }
            var out = ""
            JSONWriter(htmlSafe: htmlSafe).writeString(s, into: &out)
            #expect(Array(out.utf8) == Array(Self.reference(s, htmlSafe: htmlSafe).utf8), "\(Array(s.unicodeScalars.map(\.value)))")
            if out.utf8.count > s.utf8.count + 2 { written += 1 }
        }
        #expect(written > 3000)
    }
}
