/// What happens to URLs: the redactor keeps them (credentials fingerprinted); `sanitize --urls host`
/// cuts them to their host.
public enum URLPolicy: String, Sendable, CaseIterable {
    /// Kept; credentials in them (user:password@, sensitive query values) are still fingerprinted.
    case keep
    /// Only `scheme://host[:port]` kept: path, query and fragment removed.
    case host
}
