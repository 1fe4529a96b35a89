import BGeoReader

/// A pretty JSON document with arrays too long to build (a million decisions): each stands in the
/// tree as a placeholder and is written element by element where it stands, at its indentation,
/// so the bytes are those `JSONWriter(pretty: true)` would write for the whole tree.
public struct StreamedJSONDocument {
    /// How a streamed array's elements are written.
    public enum Style {
        /// Each element on one line, compact; the redactor runs over the element's text.
        case compactLines(Redactor)
        /// Each element pretty-printed like the rest of the document; the redactor runs over the value.
        case pretty(Redactor)
    }

    /// One streamed array: its style and the pass that hands its elements over.
    public struct Array {
        let style: Style
        let elements: ((JSONValue) -> Void) throws -> Void

        public init(_ style: Style, elements: @escaping ((JSONValue) -> Void) throws -> Void) {
            self.style = style
            self.elements = elements
        }
    }

    /// The placeholder for the `n`th streamed array (a string no dump can put in a tree: it carries a control character).
    public static func placeholder(_ n: Int) -> JSONValue { .string(marker(n)) }

    private static func marker(_ n: Int) -> String { "\u{1}streamed-array-\(n)\u{1}" }

    /// Writes `tree` (already redacted) to `output` with `arrays[n]` in place of `placeholder(n)`,
    /// then a newline.
    public static func write(_ tree: JSONValue, arrays: [Array], to output: TextOutput) throws {
        let pretty = JSONWriter(pretty: true), compact = JSONWriter()
        var rest = Substring(pretty.string(tree))
        for (n, array) in arrays.enumerated() {
            let literal = pretty.literal(marker(n))
            guard let range = rest.range(of: literal) else { continue }
            // The member line's indentation: elements one level deeper, the closing bracket at it.
            let lineStart = rest[..<range.lowerBound].lastIndex(of: "\n").map { rest.index(after: $0) } ?? rest.startIndex
            let level = rest[lineStart...].prefix { $0 == " " }.count / 2
            output.writeJSON(String(rest[..<range.lowerBound]))
            var count = 0
            let inner = "\n" + String(repeating: "  ", count: level + 1)
            try array.elements { element in
                var text = count == 0 ? "[" + inner : "," + inner
                switch array.style {
                case .compactLines(let redactor):
                    text += redactor.redact(text: compact.string(element))
                case .pretty(let redactor):
                    pretty.write(redactor.redact(element), into: &text, indent: level + 1)
                }
                output.writeJSON(text)
                count += 1
            }
            output.writeJSON(count == 0 ? "[]" : "\n" + String(repeating: "  ", count: level) + "]")
            rest = rest[range.upperBound...]
        }
        output.jsonLine(String(rest))
    }
}
