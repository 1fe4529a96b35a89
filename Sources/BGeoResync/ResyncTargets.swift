import BGeoForensics
import Foundation

/// Where a run sends, decided only from what the operator named: re-sync never guesses an
/// endpoint from the dump. A dump's recorded `url` / `logUrl` is the customer's own production
/// server, and sending there (with their tokens) by accident is the worst thing a support tool
/// can do, so it takes `--to-recorded-url`. A recorded `authorization.refreshUrl` on another
/// origin than the one named would receive the customer's refresh token: it takes the same
/// opt-in, or `--set authorization.refreshUrl=…`.
public struct ResyncTargets: Sendable, Equatable {
    /// The lane's endpoint: locations (`--url`) or, for `--logs`, the log endpoint.
    public var lane: String
    public var url: String
    /// Where a 401/403 sends the refresh request, when authorization has a refresh URL.
    public var refreshURL: String?

    /// `scheme://host[:port]` of every endpoint, in order, once each.
    public var origins: [String] {
        var seen: [String] = []
        for url in [url, refreshURL].compactMap({ $0 }) {
            let origin = ResyncTargets.origin(url)
            if !seen.contains(origin) { seen.append(origin) }
        }
        return seen
    }

    /// `https://host:port` as the client will connect (default ports shown too).
    public static func origin(_ url: String) -> String {
        guard let target = HTTPClient.target(url) else { return url }
        return target.key
    }

    /// The option that names the endpoint of `logLane`.
    static func option(logLane: Bool) -> String { logLane ? "--log-url" : "--url" }

    /// What a run would do with these settings: the endpoints it can show, and every reason a real
    /// run would refuse to send, each naming the flag that fixes it. `decide` refuses on the first;
    /// `--dry-run` prints them all and still shows the requests (it sends nothing).
    public struct Plan: Sendable, Equatable {
        /// nil when no usable endpoint URL is known at all.
        public var targets: ResyncTargets?
        public var refusals: [String]
    }

    /// The one place the endpoint rules live (see the type's comment).
    /// - Parameters:
    ///   - settings: the effective settings (dump, then the operator's overrides).
    ///   - named: the operator's own overrides alone (`ResyncSetup.effectiveConfig`'s `named`).
    ///   - toRecorded: `--to-recorded-url`: the dump's recorded endpoints may be used.
    public static func plan(settings: ResyncSettings, named: SDKConfig, toRecorded: Bool, logLane: Bool) -> Plan {
        let key = logLane ? "logUrl" : "url"
        let option = option(logLane: logLane)
        let chosen = logLane ? settings.logURL : settings.url
        let givenByOperator = named[key]?.stringValue.flatMap { $0.isEmpty ? nil : $0 }
        var refusals: [String] = []
        var url: String?
        if let givenByOperator {
            url = givenByOperator
        } else if let recorded = chosen {
            url = recorded
            if !toRecorded {
                refusals.append("no \(option) given. The dump records \(key) \(recorded) — the customer's "
                    + "own endpoint, which would receive their records and credentials. To send there on purpose, run again with "
                    + "--to-recorded-url; to send elsewhere, pass \(option) URL")
            }
        } else {
            refusals.append("no endpoint: pass \(option) URL (the dump's config has no \(key))")
        }
        if let given = url, HTTPClient.target(given) == nil {
            refusals.append("the \(key) '\(given)' is not an http:// or https:// URL; pass \(option) URL")
            url = nil
        }
        var refreshURL: String?
        if let refresh = settings.authorization?.refreshURL {
            let namedRefresh = named["authorization"]?.objectValue?.valueIgnoringCase("refreshUrl")?.stringValue
            if HTTPClient.target(refresh) == nil {
                refusals.append("authorization.refreshUrl '\(refresh)' is not an http:// or https:// URL; "
                    + "pass --set authorization.refreshUrl=URL")
            } else {
                if namedRefresh == nil, !toRecorded, let url, origin(refresh) != origin(url) {
                    refusals.append("the dump's authorization.refreshUrl is \(refresh), another origin than "
                        + "\(origin(url)): a token refresh would send the customer's refresh token there. Name the refresh endpoint "
                        + "with --set authorization.refreshUrl=URL (or =null to send without refreshing), or run with --to-recorded-url to use "
                        + "the recorded one")
                }
                refreshURL = refresh
            }
        }
        let targets = url.map { ResyncTargets(lane: logLane ? "logs" : "locations", url: $0, refreshURL: refreshURL) }
        return Plan(targets: targets, refusals: refusals)
    }

    /// Decides the endpoints, or says (exit 2) why it will not: the plan's first refusal.
    public static func decide(settings: ResyncSettings, named: SDKConfig, toRecorded: Bool,
                              logLane: Bool) throws(ResyncSettings.Invalid) -> ResyncTargets {
        let plan = plan(settings: settings, named: named, toRecorded: toRecorded, logLane: logLane)
        if let refusal = plan.refusals.first { throw ResyncSettings.Invalid(description: refusal) }
        guard let targets = plan.targets else { throw ResyncSettings.Invalid(description: "no endpoint: pass \(option(logLane: logLane)) URL") }
        return targets
    }

    /// The line printed before anything is sent.
    public func sentence(redactor: Redactor) -> String {
        var parts = ["\(lane): \(redactor.redact(text: url))"]
        if let refreshURL { parts.append("token refresh: \(redactor.redact(text: refreshURL))") }
        let where_ = origins.map { redactor.redact(text: $0) }.joined(separator: " and ")
        return "Sending to \(where_) only (\(parts.joined(separator: "; "))); redirects are never followed."
    }

    public func json(redactor: Redactor) -> JSONValue {
        [
            "lane": .string(lane), "url": .string(redactor.redact(text: url)),
            "refreshUrl": .from(refreshURL.map { redactor.redact(text: $0) }),
            "origins": .array(origins.map { .string(redactor.redact(text: $0)) }),
        ]
    }
}
