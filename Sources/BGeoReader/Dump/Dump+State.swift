extension Dump {
    /// Reads the `state` table. A value that is not JSON is warned about and kept as a string.
    public func engineState() -> EngineState {
        var state = EngineState()
        guard layout.hasState else { return state }
        guard let stmt = try? database.prepare("SELECT key, value FROM state ORDER BY rowid") else { return state }
        while (try? stmt.step()) == true {
            let key = stmt.text(0) ?? ""
            let text = stmt.text(1)
            let value: JSONValue
            if let text {
                value = (try? JSONParser.parse(text)) ?? .string(text)
            } else {
                value = .null
            }
            state.entries.append((key, value))
            switch key {
            case "schema_version": state.schemaVersion = value.intValue ?? value.stringValue.flatMap { Int($0) }
            case "config": state.config = value.objectValue
            case "odometer": state.odometer = value.doubleValue ?? value.stringValue.flatMap { Double($0) }
            case "auth": state.auth = value.objectValue
            case "http.failures": state.httpFailures = value.intValue ?? value.stringValue.flatMap { Int($0) }
            case "http.next_attempt_at": state.nextAttemptAt = value.stringValue
            case "device": state.device = value.objectValue
            case SanitizationMarker.stateKey: state.sanitized = SanitizationMarker(value)
            default: break
            }
        }
        return state
    }

    /// The `sanitized` marker when `sanitize` wrote this dump (read on its own, without the
    /// rest of the state).
    public func sanitizationMarker() -> SanitizationMarker? {
        guard layout.hasState, let stmt = try? database.prepare("SELECT value FROM state WHERE key = ?"),
              (try? stmt.bind([.text(SanitizationMarker.stateKey)])) != nil, (try? stmt.step()) == true,
              let text = stmt.text(0), let value = try? JSONParser.parse(text) else { return nil }
        return SanitizationMarker(value)
    }

    /// Called once at open so that state problems show up in every command's warnings.
    func loadStateWarnings() {
        guard layout.hasState, let stmt = try? database.prepare("SELECT key, value FROM state ORDER BY rowid") else { return }
        let objectKeys: Set<String> = ["config", "auth", "device"]
        while (try? stmt.step()) == true {
            let key = stmt.text(0) ?? ""
            guard let text = stmt.text(1) else { continue }
            do {
                let value = try JSONParser.parse(text)
                if objectKeys.contains(key), value.objectValue == nil, value != .null {
                    warnings.add(table: "state", rowId: nil, "key '\(key)' is not a JSON object")
                }
                checkStateValue(key: key, value)
            } catch {
                warnings.add(table: "state", rowId: nil, "key '\(key)' is not valid JSON (\(error.description))")
            }
        }
    }

    /// Numbers and token claims of the known keys that cannot be what they claim to be: a
    /// located warning each (the value is still shown, as the number it is).
    private func checkStateValue(key: String, _ value: JSONValue) {
        func warn(_ message: String) { warnings.add(table: "state", rowId: nil, "key '\(key)': " + message) }
        switch key {
        case "odometer":
            if let metres = value.doubleValue, !StateRanges.odometerMetres.contains(metres) {
                warn("\(NumberText.describe(metres)) m is out of range (0 … 1e10 m)")
            }
        case "http.failures":
            if let n = value.doubleValue, !(n.rounded() == n && StateRanges.failures.contains(n)) {
                warn("\(NumberText.describe(n)) is not a count of failures")
            }
        case "auth":
            guard let auth = value.objectValue else { return }
            for member in auth {
                if let token = member.value.stringValue, let problem = JWT.expiryProblem(token) { warn("\(member.key): " + problem) }
            }
        case "config":
            if let config = value.objectValue { warnAboutTokenClaims(in: config, table: "state", rowId: nil, label: "key 'config'") }
        default:
            break
        }
    }

    /// The authorization tokens of a config whose JWT `exp` is not a time: one warning each.
    func warnAboutTokenClaims(in config: JSONObject, table: String, rowId: Int64?, label: String) {
        guard let authorization = config.valueIgnoringCase("authorization")?.objectValue else { return }
        for name in ["accessToken", "refreshToken"] {
            guard let token = authorization.valueIgnoringCase(name)?.stringValue, let problem = JWT.expiryProblem(token) else { continue }
            warnings.add(table: table, rowId: rowId, "\(label) authorization.\(name): " + problem)
        }
    }

    /// The config the engine was running with: `state.config`, else the last `config` log line,
    /// else engine defaults (an empty object), with where it came from.
    public func recordedConfig() -> (config: SDKConfig, source: ConfigSource) {
        if let config = engineState().config { return (SDKConfig(config), .state) }
        var last: (JSONObject, Int64)?
        forEachLogEntry(LogQuery(order: .newestFirst, limit: 1, events: ["config"])) { entry in
            if let object = entry.data?.objectValue { last = (object, entry.rowId) }
        }
        if let last {
            warnAboutTokenClaims(in: last.0, table: "log_entries", rowId: last.1, label: "config line")
            return (SDKConfig(last.0), .logLine(rowId: last.1))
        }
        return (SDKConfig(), .defaults)
    }
}

/// What the `state` numbers can plausibly hold.
enum StateRanges {
    /// Ten million kilometres: more than any device travels.
    static let odometerMetres: ClosedRange<Double> = 0...1e10
    static let failures: ClosedRange<Double> = 0...1e9
}
