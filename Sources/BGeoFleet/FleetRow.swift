import BGeoForensics
import Foundation

/// One line of `fleet`'s NDJSON: the same keys in the same order for every input, so DuckDB,
/// pandas and Spark infer one schema (a failed input has nulls where an analysed dump has facts).
/// Strings from the dump are clipped to `FleetRow.maxText` characters (a hostile 100 kB field
/// does not make a 100 kB row); the whole row is redacted by the caller.
///
/// `path` is the input's name as every text output shows it: a byte that is not UTF-8 (Linux
/// names may hold any byte) appears as `\x{ff}`, so `path` alone cannot always name the file.
/// `pathBytes` can: the path's bytes exactly as given or found, base64 (standard alphabet,
/// padded) — `from_base64(pathBytes)` in DuckDB, `base64.b64decode` in Python — on every row.
public enum FleetRow {
    /// Longest string from a dump a row carries (longer ones end with "…").
    public static let maxText = 200

    /// The keys of every row, in order.
    public static let keys = [
        "path", "pathBytes", "status", "error", "exitCode", "size", "sha256", "walSha256", "inputs", "format", "layout", "schema",
        "legacy", "device", "span", "queue", "log", "uploads", "findings", "findingCodes", "worstSeverity", "odometer", "warnings",
        "config", "tool",
    ]

    /// The resume key of a dump: its database's SHA-256, and its -wal's when it has one.
    public static func key(sha256: String, walSha256: String?) -> String {
        walSha256.map { sha256 + "+" + $0 } ?? sha256
    }

    /// The row of an input that could not be analysed.
    public static func failure(path: String, size: Int64?, sha256: String?, walSha256: String?, status: FleetRowStatus,
                               error: String, exitCode: Int) -> JSONObject {
        var row = JSONObject()
        for key in keys { row[key] = .null }
        row["path"] = .string(path)
        row["pathBytes"] = .string(pathBytes(path))
        row["status"] = .string(status.rawValue)
        row["error"] = .string(error)
        row["exitCode"] = .int(Int64(exitCode))
        row["size"] = size.map { .int($0) } ?? .null
        row["sha256"] = .from(sha256)
        row["walSha256"] = .from(walSha256)
        row["tool"] = .string("\(ToolInfo.name) \(ToolInfo.version)")
        return row
    }

    /// The bytes `path` stands for (`RawPath`), base64: the lossless form of `path`.
    public static func pathBytes(_ path: String) -> String {
        Data(RawPath.bytes(path)).base64EncodedString()
    }

    /// `text` cut to `maxText` characters.
    static func clip(_ text: String?) -> JSONValue {
        guard let text else { return .null }
        return .string(text.count > maxText ? String(text.prefix(maxText - 1)) + "…" : text)
    }

    static func time(_ t: Double?) -> JSONValue { t.map { .string(Timestamp.format($0)) } ?? .null }

    static func hours(_ seconds: Double?) -> JSONValue {
        guard let seconds, seconds.isFinite else { return .null }
        return .double((seconds / 36).rounded() / 100)
    }

    static func metres(_ value: Double?) -> JSONValue {
        guard let value, value.isFinite else { return .null }
        return .double((value * 1000).rounded() / 1000)
    }

    /// The host of a URL (never its path, query or user info, which may hold secrets), clipped.
    static func host(of url: String?) -> JSONValue {
        guard let url, !url.isEmpty, let host = URLComponents(string: url)?.host, !host.isEmpty else { return .null }
        return clip(host)
    }
}
