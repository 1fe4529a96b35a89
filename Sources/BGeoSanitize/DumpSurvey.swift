import BGeoForensics
/// The first pass over the whole dump, before a single row is written: every secret must be
/// known before the first cell is scrubbed (a token learned at row 900 000 may already appear at
/// row 12), and the secret shift needs the extent of every longitude it will move.
///
/// Secrets come from the dump's `Redactor` (`state.config`, `state.auth`, `config` and
/// `auth.refresh.result` lines), plus every string under a sensitive key anywhere (records,
/// log data, response bodies, other tables), plus every value of a `headers` object. The log is
/// surveyed on a second connection and thread while the other tables are read.
struct DumpSurvey {
    private(set) var redactor: Redactor
    private(set) var extent = CoordinateExtent()
    /// Facts about the tokens the copy replaces, by fingerprint (`sha256:…`).
    private(set) var tokenFacts = JSONObject()

    /// Surveys `tables` of `dump`. `makeMeasurer` gives the walk the second pass will use (in
    /// measure mode; one per thread), or nil when positions are not shifted.
    static func run(_ dump: Dump, tables: [SourceTable], makeMeasurer: () -> sending JSONSanitizer?) -> DumpSurvey {
        var survey = DumpSurvey(redactor: dump.makeRedactor(enabled: true))
        let log = tables.first { $0.name == "log_entries" && tables.count > 1 }
        var logSurvey: ApartRead<DumpSurvey>?
        if let log {
            let measurer = makeMeasurer()
            logSurvey = ScanRunner.apart(dump) { reader in
                var part = DumpSurvey(redactor: Redactor())
                part.scan(log, dump: reader, measurer: measurer)
                return part
            }
        }
        let measurer = makeMeasurer()
        for table in tables where table.name != log?.name || logSurvey == nil {
            survey.scan(table, dump: dump, measurer: measurer)
        }
        if let part = logSurvey?.value(after: dump) {
            for secret in part.redactor.knownSecrets { survey.redactor.learn(secret: secret.text) }
            survey.extent.merge(part.extent)
        }
        let state = dump.engineState()
        // Sanitising a sanitised dump: its tokens are fingerprints already, their facts are in the old marker.
        survey.tokenFacts.assign(contentsOf: state.sanitized?.json["tokens"]?.objectValue ?? JSONObject())
        survey.collectTokenFacts(state)
        return survey
    }

    /// Reads the JSON columns of `table` (and `src` for the log), straight from SQLite's bytes.
    private mutating func scan(_ table: SourceTable, dump: Dump, measurer: JSONSanitizer?) {
        let rule = TableRule.rule(for: table, layout: dump.layout)
        var columns: [Int]
        var source: Int?
        var secretColumns: Set<Int> = []
        switch rule {
        case .queue(let record): columns = [record]
        case .log(let src, _, _, let data): columns = data.map { [$0] } ?? []; source = src
        case .state(_, let value): columns = [value]
        case .generic(let secret):
            columns = Array(table.columns.indices)
            secretColumns = secret
        }
        guard !columns.isEmpty else { return }
        let selected = (source.map { [$0] } ?? []) + columns
        let list = selected.map { quoteIdentifier(table.columns[$0]) }.joined(separator: ", ")
        let scan = table.withoutRowid ? RowScan(columns: "0, " + list, table: table.name, idColumn: nil)
            : RowScan(columns: "rowid, " + list, table: table.name, idColumn: "rowid")
        let first = source == nil ? 1 : 2
        dump.scanRows(scan) { stmt, _ in
            let app = source != nil && stmt.text(1) == "js"
            for column in first..<(first + columns.count) {
                if secretColumns.contains(columns[column - first]), let value = stmt.text(column) {
                    redactor.learn(secret: value)  // the whole cell is the secret: found in any other table too
                    continue
                }
                stmt.withUTF8(column) { bytes in
                    guard let bytes, let start = bytes.firstIndex(where: { $0 > 0x20 }),
                          bytes[start] == UInt8(ascii: "{") || bytes[start] == UInt8(ascii: "[") else { return }
                    let mayHoldSecrets = SecretRules.mayStateSecrets(bytes: bytes)
                    // Most rows hold no secret and only need measuring: from their bytes, no tree.
                    if !mayHoldSecrets, !app, let measurer, measurer.measure(bytes: bytes) { return }
                    guard mayHoldSecrets || measurer != nil, let value = try? JSONParser.parse(bytes: bytes) else { return }
                    if mayHoldSecrets { learn(value) }
                    if let measurer {
                        var ignored = CellChanges()
                        if app { _ = measurer.customerData(value, &ignored, .measure) } else { measurer.measure(value) }
                    }
                }
            }
            return true
        }
        if let measurer { extent = measurer.extent }
    }

    /// Learns the secrets of one JSON document: sensitive keys and header values (the redactor's
    /// rules), and documents nested in strings (response bodies).
    mutating func learn(_ value: JSONValue) {
        redactor.learnSecrets(in: value)
        learnNested(value)
    }

    private mutating func learnNested(_ value: JSONValue) {
        switch value {
        case .object(let object):
            for member in object { learnNested(member.value) }
        case .array(let elements): elements.forEach { learnNested($0) }
        case .string(let s):
            if let first = s.utf8.first, first == UInt8(ascii: "{") || first == UInt8(ascii: "["),
               SecretRules.mayStateSecrets(s), let nested = try? JSONParser.parse(s) {
                learn(nested)
            }
        default: break
        }
    }

    /// Length, JWT-ness and `exp` of every token the state or config holds, and of every learned
    /// JWT (a rotated token in a log line), kept in the marker.
    private mutating func collectTokenFacts(_ state: EngineState) {
        var tokens = Set(redactor.knownSecrets.filter { JWT.claims($0.text) != nil })
        for member in state.auth ?? JSONObject() { if let s = member.value.stringValue, !s.isEmpty { tokens.insert(ExactText(s)) } }
        if let authorization = state.config?["authorization"]?.objectValue {
            for key in ["accessToken", "refreshToken"] {
                if let s = authorization.valueIgnoringCase(key)?.stringValue, !s.isEmpty { tokens.insert(ExactText(s)) }
            }
        }
        for token in tokens.sorted().map(\.text) where !Redactor.isFingerprint(token) {
            tokenFacts[TokenFingerprint(token).fingerprint] = SanitizationMarker.facts(of: token)
        }
    }
}
