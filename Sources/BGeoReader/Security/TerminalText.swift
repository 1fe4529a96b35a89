/// Customer text made safe to show as text, on a terminal and in a pipe alike (a pipe often ends
/// in a terminal: `| less -R`, a CI log viewer). A terminal acts on control characters instead of
/// showing them, so a dump could clear the screen, retitle the window or, with a bidi override,
/// make `evil` read as `live`. Every such character is shown as `\u{…}` (lower-case hex, as
/// the timeline always did); everything else is kept.
public enum TerminalText {
    /// True for what a terminal (or a bidi-aware viewer) would act on, or what changes how text
    /// reads without being seen: C0 controls, DEL, C1 controls, the bidi embeddings, overrides,
    /// isolates and marks (U+202E turns `fdp.exe` around), the Unicode line and paragraph
    /// separators, zero-width characters and invisible operators (a uuid with a U+200B inside looks
    /// like another), the byte-order mark, the interlinear annotation marks and the noncharacters
    /// U+FFFE / U+FFFF. Also the scalars that carry a file name's bytes that are not UTF-8
    /// (`RawPath`): no terminal could show those bytes as the name holds them.
    public static func isControl(_ value: UInt32) -> Bool {
        switch value {
        case 0..<0x20, 0x7F...0x9F: return true
        case 0x061C, 0x180E, 0x200B...0x200F, 0x2028...0x202E, 0x2060...0x2069: return true
        case 0xFEFF, 0xFFF9...0xFFFB, 0xFFFE, 0xFFFF: return true
        case RawPath.byteScalars: return true
        default: return false
        }
    }

