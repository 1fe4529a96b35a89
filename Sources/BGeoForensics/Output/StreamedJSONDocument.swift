import BGeoReader

/// A pretty JSON document with arrays too long to build (a million decisions): each stands in the
/// tree as a placeholder and is written element by element where it stands, at its indentation,
/// so the bytes are those `JSONWriter(pretty: true)` would write for the whole tree.
public struct StreamedJSONDocument {
    /// How a streamed array's elements are written.
    public enum Style: Sendable {
        /// Each element on one line, compact; the redactor runs over the element's text.
        case compactLines(Redactor)
        /// Each element pretty-printed like the rest of the document; the redactor runs over the value.
        case pretty(Redactor)
    }

    /// One streamed array: its style and its elements.
    public struct Array {
        enum Elements {
            /// A pass that hands the elements over, one after the other (a tape read once).
            case passed(((JSONValue) -> Void) throws -> Void)
            /// Elements at hand by index: written in blocks, two at a time (`OrderedBlocks`).
            case indexed(count: Int, element: @Sendable (Int) -> JSONValue)
        }

        let style: Style
        let elements: Elements

        public init(_ style: Style, elements: @escaping ((JSONValue) -> Void) throws -> Void) {
            self.style = style
            self.elements = .passed(elements)
        }

        /// `count` elements at hand, `element(i)` the `i`th: made on two threads, written in order.
        public init(_ style: Style, count: Int, element: @escaping @Sendable (Int) -> JSONValue) {
            self.style = style
            self.elements = .indexed(count: count, element: element)
        }
    }

    /// The placeholder for the `n`th streamed array (a string no dump can put in a tree: it carries a control character).
    public static func placeholder(_ n: Int) -> JSONValue { .string(marker(n)) }

    private static func marker(_ n: Int) -> String { "\u{1}streamed-array-\(n)\u{1}" }

    /// Writes `tree` (already redacted) to `output` with `arrays[n]` in place of `placeholder(n)`,
    /// then a newline. Works in bytes: the tree's text is searched for each placeholder and the
    /// elements are written straight into the output's buffer; an indexed array's elements are
    /// made `blockSize` at a time.
    public static func write(_ tree: JSONValue, arrays: [Array], to output: TextOutput, blockSize: Int = 2048) throws {
        let pretty = JSONWriter(pretty: true)
        var text: [UInt8] = []
        pretty.write(tree, into: &text, indent: 0)
        // Each array where its placeholder stands, in the text's order (not the arrays' numbers:
        // a caller's own arrays may stand before or after those it is given).
        var placed: [(at: Int, literal: [UInt8], array: Array)] = []
        for (n, array) in arrays.enumerated() {
            let literal = Swift.Array(pretty.literal(marker(n)).utf8)
            guard let at = text.withUnsafeBufferPointer({ t in
                literal.withUnsafeBufferPointer { ByteSearch.firstIndex(of: $0, in: t, from: 0) }
            }) else { continue }
            placed.append((at, literal, array))
        }
        var rest = 0
        for (at, literal, array) in placed.sorted(by: { $0.at < $1.at }) {
            // The member line's indentation: elements one level deeper, the closing bracket at it.
            let lineStart = text[rest..<at].lastIndex(of: 0x0A).map { $0 + 1 } ?? rest
            let level = text[lineStart...].prefix { $0 == 0x20 }.count / 2
            output.writeJSONBytes { $0.append(contentsOf: text[rest..<at]) }
            var count = 0
            switch array.elements {
            case .passed(let elements):
                try elements { element in
                    output.writeJSONBytes { append(element, first: count == 0, level: level, style: array.style, to: &$0) }
                    count += 1
                }
            case .indexed(let total, let element):
                let style = array.style
                try OrderedBlocks.make(count: total, blockSize: blockSize, apart: { block in
                    var bytes: [UInt8] = []
                    for i in block { append(element(i), first: i == 0, level: level, style: style, to: &bytes) }
                    return bytes
                }, here: { block in
                    output.writeJSONBytes { out in
                        for i in block { append(element(i), first: i == 0, level: level, style: style, to: &out) }
                    }
                }, take: { bytes in output.writeJSONBytes { $0.append(contentsOf: bytes) } })
                count = total
            }
            output.writeJSONBytes { out in
                if count == 0 {
                    out.append(contentsOf: "[]".utf8)
                } else {
                    out.append(0x0A)
                    out.append(contentsOf: repeatElement(0x20, count: 2 * level))
                    out.append(0x5D)
                }
            }
            rest = at + literal.count
        }
        output.writeJSONBytes { out in
            out.append(contentsOf: text[rest...])
            out.append(0x0A)
        }
    }

    /// One element: its separator, its line's indentation, its text.
    private static func append(_ element: JSONValue, first: Bool, level: Int, style: Style, to out: inout [UInt8]) {
        out.append(first ? 0x5B : 0x2C)
        out.append(0x0A)
        out.append(contentsOf: repeatElement(0x20, count: 2 * (level + 1)))
        switch style {
        case .compactLines(let redactor):
            out.append(contentsOf: redactor.redact(text: JSONWriter().string(element)).utf8)
        case .pretty(let redactor):
            JSONWriter(pretty: true).write(redactor.redact(element), into: &out, indent: level + 1)
        }
    }
}
