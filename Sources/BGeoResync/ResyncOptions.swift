import BGeoForensics
import Foundation

/// Limits and knobs of one run.
public struct ResyncOptions: Sendable {
    /// The policy with its backoff already scaled by `--backoff-initial/--backoff-max`.
    public var policy: UploadPolicy
    /// Stop (records stay queued) after this many consecutive failed attempts; nil = never.
    public var maxAttempts: Int?
    /// Stop once this many seconds have passed, or a wait would cross it; nil = no deadline.
    public var deadline: Double?
    /// The URL of the location lane (already `--url` or config `url`).
    public var url: String
    /// The log lane's URL (`--log-url` or config `logUrl`).
    public var logURL: String?

    public init(policy: UploadPolicy, maxAttempts: Int? = nil, deadline: Double? = nil, url: String, logURL: String? = nil) {
        self.policy = policy
        self.maxAttempts = maxAttempts
        self.deadline = deadline
        self.url = url
        self.logURL = logURL
    }
}
