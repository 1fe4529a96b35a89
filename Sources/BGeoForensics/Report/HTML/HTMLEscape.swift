import BGeoReader

/// The one HTML escaping function every customer string in a report goes through.
public enum HTMLEscape {
    /// Escapes text for element content *and* quoted attribute values: `& < > " '` become
    /// entities, NUL and other C0 controls except tab/newline/CR become U+FFFD (they are parse
    /// errors in HTML and invalid in the XML of inline SVG), so no customer string can open a tag,
    /// close an attribute or start a script.
    public static func escape(_ text: String) -> String {
        var needs = false
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "&"), UInt8(ascii: "<"), UInt8(ascii: ">"), UInt8(ascii: "\""), UInt8(ascii: "'"):
                needs = true
            case 0..<0x20 where byte != 0x09 && byte != 0x0A && byte != 0x0D:
                needs = true
            default:
                continue
            }
            if needs { break }
        }
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
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out
    }
}
