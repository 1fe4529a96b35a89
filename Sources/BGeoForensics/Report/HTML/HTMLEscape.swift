import BGeoReader

/// The one HTML escaping function every customer string in a report goes through.
public enum HTMLEscape {
    /// Escapes text for element content *and* quoted attribute values: `& < > " '` become
    /// entities, NUL and other C0 controls except tab/newline/CR become U+FFFD (they are parse
    /// errors in HTML and invalid in the XML of inline SVG), so no customer string can open a tag,
    /// close an attribute or start a script. DEL, C1 controls and the scalars that change how
    /// text reads without being seen (a bidi override turns `?token=` around on the page:
    /// `TerminalText.isControl`) are shown as the text views show them (`\u{202e}`).
    public static func escape(_ text: String) -> String {
        var needs = false, nonASCII = false
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "&"), UInt8(ascii: "<"), UInt8(ascii: ">"), UInt8(ascii: "\""), UInt8(ascii: "'"), 0x7F:
                needs = true
            case 0..<0x20 where byte != 0x09 && byte != 0x0A && byte != 0x0D:
                needs = true
            default:
                if byte >= 0x80 { nonASCII = true }
                continue
            }
            if needs { break }
        }
        if !needs, nonASCII { needs = TerminalText.needsEscaping(text, keepingNewlines: true) }
        guard needs else { return text }
        var out = ""
        out.reserveCapacity(text.utf8.count + 16)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default:
                if scalar.value < 0x20, scalar != "\t", scalar != "\n", scalar != "\r" {
                    out += "\u{FFFD}"
                } else if scalar.value >= 0x7F, TerminalText.isControl(scalar.value) {
                    out += TerminalText.visible(scalar.value)
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out
    }
}
