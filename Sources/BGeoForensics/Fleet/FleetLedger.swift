import Foundation

/// The output files of a `fleet` run, and what an earlier run already put in them.
///
/// Opening a ledger on an existing output resumes it: every complete row whose dump is done
/// (`ok`, `not_a_dump`) is kept byte for byte and its key (`FleetRow.key`) counts as done; a
/// half-written last line (the run was killed mid-write), a `failed` row (retried) and a row
/// without a SHA-256 (a path that did not exist) are dropped, and then the file is rewritten
/// without them (a temporary file in the same folder, renamed over it). The findings file keeps
/// only the lines of dumps still done. A file that is not a fleet output is refused, never rewritten.
///
/// Lines are appended with one `write` each, a dump's findings before its row: the row is what
/// marks a dump done, so a kill between the two only costs re-doing that dump.
public final class FleetLedger: @unchecked Sendable {
    public let outputPath: String
    public let findingsPath: String?
    /// Keys of the dumps already done (loaded, then claimed during the run).
    public private(set) var doneKeys: Set<String> = []
    /// Rows kept from an earlier run.
    public private(set) var resumedRows = 0
    /// Rows dropped from an earlier run (half-written, failed, or unkeyed): they are redone.
    public private(set) var droppedRows = 0
    private let output: Int32
    private let findings: Int32?
    private let lock = NSLock()
    private var writeFailure: String?

    public init(outputPath: String, findingsPath: String?) throws(UsageError) {
        self.outputPath = outputPath
        self.findingsPath = findingsPath
        let rows = try FleetLedger.load(outputPath, what: "fleet output") { object in
            guard object["path"] != nil, let status = object["status"]?.stringValue.flatMap(FleetRowStatus.init(rawValue:)) else {
                return nil
            }
            guard status.isFinal, let sha = object["sha256"]?.stringValue else { return .drop }
            return .keep(FleetRow.key(sha256: sha, walSha256: object["walSha256"]?.stringValue))
        }
        var seen: Set<String> = []
        var kept: [Substring] = []
        for line in rows.lines {
            if let key = line.key, seen.insert(key).inserted {
                kept.append(line.text)
            }
        }
        droppedRows = rows.lines.count - kept.count + rows.incomplete
        resumedRows = kept.count
        doneKeys = seen
        if kept.count != rows.lines.count || rows.incomplete > 0 { try FleetLedger.rewrite(outputPath, kept) }
        if let findingsPath {
            let lines = try FleetLedger.load(findingsPath, what: "fleet findings file") { object in
                guard object["code"] != nil, let sha = object["sha256"]?.stringValue else { return nil }
                return .keep(FleetRow.key(sha256: sha, walSha256: object["walSha256"]?.stringValue))
            }
            let keptFindings = lines.lines.filter { $0.key.map(seen.contains) ?? false }.map(\.text)
            if keptFindings.count != lines.lines.count || lines.incomplete > 0 { try FleetLedger.rewrite(findingsPath, keptFindings) }
        }
        output = try FleetLedger.openForAppend(outputPath)
        if let findingsPath {
            do { findings = try FleetLedger.openForAppend(findingsPath) } catch {
                close(output)
                throw error
            }
        } else {
            findings = nil
        }
    }

    deinit {
        close(output)
        if let findings { close(findings) }
    }

    /// Claims a dump for this run: false when it is already done (by an earlier run, or an
    /// identical file earlier in this one).
    public func claim(_ key: String) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        return doneKeys.insert(key).inserted
    }

    /// Appends one input's lines: its findings (when a findings file is open), then its row.
    /// Each line is one `write` call, whole.
    public func append(row: String, findings lines: [String]) {
        lock.lock()
        defer { lock.unlock() }
        if let findings { for line in lines { write(findings, line) } }
        write(output, row)
    }

    /// The first write that failed (disk full…), if any.
    public var failure: String? {
        lock.lock()
        defer { lock.unlock() }
        return writeFailure
    }

    private func write(_ fd: Int32, _ line: String) {
        guard writeFailure == nil else { return }
        var bytes = Array(line.utf8)
        bytes.append(10)
        if let error = bytes.withUnsafeBytes({ FileDescriptorWrite.all(fd, $0) }) { writeFailure = String(cString: strerror(error)) }
    }

    // MARK: reading an earlier run's files

    enum Verdict {
        case keep(String)
        case drop
    }

    struct Line {
        let text: Substring
        /// nil: dropped.
        let key: String?
    }

    /// Reads `path` (absent: nothing). Every line must be a JSON object `judge` recognises; only
    /// the last may be cut short, which counts as `incomplete`.
    static func load(_ path: String, what: String, judge: (JSONObject) -> Verdict?) throws(UsageError) -> (lines: [Line], incomplete: Int) {
        guard FileManager.default.fileExists(atPath: path) else { return ([], 0) }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw UsageError(message: "cannot read '\(path)' to resume it")
        }
        let text = String(decoding: data, as: UTF8.self)
        var parts = text.split(separator: "\n", omittingEmptySubsequences: false)
        var incomplete = 0
        if let last = parts.last, !text.hasSuffix("\n") {
            // The run was killed while writing this line (or it is the empty tail of a complete file).
            if !last.isEmpty { incomplete = 1 }
            parts.removeLast()
        } else if parts.last?.isEmpty == true {
            parts.removeLast()
        }
        var lines: [Line] = []
        for (index, part) in parts.enumerated() {
            let object = (try? JSONParser.parse(String(part)))?.objectValue
            guard let object, let verdict = judge(object) else {
                if index == parts.count - 1 {
                    incomplete += 1
                    continue
                }
                throw UsageError(message: "'\(path)' line \(index + 1) is not a line of a \(what); not touching it (choose another file)")
            }
            switch verdict {
            case .keep(let key): lines.append(Line(text: part, key: key))
            case .drop: lines.append(Line(text: part, key: nil))
            }
        }
        return (lines, incomplete)
    }

    /// Replaces `path` with `lines` (a temporary file beside it, renamed over it).
    static func rewrite(_ path: String, _ lines: [Substring]) throws(UsageError) {
        let url = URL(fileURLWithPath: path)
        let temporary = url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).resume-\(getpid())").path
        var text = lines.joined(separator: "\n")
        if !lines.isEmpty { text += "\n" }
        guard FileManager.default.createFile(atPath: temporary, contents: Data(text.utf8)),
              rename(temporary, path) == 0 else {
            unlink(temporary)
            throw UsageError(message: "cannot rewrite '\(path)' to resume it: \(String(cString: strerror(errno)))")
        }
    }

    static func openForAppend(_ path: String) throws(UsageError) -> Int32 {
        let fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw UsageError(message: "cannot write '\(path)': \(String(cString: strerror(errno)))") }
        return fd
    }
}
