import BGeoForensics
import Foundation

/// What `fleet` learns from one input: its NDJSON row and one line per finding. Built from the
/// parts the single-dump commands use — `DumpSummary` (inspect), the timeline and the complete
/// trace read in one log scan (`ReportScan`, as the report reads them), a replay under the
/// recorded config (`StreamedReplay`) — never a parallel path. Redacted unless `showSecrets`.
public enum FleetAnalysis {
    public struct Output: Sendable {
        public var row: JSONObject
        public var findings: [JSONObject]
    }

    public static func analyse(path: String, showSecrets: Bool = false) -> Output {
        let dump: Dump
        do {
            dump = try Dump(path: path)
        } catch {
            // Only a file that really is not a dump is final; a full or refused $TMPDIR, or no
            // descriptor left, says nothing about it: a failed row, tried again on a re-run.
            guard error.isEnvironmental else { return Output(row: notADump(path: path, error: error), findings: []) }
            return Output(row: FleetRow.failure(path: path, size: nil, sha256: nil, walSha256: nil, status: .failed,
                                                error: error.description, exitCode: 1), findings: [])
        }
        // One scan of the log's config lines serves both when it can (`SecretsAndConfig`).
        let (redactor, configuration) = SecretsAndConfig.learnedNow(dump, showSecrets: showSecrets)
        let summary: DumpSummary, scan: ReportScan, replay: ReplaySummary
        do {
            summary = try DumpSummary(dump: dump, redactor: redactor)
            scan = try ReportScan.read(dump, gapSeconds: TimelineOptions().gapThreshold, redactor: redactor)
            replay = try StreamedReplay.summarize(scan.trace, [configuration]).summaries[0]
        } catch {
            // The stored trace could not be written or read back (a full disk): a failed analysis, tried again on a re-run.
            return Output(row: FleetRow.failure(path: path, size: nil, sha256: nil, walSha256: nil, status: .failed,
                                                error: "\(error)", exitCode: 1), findings: [])
        }
        let timeline = scan.timeline
        let spans = timeline.findings.map { dump.span(of: $0) }
        let engine = dump.engineState()

        var row = FleetRow.failure(path: path, size: nil, sha256: nil, walSha256: nil, status: .ok, error: "", exitCode: 0)
        row["error"] = .null
        let inputs = summary.inputs
        // A hash the process had no descriptor to compute would key the row by its excuse: tried again instead.
        if let failure = dump.hashFailure, failure.isEnvironmental {
            return Output(row: FleetRow.failure(path: path, size: nil, sha256: nil, walSha256: nil, status: .failed,
                                                error: failure.description, exitCode: 1), findings: [])
        }
        let main = inputs.first
        let wal = inputs.first { $0.path.hasSuffix("-wal") }
        row["size"] = main.map { .int($0.bytes) } ?? .null
        row["sha256"] = .from(main?.sha256)
        row["walSha256"] = .from(wal?.sha256)
        row["inputs"] = .array(inputs.map { ["path": .string($0.path), "bytes": .int($0.bytes), "sha256": .string($0.sha256)] })
        row["format"] = .string(summary.layout.format.rawValue)
        row["layout"] = .string(summary.layout.displayName)
        row["schema"] = .from(summary.layout.schemaVersion)
        row["legacy"] = .bool(summary.layout.isLegacy)
        row["device"] = device(summary.state["device"])

        let q = summary.queue, l = summary.log
        let first = [q.oldestTime, l.firstTime].compactMap { $0 }.min()
        let last = summary.newestTime
        row["span"] = ["first": FleetRow.time(first), "last": FleetRow.time(last),
                       "hours": FleetRow.hours(first.flatMap { f in last.map { $0 - f } })]
        row["queue"] = [
            "records": .from(q.count), "locations": .from(q.locations), "geofences": .from(q.geofences),
            "unreadable": .from(q.unreadable), "oldestPending": FleetRow.time(q.oldestTime),
            "oldestPendingAgeHours": FleetRow.hours(q.oldestTime.flatMap { o in last.map { $0 - o } }),
            "newestPending": FleetRow.time(q.newestTime), "headUuid": FleetRow.clip(q.headUUID),
        ]
        row["log"] = ["rows": .from(l.count), "errors": .from(l.byLevel[1] ?? 0), "warnings": .from(l.byLevel[2] ?? 0),
                      "pendingUpload": .from(l.pendingUpload), "first": FleetRow.time(l.firstTime), "last": FleetRow.time(l.lastTime)]
        let attempts = timeline.attempts
        row["uploads"] = [
            "attempts": .from(attempts.count + timeline.omittedAttempts),
            "lastAttemptAt": FleetRow.time(attempts.last?.at),
            "lastStatus": .from(attempts.last?.status),
            "lastSuccessAt": FleetRow.time(attempts.last(where: \.succeeded)?.at),
            "httpFailures": .from(engine.httpFailures),
            "nextAttemptAt": FleetRow.clip(engine.nextAttemptAt),
        ]
        row["findings"] = .array(groupedFindings(timeline.findings, spans: spans))
        var codes: [String] = []
        for f in timeline.findings where !codes.contains(f.code) { codes.append(f.code) }
        row["findingCodes"] = .array(codes.map { .string($0) })
        row["worstSeverity"] = .from(timeline.worstSeverity?.name)
        row["odometer"] = ["recorded": FleetRow.metres(replay.odometerRecorded), "replayed": FleetRow.metres(replay.odometerReplayed),
                           "difference": FleetRow.metres(replay.odometerDifference),
                           "differencePercent": replay.odometerDifferencePercent.map { .double(Round.percent($0)) } ?? .null,
                           "state": FleetRow.metres(engine.odometer)]
        let (config, source) = dump.recordedConfig()
        let filter = FilterConfig(config: config)
        row["config"] = [
            "source": .string(source.description), "urlHost": FleetRow.host(of: config.string("url")),
            // Effective values: engine defaults where the config says nothing (bgeo-dump-format.md).
            "autoSync": .bool(config.bool("autoSync") ?? true), "batchSync": .bool(config.bool("batchSync") ?? false),
            "filterPolicy": .string(filter.policy.rawValue), "disableLocationFilter": .bool(filter.disableLocationFilter),
            "tokenRefresh": .bool(RefreshContract.isConfigured(config)),
        ]
        // Counted here, after the reads above (the state's may warn too).
        let warnings: WarningList
        do {
            warnings = try dump.warnings.list()
        } catch {
            return Output(row: FleetRow.failure(path: path, size: nil, sha256: nil, walSha256: nil, status: .failed,
                                                error: error.description, exitCode: 1), findings: [])
        }
        row["warnings"] = .from(warnings.count)

        var findings: [JSONObject] = []
        for (finding, span) in zip(timeline.findings, spans) {
            var line: JSONObject = ["sha256": .from(main?.sha256), "walSha256": .from(wal?.sha256), "path": .string(path),
                                    "code": .string(finding.code), "severity": .string(finding.severity.name),
                                    "rule": .from(finding.rule), "summary": .string(finding.summary),
                                    "first": FleetRow.time(span?.first), "last": FleetRow.time(span?.last)]
            let detail = finding.json.objectValue ?? JSONObject()
            line["evidence"] = detail["evidence"] ?? .array([])
            line["omittedEvidence"] = .from(finding.omittedEvidence)
            findings.append(redacted(line, redactor))
        }
        return Output(row: redacted(row, redactor), findings: findings)
    }

