/// The first pass over the whole dump, before a single row is written: every secret must be
/// known before the first cell is scrubbed (a token learned at row 900 000 may already appear at
/// row 12), and the secret shift needs the extent of every longitude it will move.
///
/// Secrets come from the dump's `Redactor` (`state.config`, `state.auth`, `config` and
/// `auth.refresh.result` lines), plus every string under a sensitive key anywhere (records,
/// log data, response bodies, other tables), plus every value of a `headers` object.
struct DumpSurvey {
    private(set) var redactor: Redactor
    private(set) var extent = CoordinateExtent()
    /// Facts about the tokens the copy replaces, by fingerprint (`sha256:…`).
    private(set) var tokenFacts = JSONObject()
    /// Rows read, per table (for progress and the report).
    private(set) var rows: [String: Int] = [:]

    /// Raw-text test for "might a key here be sensitive, or be written with escapes?".
    private let keyFilter = SensitiveNameFilter(Redactor.sensitiveKeyFragments + ["headers", "\\u"])

    /// Surveys `tables` of `dump`. `measurer` is the walk the second pass will use (in measure
    /// mode), or nil when positions are not shifted.
    static func run(_ dump: Dump, tables: [SourceTable], measurer: JSONSanitizer?) -> DumpSurvey {
        var survey = DumpSurvey(redactor: dump.makeRedactor(enabled: true))
        for table in tables { survey.scan(table, dump: dump, measurer: measurer) }
        let state = dump.engineState()
        // Sanitising a sanitised dump: its tokens are fingerprints already, their facts are in the old marker.
        for member in state.sanitized?.json["tokens"]?.objectValue ?? JSONObject() { survey.tokenFacts[member.key] = member.value }
        survey.collectTokenFacts(state)
        return survey
    }

    private mutating func scan(_ table: SourceTable, dump: Dump, measurer: JSONSanitizer?) {
        let rule = TableRule.rule(for: table, layout: dump.layout)
        var count = 0
        dump.scanRows(table.selectSQL, table: table.name) { stmt, _ in
            count += 1
            var cells = [CellValue](repeating: .null, count: table.columns.count)
            for i in cells.indices { cells[i] = stmt.cell(i + 1) }
            let app = rule.isAppLine(cells)
            for index in rule.jsonColumns(cells) {
                guard case .text(let text) = cells[index] else { continue }
                let mayHoldSecrets = keyFilter.mayContainName(text)
                guard mayHoldSecrets || measurer != nil, let value = try? JSONParser.parse(text) else { continue }
                if mayHoldSecrets { learn(value) }
                if let measurer {
                    var ignored = CellChanges()
                    if app { _ = measurer.customerData(value, &ignored, .measure) } else { measurer.measure(value) }
                }
            }
            return true
        }
        rows[table.name] = count
        if let measurer { extent = measurer.extent }
    }

    /// Learns the secrets of one JSON document: sensitive keys (the redactor's rule), header
    /// values, and documents nested in strings (response bodies).
    mutating func learn(_ value: JSONValue) {
        redactor.learnSecrets(in: value)
        learnNested(value)
    }

    private mutating func learnNested(_ value: JSONValue) {
        switch value {
        case .object(let object):
            for member in object {
                if JSONSanitizer.isHeadersKey(member.key), let headers = member.value.objectValue {
                    for header in headers where JSONSanitizer.isSecretHeader(header.key) {
                        if let s = header.value.stringValue, !Redactor.isTemplate(s) { redactor.learn(secret: s) }  // fingerprints are never learned
                    }
                }
                learnNested(member.value)
            }
        case .array(let elements): elements.forEach { learnNested($0) }
        case .string(let s):
            if let first = s.utf8.first, first == UInt8(ascii: "{") || first == UInt8(ascii: "["),
               keyFilter.mayContainName(s), let nested = try? JSONParser.parse(s) {
                learn(nested)
            }
        default: break
        }
    }

    /// Length, JWT-ness and `exp` of every token the state or config holds, and of every learned
    /// JWT (a rotated token in a log line), kept in the marker.
    private mutating func collectTokenFacts(_ state: EngineState) {
        var tokens = Set(redactor.knownSecrets.filter { JWT.claims($0) != nil })
        for member in state.auth ?? JSONObject() { if let s = member.value.stringValue, !s.isEmpty { tokens.insert(s) } }
        if let authorization = state.config?["authorization"]?.objectValue {
            for key in ["accessToken", "refreshToken"] {
                if let s = authorization.valueIgnoringCase(key)?.stringValue, !s.isEmpty { tokens.insert(s) }
            }
        }
        for token in tokens.sorted() where !Redactor.isFingerprint(token) {
            tokenFacts[TokenFingerprint(token).fingerprint] = SanitizationMarker.facts(of: token)
        }
    }
}
