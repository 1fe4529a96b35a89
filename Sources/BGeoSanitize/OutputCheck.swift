import BGeoForensics
import Foundation
import BGeoSQLite

/// The sanitised copy's own check, before it is renamed into place: SQLite's integrity check,
/// no free pages, no journal or WAL beside it, and a search of its raw bytes — the file itself,
/// not a query — for every secret learned from the dump, in every form the redactor replaces
/// (`SecretSearch`: JSON- and `\\u`-escaped, percent-encoded, base64, cut off). The SHA-256 is computed on a thread of its own.
struct OutputCheck: Sendable, Equatable {
    var integrity = ""
    var freelistPages: Int64 = -1
    var journalMode = ""
    var bytes: Int64 = 0
    var sha256 = ""
    /// Occurrences of learned secrets in the file's bytes (must be 0).
    var secretHits = 0
    /// -journal / -wal / -shm files found beside it (must be none).
    var sideFiles: [String] = []

    var passed: Bool { integrity == "ok" && freelistPages == 0 && secretHits == 0 && sideFiles.isEmpty }

    /// The first reason the check failed.
    var failure: String? {
        if integrity != "ok" { return "integrity_check says \(integrity)" }
        if freelistPages != 0 { return "\(freelistPages) free pages" }
        if secretHits > 0 { return "\(secretHits) occurrence\(secretHits == 1 ? "" : "s") of a learned secret in its bytes" }
        if let side = sideFiles.first { return "\(side) exists beside it" }
        return nil
    }

    static func run(_ path: String, matcher: SecretSearch) throws(SanitizeError) -> OutputCheck {
        var check = OutputCheck()
        // The bytes are searched on one more thread and hashed on another while SQLite checks
        // the pages: three reads of a file the page cache holds, each bound by its own work.
        let scan = BackgroundWork { () -> Result<OutputCheck, SanitizeError> in
            var bytes = OutputCheck()
            do throws(SanitizeError) { try scanBytes(path, matcher: matcher, into: &bytes) } catch { return .failure(error) }
            return .success(bytes)
        }
        let hash = BackgroundWork { () -> Result<(bytes: Int64, sha256: String), SanitizeError> in
            do throws(SanitizeError) { return .success(try hashBytes(path)) } catch { return .failure(error) }
        }
        do {
            let database = try Database(path: path, mode: .readOnly)
            let integrity = try database.prepare("PRAGMA integrity_check")
            var lines: [String] = []
            while try integrity.step() { lines.append(integrity.text(0) ?? "") }
            check.integrity = lines.joined(separator: "; ")
            let freelist = try database.prepare("PRAGMA freelist_count")
            if try freelist.step() { check.freelistPages = freelist.int64(0) }
            let mode = try database.prepare("PRAGMA journal_mode")
            if try mode.step() { check.journalMode = mode.text(0) ?? "" }
        } catch {
            _ = scan.wait()
            _ = hash.take()
            throw .verificationFailed(reason: "SQLite cannot read it back: \(error.message)")
        }
        let bytes = try scan.take().get()
        let whole = try hash.take().get()
        check.bytes = whole.bytes
        check.sha256 = whole.sha256
        check.secretHits = bytes.secretHits
        check.sideFiles = EvidenceSet.sideSuffixes.map { path + $0 }.filter { FileManager.default.fileExists(atPath: $0) }
        return check
    }

    /// The file's size and SHA-256, read in chunks.
    private static func hashBytes(_ path: String) throws(SanitizeError) -> (bytes: Int64, sha256: String) {
        let input = open(path, O_RDONLY)
        guard input >= 0 else { throw .verificationFailed(reason: "cannot read it back: \(String(cString: strerror(errno)))") }
        defer { close(input) }
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        var hasher = SHA256Hasher()
        var total: Int64 = 0
        while true {
            let n = buffer.withUnsafeMutableBytes { raw in read(input, raw.baseAddress!, raw.count) }
            if n < 0 {
                if errno == EINTR { continue }
                throw .verificationFailed(reason: "cannot read it back: \(String(cString: strerror(errno)))")
            }
            if n == 0 { break }
            total += Int64(n)
            buffer.withUnsafeBytes { raw in hasher.update(UnsafeRawBufferPointer(rebasing: raw[0..<n])) }
        }
        return (total, hasher.finalizeHex())
    }

    /// Counts the learned secrets in the file's bytes, chunk by chunk (a secret may straddle two).
    private static func scanBytes(_ path: String, matcher: SecretSearch, into check: inout OutputCheck) throws(SanitizeError) {
        let input = open(path, O_RDONLY)
        guard input >= 0 else { throw .verificationFailed(reason: "cannot read it back: \(String(cString: strerror(errno)))") }
        defer { close(input) }
        let chunk = 1 << 20
        let overlap = max(0, matcher.longest - 1)
        var buffer = [UInt8](repeating: 0, count: overlap + chunk)
        var carried = 0
        while true {
            let n = buffer.withUnsafeMutableBytes { raw in read(input, raw.baseAddress! + carried, chunk) }
            if n < 0 {
                if errno == EINTR { continue }
                throw .verificationFailed(reason: "cannot read it back: \(String(cString: strerror(errno)))")
            }
            if n == 0 { break }
            check.bytes += Int64(n)
            buffer.withUnsafeBytes { raw in
                check.secretHits += matcher.countMatches(in: UnsafeRawBufferPointer(rebasing: raw[0..<(carried + n)]))
            }
            // Keep the last bytes: a secret may straddle two chunks.
            let total = carried + n
            let keep = min(overlap, total)
            if keep > 0 { buffer.withUnsafeMutableBytes { raw in
                raw.baseAddress!.copyMemory(from: raw.baseAddress! + (total - keep), byteCount: keep)
            } }
            carried = keep
        }
    }

    var json: JSONValue {
        ["integrityCheck": .string(integrity), "freelistPages": .int(freelistPages), "journalMode": .string(journalMode),
         "learnedSecretsInBytes": .from(secretHits), "sideFiles": .array(sideFiles.map { .string($0) })]
    }
}
