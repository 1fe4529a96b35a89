/// What happens to free-form customer data: record and config `extras`, config `params` and
/// `diagnosticExtras`, and app-written (`src` js) log lines. `sanitize` applies it; its marker
/// (`SanitizationMarker`) records it, so every later command can say what was done.
public enum ExtrasPolicy: String, Sendable, CaseIterable {
    /// Emptied: objects become `{}`, app lines lose their message and data.
    case drop
    /// Values replaced by a keyed hash (HMAC-SHA-256 with a key that exists only during the
    /// run), keys kept: equal values stay equal, nothing can be guessed back.
    case hash
    /// Kept as they are (secrets inside are still fingerprinted).
    case keep
}
