import BGeoForensics
/// What `sanitize` did: options, per table and column what was changed, the output's SHA-256
/// and self-check, and the evidence hashes before and after (the original must be untouched).
public struct SanitizeReport: Sendable {
    public var dump: String
    public var output: String
    public var layout: DumpLayout
    public var options: SanitizeOptions
    /// The coordinate transform's description (never its secret offset).
    public var coordinates: JSONValue
    public var coordinatesNote: String
    public var tables: [TableTally]
    /// Tables that were not copied (virtual tables), by name.
    public var skippedTables: [String]
    /// How many distinct secrets were learned and replaced wherever they occur.
    public var secretsLearned: Int
    /// The inputs as hashed before anything was read.
    public var inputs: [DumpInput]
    /// SHA-256 of each input after the run, by path.
    public var inputsAfter: [String: String]
    var check: OutputCheck
    /// The dump's warnings, their messages shown through `redactor` (they may quote a row).
    public var warnings: WarningList
    var redactor: Redactor
    public var seconds: Double

    public var outputSHA256: String { check.sha256 }
    public var outputBytes: Int64 { check.bytes }

    /// True when every input hashed the same after the run as before it.
    public var evidenceUnchanged: Bool { inputs.allSatisfy { inputsAfter[$0.path] == $0.sha256 } }

    /// The tally of one table (empty when the dump has no such table).
    public func table(_ name: String) -> TableTally? { tables.first { $0.table == name } }

    /// The `--json` document, its warnings listed in the tree: for tests (a tape that cannot be
    /// read ends the list early; `writeJSON` streams them and says so).
    package var json: JSONValue {
        var listed: [JSONValue] = []
        try? warnings.forEach { listed.append(redacted($0).json) }
        return jsonTree(warnings: .array(listed))
    }

    /// Writes the `--json` document, its warnings streamed as they are read.
    public func writeJSON(to output: TextOutput) throws {
        let redactor = self.redactor
        // The messages through the survey's redactor, as the text shows them (already redacted).
        try StreamedJSONDocument.write(jsonTree(warnings: StreamedJSONDocument.placeholder(0)), arrays: [
            warnings.streamedArray(.disabled) { SanitizeReport.redacted($0, by: redactor).json },
        ], to: output)
    }

    private func redacted(_ warning: DumpWarning) -> DumpWarning { SanitizeReport.redacted(warning, by: redactor) }

    private static func redacted(_ warning: DumpWarning, by redactor: Redactor) -> DumpWarning {
        DumpWarning(table: warning.table, rowId: warning.rowId, message: redactor.redact(text: warning.message))
    }

    private func jsonTree(warnings listed: JSONValue) -> JSONValue {
        [
            "dump": .string(dump),
            "output": .string(output),
            "outputSha256": .string(outputSHA256),
            "outputBytes": .int(outputBytes),
            "format": .string(layout.format.rawValue),
            "layout": .string(layout.displayName),
            "options": options.json,
            "coordinates": coordinates,
            "secretsLearned": .from(secretsLearned),
            "tables": .array(tables.map(\.json)),
            "skippedTables": .array(skippedTables.map { .string($0) }),
            "verification": check.json,
            "inputs": .array(inputs.map { input in
                ["path": .string(input.path), "bytes": .int(input.bytes), "sha256Before": .string(input.sha256),
                 "sha256After": .from(inputsAfter[input.path]), "unchanged": .bool(inputsAfter[input.path] == input.sha256)]
            }),
            "evidenceUnchanged": .bool(evidenceUnchanged),
            "warnings": listed,
            "seconds": .double((seconds * 100).rounded() / 100),
        ]
    }

    /// The report printed on stderr.
    public var text: String {
        var lines: [String] = []
        lines.append("Sanitised \(dump) → \(output)")
        lines.append("  format   \(layout.displayName) (same schema out as in; any -wal folded in; one self-contained file)")
        lines.append("  options  extras \(options.extras.rawValue) · urls \(options.urls.rawValue) · coords \(options.coordinates)")
        lines.append("  secrets  \(secretsLearned) learned from the dump, replaced by their fingerprints wherever they occur")
        lines.append("  coords   \(coordinatesNote)")
        for table in tables {
            lines.append("  \(table.table): \(table.rows) row\(table.rows == 1 ? "" : "s")"
                + (table.leftOut > 0 ? ", \(table.leftOut) not copied (the table's own definition refuses them; see the warnings)" : ""))
            for column in table.columns where column.tally.changed > 0 {
                lines.append("    \(column.name): \(column.tally.text)")
            }
        }
        for name in skippedTables { lines.append("  \(name): not copied (a virtual table; its shadow tables were copied, scrubbed)") }
        lines.append("  output   \(outputBytes) bytes · sha256 \(outputSHA256)")
        lines.append("  checked  integrity_check \(check.integrity) · \(check.freelistPages) free pages · no -journal/-wal · "
                     + "\(check.secretHits) learned secrets in its raw bytes")
        for input in inputs {
            let after = inputsAfter[input.path]
            lines.append("  input    \(input.path) sha256 \(input.sha256) " + (after == input.sha256 ? "(unchanged)" : "(CHANGED: now \(after ?? "unreadable"))"))
        }
        if !warnings.isEmpty {
            lines.append("  warnings (\(warnings.count)) — read as far as possible:")
            for warning in warnings.prefix(20) { lines.append("    \(redacted(warning))") }
            if warnings.count > 20 { lines.append("    … and \(warnings.count - 20) more (see --json)") }
        }
        lines.append(String(format: "  done in %.2f s", seconds))
        return lines.joined(separator: "\n") + "\n"
    }
}
