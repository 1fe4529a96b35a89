import BGeoForensics
import Foundation
import Synchronization

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
public final class FleetLedger: FleetSink, Sendable {
    public let outputPath: String
    public let findingsPath: String?
    /// Keys of the dumps already done (loaded, then claimed during the run).
    public var doneKeys: Set<String> { ledger.withLock { $0.doneKeys } }
    /// Rows kept from an earlier run.
    public let resumedRows: Int
    /// Rows dropped from an earlier run (half-written, failed, or unkeyed): they are redone.
    public let droppedRows: Int
    private let output: Int32
    private let findings: Int32?
    /// What the workers change: the keys claimed, and the first write that failed. Appends
    /// happen under it too, so each input's lines go out together.
    private struct Ledger {
        var doneKeys: Set<String>
        var writeFailure: String?
    }
    private let ledger: Mutex<Ledger>

    public init(outputPath: String, findingsPath: String?) throws(UsageError) {
        self.outputPath = outputPath
        self.findingsPath = findingsPath
        let rows = try FleetLedger.load(outputPath, what: "fleet output", prefix: #"{"path":"#) { object in
            guard object["path"] != nil, let status = object["status"]?.stringValue.flatMap(FleetRowStatus.init(rawValue:)) else {
                return nil
            }
            guard status.isFinal, let sha = object["sha256"]?.stringValue else { return .drop }
            return .keep(FleetRow.key(sha256: sha, walSha256: object["walSha256"]?.stringValue))
        }
        var seen: Set<String> = []
        var kept: [Line] = []
        for line in rows.lines {
            if let key = line.key, seen.insert(key).inserted { kept.append(line) }
        }
        droppedRows = rows.lines.count - kept.count + rows.incomplete
        resumedRows = kept.count
        ledger = Mutex(Ledger(doneKeys: seen))
        if kept.count != rows.lines.count || rows.incomplete > 0 { try FleetLedger.rewrite(outputPath, keeping: kept) }
        if let findingsPath {
            let lines = try FleetLedger.load(findingsPath, what: "fleet findings file", prefix: #"{"sha256":"#) { object in
                guard object["code"] != nil, let sha = object["sha256"]?.stringValue else { return nil }
                return .keep(FleetRow.key(sha256: sha, walSha256: object["walSha256"]?.stringValue))
            }
            let keptFindings = lines.lines.filter { $0.key.map(seen.contains) ?? false }
            if keptFindings.count != lines.lines.count || lines.incomplete > 0 {
                try FleetLedger.rewrite(findingsPath, keeping: keptFindings)
            }
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
        ledger.withLock { $0.doneKeys.insert(key).inserted }
    }

    /// Appends one input's lines: its findings (when a findings file is open), then its row.
    /// Each line is one `write` call, whole.
    public func append(row: String, findings lines: [String]) {
        let (output, findings) = (output, findings)
        ledger.withLock { ledger in
            if let findings { for line in lines { FleetLedger.write(findings, line, failure: &ledger.writeFailure) } }
            FleetLedger.write(output, row, failure: &ledger.writeFailure)
        }
    }

    /// Rows are appended as inputs finish: whatever is done is on disk, whatever a slow input holds up.
    public var keepsInputOrder: Bool { false }

    /// The first write that failed (disk full…), if any.
    public var failure: String? {
        ledger.withLock { $0.writeFailure }
    }

    /// Writes one line with one `write`, unless an earlier write failed; a failure is kept.
    private static func write(_ fd: Int32, _ line: String, failure: inout String?) {
        guard failure == nil else { return }
        var bytes = Array(line.utf8)
        bytes.append(10)
        if let error = bytes.withUnsafeBytes({ FileDescriptorWrite.all(fd, $0) }) { failure = String(cString: strerror(error)) }
    }

    // MARK: reading an earlier run's files

    enum Verdict {
        case keep(String)
        case drop
    }

    /// A complete line of an earlier run's file: where it is (its newline included) and its key.
    struct Line {
        let offset: Int
        let length: Int
        /// nil: dropped.
        let key: String?
    }

    /// Reads `path` (absent: nothing) line by line, in 1 MiB chunks: only each line's place and key
    /// are kept, so resuming a run of any size needs little memory. Every line must be a JSON
    /// object `judge` recognises; only the last may be cut short or unreadable (`incomplete`).
    /// A last line cut short must still start like one of ours (`prefix`), or the file is not ours.
    static func load(_ path: String, what: String, prefix: String, judge: (JSONObject) -> Verdict?)
        throws(UsageError) -> (lines: [Line], incomplete: Int) {
        guard FileManager.default.fileExists(atPath: path) else { return ([], 0) }
        guard let handle = FileHandle(forReadingAtPath: path) else { throw UsageError(message: "cannot read '\(path)' to resume it") }
        defer { try? handle.close() }
        var lines: [Line] = []
        var partial: [UInt8] = []
        var partialStart = 0
        var consumed = 0
        var unreadable: Int?  // the number of a line that did not read; an error unless it is the last
        func refuse(_ line: Int) -> UsageError {
            UsageError(message: "'\(path)' line \(line) is not a line of a \(what); not touching it (choose another file)")
        }
        let ours = Array(prefix.utf8)
        func take(_ bytes: ArraySlice<UInt8>, at offset: Int) throws(UsageError) {
            if let bad = unreadable { throw refuse(bad) }
            let object = (try? JSONParser.parse(String(decoding: bytes, as: UTF8.self)))?.objectValue
            guard let object, let verdict = judge(object) else {
                guard bytes.starts(with: ours) else { throw refuse(lines.count + 1) }
                unreadable = lines.count + 1
                return
            }
            switch verdict {
            case .keep(let key): lines.append(Line(offset: offset, length: bytes.count + 1, key: key))
            case .drop: lines.append(Line(offset: offset, length: bytes.count + 1, key: nil))
            }
        }
        while true {
            let chunk: Data
            do { chunk = try handle.read(upToCount: 1 << 20) ?? Data() } catch {
                throw UsageError(message: "cannot read '\(path)' to resume it: \(error.localizedDescription)")
            }
            if chunk.isEmpty { break }
            let bytes = [UInt8](chunk)
            var lineStart = 0
            for (i, byte) in bytes.enumerated() where byte == 10 {
                if partial.isEmpty {
                    try take(bytes[lineStart..<i], at: consumed + lineStart)
                } else {
                    partial.append(contentsOf: bytes[lineStart..<i])
                    try take(partial[...], at: partialStart)
                    partial = []
                }
                lineStart = i + 1
            }
            if lineStart < bytes.count {
                if partial.isEmpty { partialStart = consumed + lineStart }
                partial.append(contentsOf: bytes[lineStart...])
            }
            consumed += bytes.count
        }
        // A line without its newline was being written when the run was killed.
        var incomplete = 0
        if !partial.isEmpty {
            guard partial.starts(with: ours) || ours.starts(with: partial) else { throw refuse(lines.count + 1) }
            incomplete = 1
        }
        if let bad = unreadable {
            guard incomplete == 0 else { throw refuse(bad) }
            incomplete = 1
        }
        return (lines, incomplete)
    }

    /// Replaces `path` with the `lines` of it that are kept, copied byte for byte (a temporary
    /// file beside it, renamed over it).
    static func rewrite(_ path: String, keeping lines: [Line]) throws(UsageError) {
        let url = URL(fileURLWithPath: path)
        let temporary = url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).resume-\(getpid())").path
        func fail() -> UsageError {
            let reason = String(cString: strerror(errno))
            unlink(temporary)
            return UsageError(message: "cannot rewrite '\(path)' to resume it: \(reason)")
        }
        let source = open(path, O_RDONLY | O_CLOEXEC)
        guard source >= 0 else { throw fail() }
        defer { close(source) }
        let target = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard target >= 0 else { throw fail() }
        var buffer = [UInt8]()
        for line in lines {
            buffer = [UInt8](repeating: 0, count: line.length)
            let n = buffer.withUnsafeMutableBytes { pread(source, $0.baseAddress, line.length, off_t(line.offset)) }
            guard n == line.length, buffer.withUnsafeBytes({ FileDescriptorWrite.all(target, $0) }) == nil else {
                close(target)
                throw fail()
            }
        }
        guard fsync(target) == 0, close(target) == 0, rename(temporary, path) == 0 else { throw fail() }
    }

    static func openForAppend(_ path: String) throws(UsageError) -> Int32 {
        let fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw UsageError(message: "cannot write '\(path)': \(String(cString: strerror(errno)))") }
        return fd
    }
}
