/// Customer text made representable in XML 1.0, for every XML output (GPX today; KML or any
/// later one should pass its strings through here too). XML 1.0 cannot hold most C0 controls nor
/// U+FFFE/U+FFFF, not even as character references (`&#x1B;` is a well-formedness error), so a
/// geofence named with an ESC made the GPX unreadable (`xmllint`: "PCDATA invalid Char value
/// 27"). Each such character is written as the text `\u{1b}` instead: visible, the same notation
/// the text views use, and the rest of the string is kept exactly. The markup characters
/// (`&`, `<`, `"`) remain the XML writer's job.
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
}
