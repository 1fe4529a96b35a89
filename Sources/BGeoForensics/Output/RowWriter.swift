import BGeoReader

/// Output formats for row listings.
public enum RowFormat: String, Sendable, CaseIterable {
    case table, csv, ndjson, json
}

/// Streams rows in one of the RowFormats. Tables align on the first rows seen (long cells are
/// cut with "…") so a million-row listing never has to be held in memory. Table cells are
/// customer text: line breaks become spaces and every other control is shown as `\u{…}`
/// before a cell is measured; CSV goes out through `TextOutput.dataLine(fields:)` as `CSVField`s,
/// JSON through `writeJSON`.
public final class RowWriter {
    private let format: RowFormat
    private let columns: [String]
    private let output: TextOutput
    private var pending: [[String]] = []
    private var widths: [Int]?
    private var rowCount = 0
    private let jsonWriter = JSONWriter()
    private let sampleSize = 200
    private let maxWidth = RowWriter.tableWidth
    /// The widest a table column grows; a longer cell is cut to this many characters.
    static let tableWidth = 60

    /// In a table, how many bytes of a cell are shown at most: a listing may give a cell's start
    /// of at least this many bytes instead of the whole (a 60 MB log row shows 60 characters),
    /// when that start, as a table shows it, cuts as the whole would (`cutsAsWhole`). Nil in
    /// the other formats, which write every cell whole.
    public var cellStartBytes: Int? { format == .table ? 4_096 : nil }

    /// Whether a cell's start (`complete`: the whole cell) is tabled as the whole cell would be:
    /// shown as a table shows it, it cuts at a column's width as the whole would
    /// (`RedactedJSONText.cutsAsWhole`).
    static func cutsAsWhole(_ start: String, complete: Bool) -> Bool {
        RedactedJSONText.cutsAsWhole(tableCell(start), complete: complete, at: tableWidth)
    }

    public init(format: RowFormat, columns: [String], output: TextOutput) {
        self.format = format
        self.columns = columns
        self.output = output
        switch format {
        case .csv: output.dataLine(fields: columns.map(CSVField.init), separator: UInt8(ascii: ","))
        case .json: output.writeJSON("[")
        default: break
        }
    }

    /// Writes one row: `cells` for table/csv, `json` for ndjson/json. Only the form the format
    /// shows is built (each cell of a listing is a redaction scan: a JSON listing built and threw
    /// away twelve per row).
    public func row(cells: @autoclosure () -> [String], json: @autoclosure () -> JSONValue) {
        row(cells: cells(), jsonText: jsonWriter.string(json()))
    }

    /// `row(cells:json:)` with the JSON already written in `JSONWriter()`'s form (a listing that
    /// copies stored records through: `LocationListing.jsonText`).
    public func row(cells: @autoclosure () -> [String], jsonText: @autoclosure () -> String) {
        defer { rowCount += 1 }
        switch format {
        case .csv:
            output.dataLine(fields: cells().map(CSVField.init), separator: UInt8(ascii: ","))
        case .ndjson:
            output.jsonLine(jsonText())
        case .json:
            output.writeJSON(rowCount == 0 ? "\n" : ",\n")
            output.writeJSON(jsonText())
        case .table:
            let cells = cells().map(RowWriter.tableCell)
            if widths == nil {
                pending.append(cells)
                if pending.count >= sampleSize { flushPending() }
            } else {
                writeTableRow(cells)
            }
        }
    }

    /// Whether rows go out as JSON (`ndjson`, `json`): then a listing may write a row's JSON as
    /// bytes (`jsonRow`).
    public var writesJSON: Bool { format == .ndjson || format == .json }

    /// A listing's loop. `read` reads the rows, offering each one's view to the taker it is given
    /// (nil: none) before building it. In a JSON format the taker writes the row as `bytes` when
    /// they can (`jsonRow`); every other row is built and written from `cells` / `jsonText`.
    func listRows<Row, View>(_ read: (_ taker: ((View) -> Bool)?, _ built: (Row) -> Void) -> Void,
                             cells: @escaping (Row) -> [String], jsonText: @escaping (Row) -> String,
                             bytes: @escaping (View, inout [UInt8]) -> Bool) {
        // Escaping only in type: the taker is optional (so escaping), and nothing outlives `read`.
        let built: (Row) -> Void = { row in self.row(cells: cells(row), jsonText: jsonText(row)) }
        guard writesJSON else { return read(nil, built) }
        read({ view in self.jsonRow { bytes(view, &$0) } }, built)
    }

