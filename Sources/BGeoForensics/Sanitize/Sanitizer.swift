import Foundation

/// `sanitize DUMP -o OUT.db`: a copy of a dump that can leave the building and still diagnoses
/// the same. The dump is opened as evidence (private copy, hashed); a first pass learns every
/// secret and measures the positions; a second pass streams every row of every table through
/// `RowSanitizer` into a working database beside the output; `VACUUM INTO` compacts it into a
/// staged file, which is checked (integrity, no free pages, no side files, no learned secret in
/// its raw bytes) and only then renamed into place. On any failure nothing is left behind.
public enum Sanitizer {
    @discardableResult
    public static func run(dumpPath: String, outputPath: String, options: SanitizeOptions,
                           progress: StageProgress = .silent) throws -> SanitizeReport {
        let started = DispatchTime.now().uptimeNanoseconds
        let target = try OutputTarget(output: outputPath, input: dumpPath, force: options.force)
        progress.stage("copying and hashing the dump")
        let dump = try Dump(path: dumpPath)
        let schema: SourceSchema
        do { schema = try SourceSchema.read(dump.database) } catch { throw Dump.classify(error, path: dumpPath) }

        progress.stage("learning secrets and measuring positions")
        var rng = SystemRandomNumberGenerator()
        let hasher = KeyedHasher.random()
        let measurer = options.coordinates == .shift
            ? JSONSanitizer(text: TextSanitizer(redactor: Redactor(), urls: options.urls), extras: options.extras,
                            coordinates: .keep, hasher: hasher)
            : nil
        let survey = DumpSurvey.run(dump, tables: schema.tables, measurer: measurer)
        let transform: CoordinateTransform
        switch options.coordinates {
        case .keep: transform = .keep
        case .shift: transform = .shift(for: survey.extent, using: &rng)
        case .coarsen(let metres): transform = .coarsen(metres: metres)
        }
        let text = TextSanitizer(redactor: survey.redactor, urls: options.urls)
        let rows = RowSanitizer(json: JSONSanitizer(text: text, extras: options.extras, coordinates: transform, hasher: hasher),
                                options: options)

        let temporary = TemporaryFiles()
        defer { temporary.removeAll() }
        temporary.register(target.workPath)
        temporary.register(target.stagingPath)
        progress.stage("writing sanitised rows")
        var tallies: [TableTally] = []
        let marker: JSONObject
        do {
            let definition = { (sql: String) in survey.redactor.redact(text: sql) }
            let work = try WorkingDatabase(path: target.workPath, schema: schema,
                                           createState: !schema.tables.contains { $0.name == "state" }, definition: definition)
            for table in schema.tables { tallies.append(try copy(table, from: dump, into: work, rows: rows)) }
            marker = markerObject(dump: dump, options: options, transform: transform, survey: survey, tallies: tallies)
            try work.finish(schema: schema, marker: .object(marker), definition: definition)
            progress.stage("compacting into a fresh file (VACUUM INTO)")
            try work.vacuum(into: target.stagingPath)
        } catch let error as SQLiteError {
            throw SanitizeError.cannotWrite(path: outputPath, reason: error.message)
        }
        unlink(target.workPath)
        try sync(target.stagingPath, output: outputPath)

        progress.stage("checking the sanitised copy")
        let check = try OutputCheck.run(target.stagingPath, matcher: text.matcher)
        if let failure = check.failure { throw SanitizeError.verificationFailed(reason: failure) }
        try target.commit()

        progress.stage("hashing the evidence again")
        let inputs = dump.inputs
        var after: [String: String] = [:]
        for input in inputs { after[input.path] = try? EvidenceCopy.sha256(ofFile: input.path) }
        progress.finish()
        return SanitizeReport(
            dump: dumpPath, output: outputPath, layout: dump.layout, options: options, coordinates: transform.json,
            coordinatesNote: transform.note, tables: tallies, skippedTables: schema.skipped,
            secretsLearned: survey.redactor.knownSecrets.count, inputs: inputs, inputsAfter: after, check: check,
            warnings: dump.warnings.all.map {
                DumpWarning(table: $0.table, rowId: $0.rowId, message: survey.redactor.redact(text: $0.message))
            },
            seconds: Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9)
    }

    /// Streams one table: every row read, sanitised and inserted with its row id.
    private static func copy(_ table: SourceTable, from dump: Dump, into work: WorkingDatabase,
                             rows: RowSanitizer) throws -> TableTally {
        let rule = TableRule.rule(for: table, layout: dump.layout)
        var tally = TableTally(table: table.name, columns: table.columns)
        var failure: Error?
        dump.scanRows(table.selectSQL, table: table.name) { stmt, rowId in
            var cells = [CellValue](repeating: .null, count: table.columns.count)
            for i in cells.indices { cells[i] = stmt.cell(i + 1) }
            // A marker from an earlier sanitisation is replaced (and kept inside the new one).
            if case .state = rule, rule.tag(cells) == SanitizationMarker.stateKey { return true }
            let changes = rows.sanitize(&cells, rule: rule)
            for i in cells.indices where cells[i] == .null && table.notNull[i] { cells[i] = .text("") }
            tally.rows += 1
            for (index, change) in changes.enumerated() { tally.columns[index].tally.add(change) }
            do {
                try work.insert(table.insertsRowid ? [.integer(rowId)] + cells : cells, into: table)
            } catch {
                failure = error
                return false
            }
            return true
        }
        if let failure { throw failure }
        return tally
    }

    /// What the output's `state.sanitized` says about this run.
    private static func markerObject(dump: Dump, options: SanitizeOptions, transform: CoordinateTransform,
                                     survey: DumpSurvey, tallies: [TableTally]) -> JSONObject {
        var marker: JSONObject = [
            "tool": .string("\(ToolInfo.name) \(ToolInfo.version)"),
            "sanitizedAt": .string(Timestamp.format(Date().timeIntervalSince1970, milliseconds: false)),
            "options": options.json,
            "coordinates": transform.json,
            "source": dump.inputs.first.map { ["sha256": .string($0.sha256), "bytes": .int($0.bytes)] } ?? .null,
            "tables": .array(tallies.map(\.json)),
            "tokens": .object(survey.tokenFacts),
            "note": "secrets are replaced by the fingerprints bgeo-forensics prints (‹redacted sha256:…›); customer values by keyed hashes (‹hmac …›) when extras=hash",
        ]
        if let previous = dump.sanitizationMarker() { marker["previous"] = .object(previous.json) }
        return marker
    }

    /// Flushes the staged copy to disk before it is checked and renamed.
    private static func sync(_ path: String, output: String) throws(SanitizeError) {
        let descriptor = open(path, O_RDONLY)
        guard descriptor >= 0 else { throw .cannotWrite(path: output, reason: String(cString: strerror(errno))) }
        defer { close(descriptor) }
        guard fsync(descriptor) == 0 else { throw .cannotWrite(path: output, reason: String(cString: strerror(errno))) }
    }
}
