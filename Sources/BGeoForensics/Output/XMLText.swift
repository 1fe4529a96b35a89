import BGeoReader

/// Customer text made representable in XML 1.0, for every XML output (GPX, KML). XML 1.0 cannot
/// hold most C0 controls nor U+FFFE/U+FFFF, not even as character references (`&#x1B;` is a
/// well-formedness error), so a geofence named with an ESC made the GPX unreadable (`xmllint`:
/// "PCDATA invalid Char value 27"). Each such character is written as the text `\u{1b}` instead:
/// visible, the same notation the text views use, and the rest of the string is kept exactly.
/// `sanitized` leaves the markup characters (`&`, `<`, `"`) to an XML writer that escapes them
/// (libxml2's, for GPX); `escaped` escapes them too, for text written raw.
public enum XMLText {
    /// XML 1.0 `Char`: #x9 | #xA | #xD | [#x20-#xD7FF] | [#xE000-#xFFFD] | [#x10000-#x10FFFF].
    public static func isAllowed(_ value: UInt32) -> Bool {
        switch value {
        case 0x09, 0x0A, 0x0D, 0x20...0xD7FF, 0xE000...0xFFFD, 0x10000...0x10FFFF: return true
        default: return false
        }
    }

    /// `text` with every character XML 1.0 cannot hold written as `\u{…}`.
    public static func sanitized(_ text: String) -> String {
        guard needsSanitizing(text) else { return text }
        var out = ""
        out.reserveCapacity(text.utf8.count + 16)
        for scalar in text.unicodeScalars {
            if isAllowed(scalar.value) {
                out.unicodeScalars.append(scalar)
            } else {
                out += TerminalText.visible(scalar.value)
            }
        }
        return out
    }

    /// Byte-level check: a C0 control other than tab/LF/CR, or U+FFFE/U+FFFF (EF BF BE/BF).
    static func needsSanitizing(_ text: String) -> Bool {
        var previous: UInt8 = 0
        var beforePrevious: UInt8 = 0
        for byte in text.utf8 {
            if byte < 0x20, byte != 0x09, byte != 0x0A, byte != 0x0D { return true }
            if beforePrevious == 0xEF, previous == 0xBF, byte == 0xBE || byte == 0xBF { return true }
            beforePrevious = previous
            previous = byte
        }
        return false
    }

    /// `text` ready to be written raw as element content (KML's writer assembles its markup
    /// itself): markup characters as entities (`&lt;script&gt;` stays text), what XML 1.0 cannot
    /// hold shown as `sanitized` shows it, and the invisible characters XML allows (DEL, C1
    /// controls, bidi controls, zero-width characters, see `TerminalText.isControl`) and carriage
    /// returns as character references: a parser reads the original text back, while no raw byte
    /// of them is in the file to rearrange a terminal or viewer that shows it.
    public static func escaped(_ text: String) -> String {
        if text.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F && $0 != 0x26 && $0 != 0x3C && $0 != 0x3E && $0 != 0x22 }) {
            return text
        }
        var out = ""
        out.reserveCapacity(text.utf8.count + 16)
        for scalar in text.unicodeScalars {
            switch scalar.value {
            case 0x26: out += "&amp;"
            case 0x3C: out += "&lt;"
            case 0x3E: out += "&gt;"
            case 0x22: out += "&quot;"
            case 0x09, 0x0A: out.unicodeScalars.append(scalar)
            case 0x0D: out += "&#xD;"
            case let value where !isAllowed(value): out += TerminalText.visible(value)
            case let value where TerminalText.isControl(value): out += "&#x" + String(value, radix: 16, uppercase: true) + ";"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}
