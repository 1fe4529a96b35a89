/// Text from a dump made ready for XML element content, written raw (`xmlTextWriterWriteRaw`).
/// Every string from a dump that an XML export writes goes through `escaped` and nothing else,
/// so the rule lives in one place:
/// - markup characters become entities (`&lt;script&gt;` stays text);
/// - characters XML 1.0 forbids, which would make the file unreadable to xmllint, ogrinfo or
///   Google Earth (C0 controls but tab, newline and carriage return; U+FFFE, U+FFFF), are
///   replaced by a visible stand-in: the control picture (`␛` for ESC, `␀` for NUL) or U+FFFD;
/// - invisible characters XML allows (DEL, C1 controls, bidi controls, zero-width characters) and
///   carriage returns become numeric references, so a parser reads the original text back while
///   no raw byte of them is in the file to reorder a terminal that shows it.
/// (Swift strings hold no lone surrogates: invalid UTF-8 from the dump was already read as U+FFFD.)
enum XMLText {
    static func escaped(_ text: String) -> String {
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
            case 0x00...0x1F: out.unicodeScalars.append(Unicode.Scalar(0x2400 + scalar.value)!)
            case 0xFFFE, 0xFFFF: out += "\u{FFFD}"
            case let value where InvisibleCharacters.contains(value):
                out += "&#x" + String(value, radix: 16, uppercase: true) + ";"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}