    /// One entry per finding code, most severe first (the timeline's order): worst severity, how
    /// many findings, the time span their evidence covers, and the rules for policy violations.
    static func groupedFindings(_ findings: [Finding], spans: [(first: Double, last: Double)?]) -> [JSONValue] {
        var order: [String] = []
        var groups: [String: (severity: Severity, count: Int, first: Double?, last: Double?, rules: [String])] = [:]
        for (finding, span) in zip(findings, spans) {
            if groups[finding.code] == nil {
                order.append(finding.code)
                groups[finding.code] = (finding.severity, 0, nil, nil, [])
            }
            var g = groups[finding.code]!
            g.severity = max(g.severity, finding.severity)
            g.count += 1
            if let span {
                g.first = min(g.first ?? span.first, span.first)
                g.last = max(g.last ?? span.last, span.last)
            }
            if let rule = finding.rule, !g.rules.contains(rule) { g.rules.append(rule) }
            groups[finding.code] = g
        }
        return order.map { code in
            let g = groups[code]!
            return ["code": .string(code), "severity": .string(g.severity.name), "count": .from(g.count),
                    "first": FleetRow.time(g.first), "last": FleetRow.time(g.last), "rules": .array(g.rules.map { .string($0) })]
        }
    }

    /// `{platform, os, model, sdk}` from the (already redacted) state device, clipped.
    static func device(_ value: JSONValue?) -> JSONValue {
        guard let object = value?.objectValue else { return .null }
        var out = JSONObject()
        for key in ["platform", "os", "model", "sdk"] {
            let field = object.valueIgnoringCase(key)
            out[key] = FleetRow.clip(field.flatMap { $0.stringValue ?? ($0 == .null ? nil : $0.jsonText) })
        }
        return .object(out)
    }

    /// The row for an input that is not a dump: the sentence the single-dump commands print, exit code 2.
    static func notADump(path: String, error: DumpError) -> JSONObject {
        var info = stat()
        let size = RawPath.stat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFREG ? Int64(info.st_size) : nil
        let sha = size == nil ? nil : try? EvidenceCopy.sha256(ofFile: path)
        let walPath = path + "-wal"
        let wal = EvidenceFile.exists(walPath) ? try? EvidenceCopy.sha256(ofFile: walPath) : nil
        return FleetRow.failure(path: path, size: size, sha256: sha, walSha256: wal, status: .notADump,
                                error: error.description, exitCode: 2)
    }

    static func redacted(_ object: JSONObject, _ redactor: Redactor) -> JSONObject {
        redactor.redact(.object(object)).objectValue ?? object
    }
}