    /// What a JSON format (`writesJSON`) writes around a row's JSON when it is not the first:
    /// `before` (",\n" in `json`), `after` ("\n" in `ndjson`). The first row of `json` takes
    /// "\n" before it instead (`writeJSONRows` drops the comma).
    public struct JSONRowSeparators: Sendable {
        let before: [UInt8]
        let after: [UInt8]
    }

    public var jsonRowSeparators: JSONRowSeparators {
        JSONRowSeparators(before: format == .json ? Swift.Array(",\n".utf8) : [], after: format == .ndjson ? [10] : [])
    }

    /// Writes rows a piped read formatted on other connections (`ScanRunner.piped`), in order:
    /// each batch holds `rows` whole rows, each with `jsonRowSeparators` around it; what the
    /// caller still reads itself is returned (every row when there is no piped read).
    func writeJSONRows(_ piped: PipedRead<UInt8>?, standingInFor dump: Dump) -> PipedRead<UInt8>.Rest {
        guard let piped else { return .readOn(after: nil) }
        precondition(writesJSON, "a table or CSV row is made of cells")
        let dropsFirstComma = format == .json
        return piped.forEachBatch(standingInFor: dump) { bytes, rows in
            guard rows > 0 else { return }
            output.writeJSONBytes { buffer in
                if dropsFirstComma, rowCount == 0 {
                    buffer.append(contentsOf: bytes.dropFirst())
                } else {
                    buffer.append(contentsOf: bytes)
                }
            }
            rowCount += rows
        }
    }

    /// Writes one row of a JSON format (`writesJSON`) whose JSON `write` appends as bytes, in
    /// `JSONWriter()`'s form; `write` returns false when the row must go through
    /// `row(cells:jsonText:)` instead (what it appended is then removed, and the row not counted).
    private func jsonRow(_ write: (inout [UInt8]) -> Bool) -> Bool {
        precondition(writesJSON, "a table or CSV row is made of cells")
        var written = false
        let separator: StaticString? = format == .json ? (rowCount == 0 ? "\n" : ",\n") : nil
        let ndjson = format == .ndjson
        output.writeJSONBytes { buffer in
            let start = buffer.count
            if let separator { buffer.append(contentsOf: UnsafeBufferPointer(start: separator.utf8Start, count: separator.utf8CodeUnitCount)) }
            written = write(&buffer)
            if !written { buffer.removeSubrange(start...) } else if ndjson { buffer.append(10) }
        }
        if written { rowCount += 1 }
        return written
    }

    public func finish() {
        switch format {
        case .json: output.jsonLine(rowCount == 0 ? "]" : "\n]")
        case .table:
            if widths == nil { flushPending() }
        default: break
        }
        output.flush()
    }

    public var count: Int { rowCount }

    private func flushPending() {
        var w = columns.map(\.count)
        for row in pending {
            for (i, cell) in row.enumerated() where i < w.count { w[i] = min(maxWidth, max(w[i], cell.count)) }
        }
        widths = w
        writeTableRow(columns)
        writeTableRow(w.map { String(repeating: "-", count: $0) })
        for row in pending { writeTableRow(row) }
        pending = []
    }

    private func writeTableRow(_ cells: [String]) {
        guard let widths else { return }
        var parts: [String] = []
        for (i, width) in widths.enumerated() {
            var cell = i < cells.count ? cells[i] : ""
            if cell.count > width { cell = String(cell.prefix(max(1, width - 1))) + "…" }
            let isLast = i == widths.count - 1
            parts.append(isLast ? cell : cell + String(repeating: " ", count: width - cell.count))
        }
        output.line(parts.joined(separator: "  "))
    }

    /// A table cell as shown: line breaks as spaces, other controls visible.
    static func tableCell(_ value: String) -> String {
        TerminalText.escaped(value.contains("\n") ? value.replacingOccurrences(of: "\n", with: " ") : value)
    }
}
