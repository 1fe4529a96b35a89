import BGeoForensics
import Foundation
import BGeoSQLite

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
        defer { progress.finish() }
        let target = try OutputTarget(output: outputPath, input: dumpPath, force: options.force)
        progress.stage("copying and hashing the dump")
        let dump = try Dump(path: dumpPath)
        let schema: SourceSchema
        do { schema = try SourceSchema.read(dump.database) } catch { throw Dump.classify(error, path: dumpPath) }
        if let problem = schema.markerProblem { throw SanitizeError.cannotMark(dump: dumpPath, reason: problem) }

        progress.stage("learning secrets and measuring positions")
        var rng = SystemRandomNumberGenerator()
        let hasher = KeyedHasher.random()
        let survey = DumpSurvey.run(dump, tables: schema.tables) {
            options.coordinates == .shift
                ? JSONSanitizer(text: TextSanitizer(redactor: Redactor(), urls: options.urls), extras: options.extras,
                                coordinates: .keep, hasher: hasher)
                : nil
        }
        let transform: CoordinateTransform
        switch options.coordinates {
        case .keep: transform = .keep
        case .shift: transform = .shift(for: survey.extent, using: &rng)
        case .coarsen(let metres): transform = .coarsen(metres: metres)
        }
        let text = TextSanitizer(redactor: survey.redactor, urls: options.urls)
        // One per thread: each keeps its own caches.
        func makeRows() -> sending RowSanitizer {
            RowSanitizer(json: JSONSanitizer(text: text, extras: options.extras, coordinates: transform, hasher: hasher), options: options)
        }

        let temporary = TemporaryFiles()
        defer { temporary.removeAll() }
        temporary.register(target.workPath)
        temporary.register(target.stagingPath)  // its SQLite side files, should VACUUM INTO leave one
        target.prepare()
        progress.stage("writing sanitised rows")
        var tallies: [TableTally] = []
        let marker: JSONObject
        let inputs = dump.inputs
        var rehash: BackgroundWork<[String: String]>?
        do {
            let definition = { (sql: String) in survey.redactor.redact(text: sql) }
            let work = try WorkingDatabase(path: target.workPath, schema: schema,
                                           createState: schema.stateTable == nil, definition: definition)
            tallies = try copyTables(schema.tables, from: dump, into: work, makeRows: makeRows)
            marker = markerObject(dump: dump, options: options, transform: transform, survey: survey, tallies: tallies)
            if let refusal = try work.storeMarker(.object(marker)) {
                throw SanitizeError.cannotMark(dump: dumpPath, reason: "refuses the marker row (\(refusal.message))")
            }
            try work.finish(schema: schema, definition: definition)
            // Every read of the dump is done: its files are hashed again on the other core while
            // this one compacts (the hash is only compared once the copy has been checked).
            let paths = inputs.map(\.path)
            rehash = BackgroundWork {
                var after: [String: String] = [:]
                for path in paths { after[path] = try? EvidenceCopy.sha256(ofFile: path) }
                return after
            }
            progress.stage("compacting into a fresh file (VACUUM INTO) and hashing the evidence again")
            try work.vacuum(into: target.stagingPath)
        } catch let error as SQLiteError {
            throw SanitizeError.cannotWrite(path: outputPath, reason: target.staging.problem(OutputWriteError(error)).reason)
        }
        unlink(target.workPath)
        try sync(target.stagingPath, output: outputPath)

        progress.stage("checking the sanitised copy")
        let check = try OutputCheck.run(target.stagingPath, matcher: text.search)
        if let failure = check.failure { throw SanitizeError.verificationFailed(reason: failure) }
        try target.commit()

        let after = rehash?.take() ?? [:]
        return SanitizeReport(
            dump: dumpPath, output: outputPath, layout: dump.layout, options: options, coordinates: transform.json,
            coordinatesNote: transform.note, tables: tallies, skippedTables: schema.skipped,
            secretsLearned: survey.redactor.knownSecrets.count, inputs: inputs, inputsAfter: after, check: check,
            warnings: try dump.warnings.list(), redactor: survey.redactor,
            seconds: Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9)
    }

    /// Streams every table into the working database. The log (usually half the rows) and the
    /// other tables are each sanitised on a connection and thread of their own, in bounded
    /// batches, while this thread inserts everything (one connection writes the working
    /// database; sanitising and inserting together were more than one core could do). Without a
    /// second connection a part is sanitised on this thread between the inserts.
    private static func copyTables(_ tables: [SourceTable], from dump: Dump, into work: WorkingDatabase,
                                   makeRows: () -> sending RowSanitizer) throws -> [TableTally] {
        var failure: Error?
        var leftOut: [String: Int] = [:]
        func insert(_ batch: TableCopy.Batch) -> Bool {
            guard failure == nil else { return false }
            let table = batch.table
            do {
                for index in 0..<batch.rows.rowCount {
                    guard let refusal = try work.insert(row: index, of: batch.rows, into: table) else { continue }
                    leftOut[table.name, default: 0] += 1
                    dump.warnings.add(table: table.name, rowId: table.rowId(of: batch.rows.row(index)),
                                      "not copied into the sanitised dump: its table's own definition refuses the row (\(refusal.message)): "
                                        + "the dump is damaged here, or a constraint forbids the value sanitize wrote")
                }
            } catch {
                failure = error
                return false
            }
            return true
        }
        let log = tables.first { $0.name == "log_entries" && tables.count > 1 }
        // The other tables first, then the log: the order their warnings are told in.
        let parts = [tables.filter { $0.name != log?.name }] + (log.map { [[$0]] } ?? [])
        let channel = BatchChannel<TableCopy.Batch>(capacity: 8, senders: parts.count)
        var apart: [ApartRead<[TableTally]>] = []
        var inTurn: [[SourceTable]] = []
        for part in parts {
            let rows = makeRows()
            let read = parts.count > 1 ? ScanRunner.apart(dump) { reader in
                defer { channel.finish() }
                var tallies: [TableTally] = []
                for table in part {
                    tallies.append(TableCopy.sanitise(table, from: reader, rows: rows) { channel.send([$0]) })
                }
                return tallies
            } : nil
            if let read { apart.append(read) } else { inTurn.append(part) }
        }
        func drain(waiting: Bool) {
            while let batch = waiting ? channel.receive() : channel.poll() {
                guard insert(batch[0]) else {
                    channel.close()  // the senders stop at their next batch
                    return
                }
            }
        }
        var tallies: [String: TableTally] = [:]
        let rows = makeRows()
        for part in inTurn {
            for table in part {
                tallies[table.name] = TableCopy.sanitise(table, from: dump, rows: rows) { batch in
                    drain(waiting: false)
                    return insert(batch)
                }
            }
            channel.finish()
        }
        drain(waiting: true)
        for read in apart {
            for tally in read.value(after: dump) { tallies[tally.table] = tally }
        }
        if let failure { throw failure }
        for (name, count) in leftOut { tallies[name]?.leftOut = count }
        return tables.compactMap { tallies[$0.name] }
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
        guard descriptor >= 0 else { throw .cannotWrite(path: output, reason: OutputFile.reason(errno, folder: nil)) }
        defer { close(descriptor) }
        guard fsync(descriptor) == 0 else { throw .cannotWrite(path: output, reason: OutputFile.reason(errno, folder: nil)) }
    }
}