    /// `text` with every control shown as `\u{…}`; line feeds kept when `keepingNewlines` (whole
    /// documents), escaped otherwise (one field, one line).
    public static func escaped(_ text: String, keepingNewlines: Bool = false) -> String {
        guard needsEscaping(text, keepingNewlines: keepingNewlines) else { return text }
        var out = ""
        out.reserveCapacity(text.utf8.count + 16)
        for scalar in text.unicodeScalars {
            if isControl(scalar.value), !(keepingNewlines && scalar == "\n") {
                out += visible(scalar.value)
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// The shown form of one control: `\u{1b}`; of a file name's byte that is not UTF-8: `\x{ff}`.
    public static func visible(_ value: UInt32) -> String {
        if let byte = RawPath.byte(standingFor: value) { return RawPath.visible(byte) }
        return "\\u{" + String(value, radix: 16) + "}"
    }

    /// Fields longer than this many characters are shortened by `field`.
    public static let fieldLimit = 256
    /// How many characters of a shortened field are kept.
    public static let keptWhenShortened = 64

    /// One field for a text view: escaped, and when longer than `limit` characters, its first 64
    /// followed by `… (70000 chars)`, so a hostile 70,000-character uuid costs one short line.
    /// Counted in Unicode scalars, so a run of combining marks cannot hide its length.
    public static func field(_ text: String, limit: Int = fieldLimit) -> String {
        let scalars = text.unicodeScalars
        guard scalars.count > limit else { return escaped(text) }
        let kept = String(String.UnicodeScalarView(scalars.prefix(keptWhenShortened)))
        return escaped(kept) + "… (\(scalars.count) chars)"
    }

    /// Fast check on the UTF-8 bytes (every row of a million-row export passes here): printable
    /// ASCII costs one comparison; only the lead bytes that can start a control are looked at closely.
    package static func needsEscaping(_ text: String, keepingNewlines: Bool) -> Bool {
        var text = text
        return text.withUTF8 { bytes in
            var last: UInt8 = 0, beforeLast: UInt8 = 0
            for byte in bytes {
                if byte &- 0x20 < 0x5F { last = 0; beforeLast = 0; continue }  // 0x20…0x7E
                if byte < 0x80 {
                    if byte == 0x0A, keepingNewlines { last = 0; beforeLast = 0; continue }
                    return true  // C0, DEL
                }
                if last == 0xC2, byte <= 0x9F { return true }  // U+0080…U+009F
                if last == 0xD8, byte == 0x9C { return true }  // U+061C
                if beforeLast == 0xE1, last == 0xA0, byte == 0x8E { return true }  // U+180E
                if beforeLast == 0xE2 {
                    if last == 0x80, (0x8B...0x8F).contains(byte) || (0xA8...0xAE).contains(byte) { return true }  // U+200B…200F, U+2028…202E
                    if last == 0x81, (0xA0...0xA9).contains(byte) { return true }  // U+2060…2069
                }
                if last == 0xF4, byte == 0x8F { return true }  // U+10F000…: may be a raw byte of a file name (RawPath)
                if beforeLast == 0xEF {
                    if last == 0xBB, byte == 0xBF { return true }  // U+FEFF
                    if last == 0xBF, (0xB9...0xBB).contains(byte) || byte >= 0xBE { return true }  // U+FFF9…FFFB, U+FFFE/F
                }
                beforeLast = last
                last = byte
            }
            return false
        }
    }
}

extension TerminalText {
    /// The SGR codes the tool's own views use (bold, dim, red, green, yellow, cyan, reset): the only
    /// escape sequences a colour view may pass through. Anything else an ESC starts is shown.
    static let ownColourCodes: Set<String> = ["0", "1", "2", "22", "31", "32", "33", "36", "39"]

    /// A sentence that quotes customer data (a warning, a diagnosis line): every control shown
    /// (line feeds too: one sentence stays one line), and every run of more than `fieldLimit`
    /// characters without a space shortened like `field` does — a 70,000-character uuid quoted
    /// in a warning costs one short line, however the sentence was built.
    public static func prose(_ text: String, longestRun: Int = fieldLimit) -> String {
        guard text.unicodeScalars.count > longestRun || needsEscaping(text, keepingNewlines: false) else { return text }
        return forTextView(text, colour: false, keepingNewlines: false, longestRun: longestRun)
    }

    /// Controls shown (line feeds kept when `keepingNewlines`), the tool's own colour codes kept
    /// when `colour`, and every run of more than `longestRun` characters without a space or line
    /// break shortened like `field` does.
    package static func forTextView(_ text: String, colour: Bool, keepingNewlines: Bool, longestRun: Int) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count + 16)
        let scalars = Array(text.unicodeScalars)
        var runStart = 0
        func endRun(at end: Int) {
            guard end > runStart else { return }
            let count = end - runStart
            if count > longestRun {
                var kept = String.UnicodeScalarView()
                kept.append(contentsOf: scalars[runStart..<(runStart + keptWhenShortened)])
                out += escaped(String(kept)) + "… (\(count) chars)"
            } else {
                appendEscaped(scalars[runStart..<end], colour: colour, to: &out)
            }
        }
        for (index, scalar) in scalars.enumerated() where scalar == " " || (keepingNewlines && scalar == "\n") {
            endRun(at: index)
            out.unicodeScalars.append(scalar)
            runStart = index + 1
        }
        endRun(at: scalars.count)
        return out
    }

    private static func appendEscaped(_ run: ArraySlice<Unicode.Scalar>, colour: Bool, to out: inout String) {
        var i = run.startIndex
        while i < run.endIndex {
            let scalar = run[i]
            if colour, scalar == "\u{1B}", let end = ownColourSequenceEnd(run, from: i) {
                out.unicodeScalars.append(contentsOf: run[i..<end])
                i = end
                continue
            }
            if isControl(scalar.value) { out += visible(scalar.value) } else { out.unicodeScalars.append(scalar) }
            i += 1
        }
    }

    /// When `run[start]` (an ESC) begins `ESC [ code m` with one of the tool's own codes, the index after it.
    private static func ownColourSequenceEnd(_ run: ArraySlice<Unicode.Scalar>, from start: Int) -> Int? {
        var i = start + 1
        guard i < run.endIndex, run[i] == "[" else { return nil }
        i += 1
        var code = ""
        while i < run.endIndex, code.count <= 2, ("0"..."9").contains(run[i]) {
            code.unicodeScalars.append(run[i])
            i += 1
        }
        guard i < run.endIndex, run[i] == "m", ownColourCodes.contains(code) else { return nil }
        return i + 1
    }

    /// A text for a data format (CSV; JSON from `JSONWriter` never holds a raw control): controls
    /// shown except tab, carriage return and line feed, which CSV quoting carries. Nothing shortened.
    package static func forDataView(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count + 16)
        for scalar in text.unicodeScalars {
            if isControl(scalar.value), scalar != "\t", scalar != "\r", scalar != "\n" {
                out += visible(scalar.value)
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}
