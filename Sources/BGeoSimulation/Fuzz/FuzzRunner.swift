import CLibXML2
import BGeoForensics
import Foundation

/// A broken promise found on one command of one case.
public struct FuzzFinding: Sendable, CustomStringConvertible {
    public let fuzzCase: String
    public let command: String
    public let problem: String
    public var description: String { "\(fuzzCase)\n    \(command)\n    → \(problem)" }
}

/// Runs every reader command on a fuzz case — inspect, locations, logs, replay, timeline, report,
/// gpx, export (GeoJSON and KML), sanitize, resync --dry-run and --quarantine (for a third of the cases after a real resync run that
/// builds the working copy) — each with its own empty $TMPDIR and a deadline, and checks what the
/// project promises whatever the input: no death by signal, no hang; exit 0, or exit 2 with one
/// sentence (resync may also say 3: records remain); on exit 0, `--json` output and GeoJSON that
/// parse, GPX and KML that are well-formed XML; no control or bidi character in any text output; the evidence
/// files unchanged (and none added beside them); $TMPDIR empty after every run; no private copy
/// left in the working folder.
public struct FuzzRunner: Sendable {
    /// The `bgeo-forensics` binary under test.
    public let tool: String
    /// Seconds before a run counts as a hang.
    public var timeout: Double

    public init(tool: String, timeout: Double = 60) {
        self.tool = tool
        self.timeout = timeout
        FuzzRunner.initializeXML
    }

    private static let initializeXML: Void = { xmlInitParser() }()

    struct Run {
        let arguments: [String]
        var exitCodes: Set<Int32> = [0, 2]
        var output: OutputKind
        var xmlFile: String?
        /// A JSON document the command writes (GeoJSON), checked like `--json` output.
        var jsonFile: String?
    }

    enum OutputKind { case text, csv, json }

    /// Runs the case in `folder` (where `FuzzCase` wrote it); returns what broke, nothing when all held.
    public func check(_ fuzzCase: FuzzCase, folder: String) throws -> [FuzzFinding] {
        let dump = fuzzCase.dumpPath
        let json = fuzzCase.json
        let out = folder + "/out", work = folder + "/work", tmp = folder + "/tmp"
        for dir in [out, tmp] { try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true) }
        let flag = json ? ["--json"] : []
        // Named endpoints, so a recorded refresh url on another origin does not end every resync run at exit 2.
        let resyncTargets = ["--url", "http://127.0.0.1:9/ingest", "--set", "authorization.refreshUrl=http://127.0.0.1:9/refresh"]
        let mode: OutputKind = json ? .json : .text
        var runs: [Run] = [
            Run(arguments: ["inspect", dump] + flag, output: mode),
            Run(arguments: ["locations", dump] + (json ? flag : (fuzzCase.index % 3 == 0 ? ["--format", "csv"] : [])),
                output: json ? .json : (fuzzCase.index % 3 == 0 ? .csv : .text)),
            Run(arguments: ["logs", dump, "--limit", "0"] + flag, output: mode),
            Run(arguments: ["replay", dump] + flag + (fuzzCase.index % 2 == 0 ? ["--fixes"] : []), output: mode),
            Run(arguments: ["timeline", dump] + flag, output: mode),
            Run(arguments: ["report", dump, "-o", out + "/report.html"] + flag, output: mode),
            Run(arguments: ["gpx", dump, "-o", out + "/track.gpx"] + flag, output: mode, xmlFile: out + "/track.gpx"),
            Run(arguments: ["export", dump, "--points", "-o", out + "/track.geojson"] + flag, output: mode,
                jsonFile: out + "/track.geojson"),
            Run(arguments: ["export", dump, "--format", "kml", "--track", "raw", "--points", "-o", out + "/track.kml"] + flag,
                output: mode, xmlFile: out + "/track.kml"),
            Run(arguments: ["sanitize", dump, "-o", out + "/sanitised.db", "--force"] + flag, output: mode),
            Run(arguments: ["resync", dump, "--dry-run"] + resyncTargets + ["--work", work] + flag, output: mode),
        ]
        if fuzzCase.index % 3 == 0 {
            runs.append(Run(arguments: ["resync", dump, "--url", "http://127.0.0.1:1/ingest",
                                        "--set", "authorization.refreshUrl=http://127.0.0.1:1/refresh", "--work", work,
                                        "--max-attempts", "1", "--backoff-initial", "0"],
                            exitCodes: [0, 2, 3], output: .text))
        }
        runs.append(Run(arguments: ["resync", dump, "--quarantine", "--work", work] + flag, output: mode))

