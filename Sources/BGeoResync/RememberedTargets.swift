import Foundation
import BGeoForensics
import BGeoSQLite

/// The endpoints an operator named for a working copy (`--url`, `--log-url`,
/// `--set authorization.refreshUrl=…`, `--to-recorded-url`), kept in the copy by the run that
/// sent, so a later run or `--dry-run` on the same copy does not need them repeated (issue 26).
/// They count as named by the operator — they were, for this copy — and anything named again
/// on the new command line wins, key by key. A run that names nothing new says it used them.
public struct RememberedTargets: Sendable, Equatable {
    public var url: String?
    public var logURL: String?
    /// `authorization.refreshUrl` as named: a URL, or JSON null ("send without refreshing").
    public var refreshURL: JSONValue?
    public var toRecordedURL: Bool

    /// The `meta` key of the working copy that holds them, as one JSON object.
    static let metaKey = "named_targets"

    /// What the operator named on this command line (`ResyncSetup.effectiveConfig`'s `named`).
    public init(named: SDKConfig, toRecordedURL: Bool) {
        url = named.string("url").flatMap { $0.isEmpty ? nil : $0 }
        logURL = named.string("logUrl").flatMap { $0.isEmpty ? nil : $0 }
        refreshURL = named["authorization"]?.objectValue?.valueIgnoringCase("refreshUrl")
        self.toRecordedURL = toRecordedURL
    }

    public var isEmpty: Bool { url == nil && logURL == nil && refreshURL == nil && !toRecordedURL }

    /// These remembered targets under what this command line names: each key the operator did not
    /// name now is taken from memory, into both the effective and the named config. Returns what
    /// was taken, as `key value` (not `key=value`, which the redactor's pair rules would hide:
    /// `authorization.…=` reads as a credential), for the note.
    public func fill(_ configs: inout (effective: SDKConfig, named: SDKConfig), toRecordedURL: inout Bool) -> [String] {
        var used: [String] = []
        let now = RememberedTargets(named: configs.named, toRecordedURL: toRecordedURL)
        if now.url == nil, let url {
            configs.effective.set(path: "url", to: .string(url))
            configs.named.set(path: "url", to: .string(url))
            used.append("url \(url)")
        }
        if now.logURL == nil, let logURL {
            configs.effective.set(path: "logUrl", to: .string(logURL))
            configs.named.set(path: "logUrl", to: .string(logURL))
            used.append("logUrl \(logURL)")
        }
        if now.refreshURL == nil, let refreshURL {
            configs.effective.set(path: "authorization.refreshUrl", to: refreshURL)
            configs.named.set(path: "authorization.refreshUrl", to: refreshURL)
            used.append("authorization.refreshUrl \(refreshURL.stringValue ?? "null")")
        }
        if !toRecordedURL, self.toRecordedURL {
            toRecordedURL = true
            used.append("--to-recorded-url")
        }
        return used
    }

    var json: JSONValue {
        ["url": .from(url), "logUrl": .from(logURL), "refreshUrl": refreshURL ?? .null,
         "refreshUrlNamed": .bool(refreshURL != nil), "toRecordedUrl": .bool(toRecordedURL)]
    }

    init?(json text: String) {
        guard let object = (try? JSONParser.parse(text))?.objectValue else { return nil }
        url = object["url"]?.stringValue
        logURL = object["logUrl"]?.stringValue
        refreshURL = object["refreshUrlNamed"]?.boolValue == true ? (object["refreshUrl"] ?? .null) : nil
        toRecordedURL = object["toRecordedUrl"]?.boolValue ?? false
    }
}

extension WorkingCopy {
    /// Keeps `targets` (already merged with what was remembered) for later runs on this copy.
    public func remember(targets: RememberedTargets) throws {
        guard !targets.isEmpty else { return }
        try cached("INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)")
            .run([.text(RememberedTargets.metaKey), .text(JSONWriter().string(targets.json))])
    }

    /// Reads the remembered targets of the working copy at `path` without taking it over: one
    /// short connection in exclusive mode (no `-shm` left beside the copy). nil when there is no
    /// copy, or it cannot be read now (a run holds it: the caller's lock then says so).
    public static func rememberedTargets(atPath path: String) -> RememberedTargets? {
        guard FileManager.default.fileExists(atPath: path),
              let db = try? Database(path: path, mode: .readWriteCreate) else { return nil }
        try? db.execute("PRAGMA busy_timeout = 200")
        try? db.execute("PRAGMA locking_mode = EXCLUSIVE")
        return (try? meta(db, RememberedTargets.metaKey)).flatMap { $0 }.flatMap(RememberedTargets.init(json:))
    }
}