        let evidenceBefore = try evidence(folder)
        var findings: [FuzzFinding] = []
        for run in runs {
            let command = "bgeo-forensics " + run.arguments.map { $0.hasPrefix(folder) ? "…" + $0.dropFirst(folder.count) : $0 }.joined(separator: " ")
            func found(_ problem: String) { findings.append(FuzzFinding(fuzzCase: fuzzCase.description, command: command, problem: problem)) }
            let outcome = try ChildProcess(executable: tool, arguments: run.arguments, environment: ["TMPDIR": tmp, "SWIFT_BACKTRACE": "enable=no"],
                                           timeout: timeout, stderrTail: 1 << 20).run()
            let result = (stdout: outcome.stdout, stderr: outcome.stderrTail)
            if outcome.timedOut {
                found("hang: still running after \(Int(timeout)) s (killed)")
            } else if let signal = outcome.signal {
                found("killed by signal \(signal)" + excerpt(result.stderr))
            } else if let code = outcome.exitCode {
                if !run.exitCodes.contains(code) {
                    found("exit \(code), expected one of \(run.exitCodes.sorted())" + excerpt(result.stderr))
                } else if code == 2 {
                    let lines = String(decoding: result.stderr, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: true)
                    let isResync = run.arguments.first == "resync"
                    if lines.isEmpty || (!isResync && lines.count != 1) {
                        found("exit 2 without exactly one sentence on stderr (\(lines.count) lines)" + excerpt(result.stderr))
                    }
                } else if code == 0 {
                    if run.output == .json, !FuzzRunner.parsesAsJSON(result.stdout) { found("--json output is not valid JSON" + excerpt(result.stdout)) }
                    if let xml = run.xmlFile, !FuzzRunner.isWellFormedXML(xml) { found("\((xml as NSString).lastPathComponent) is not well-formed XML") }
                    if let file = run.jsonFile, !FuzzRunner.parsesAsJSON(((try? Data(contentsOf: URL(fileURLWithPath: file))).map { [UInt8]($0) }) ?? []) {
                        found("\((file as NSString).lastPathComponent) is not valid JSON")
                    }
                }
            }
            if let bad = FuzzRunner.control(in: result.stderr, allowing: [0x0A]) { found("a raw control character on stderr: \(bad)") }
            let allowed: Set<UInt8> = run.output == .csv ? [0x09, 0x0A, 0x0D] : [0x0A]
            if let bad = FuzzRunner.control(in: result.stdout, allowing: allowed) { found("a raw control character on stdout: \(bad)") }
            let left = (try? FileManager.default.contentsOfDirectory(atPath: tmp)) ?? []
            if !left.isEmpty {
                found("$TMPDIR not empty afterwards: \(left.sorted().joined(separator: ", "))")
                for name in left { try? FileManager.default.removeItem(atPath: tmp + "/" + name) }
            }
            let copies = ((try? FileManager.default.contentsOfDirectory(atPath: work)) ?? []).filter { $0.hasPrefix(PrivateFolder.namePrefix) }
            if !copies.isEmpty { found("a private copy left in the working folder: \(copies.joined(separator: ", "))") }
        }
        let evidenceAfter = try evidence(folder)
        if evidenceAfter != evidenceBefore {
            findings.append(FuzzFinding(fuzzCase: fuzzCase.description, command: "(all commands)",
                                        problem: "the evidence changed: \(evidenceBefore.map(\.key).sorted()) → \(evidenceAfter.map(\.key).sorted())"))
        }
        return findings
    }

    /// SHA-256 of each file named like the dump (`bgeo.db`, `-wal`, `-shm`, `-journal`).
    private func evidence(_ folder: String) throws -> [String: String] {
        var hashes: [String: String] = [:]
        for name in (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [] where name.hasPrefix("bgeo.db") {
            hashes[name] = (try? EvidenceCopy.sha256(ofFile: folder + "/" + name)) ?? "unreadable"
        }
        return hashes
    }

    private func excerpt(_ bytes: [UInt8]) -> String {
        let text = String(decoding: bytes.prefix(600), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        return text.isEmpty ? "" : ": " + TerminalText.prose(text.replacingOccurrences(of: "\n", with: " ⏎ "))
    }

    /// Strict RFC 8259, but deeper than the reader's 512 levels: a dump value read at 511 levels
    /// is printed a few levels down inside the output document, which is still valid JSON.
    static func parsesAsJSON(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBufferPointer { (try? JSONParser.parse(bytes: $0, maxDepth: 4096)) != nil }
    }

    static func isWellFormedXML(_ path: String) -> Bool {
        let options = Int32(XML_PARSE_NONET.rawValue | XML_PARSE_NOERROR.rawValue | XML_PARSE_NOWARNING.rawValue | XML_PARSE_HUGE.rawValue)
        guard let document = xmlReadFile(path, nil, options) else { return false }
        xmlFreeDoc(document)
        return true
    }

    /// The first character a terminal would act on (C0 but `allowing`, DEL, C1, bidi, U+2028/9), named.
    static func control(in bytes: [UInt8], allowing: Set<UInt8>) -> String? {
        let text = String(decoding: bytes, as: UTF8.self)
        for scalar in text.unicodeScalars where TerminalText.isControl(scalar.value) {
            if scalar.value < 0x80, allowing.contains(UInt8(scalar.value)) { continue }
            return TerminalText.visible(scalar.value)
        }
        return nil
    }
}
