import BGeoForensics
/// Free text of any column, scrubbed the way every output of the tool is (`Redactor`: learned
/// secrets in every form, JWTs, Bearer credentials, credential pairs, URL user-info), plus the
/// URL policy (`URLReducer`: `--urls host` cuts URLs to their host). Cheap byte checks inside the
/// redactor decide first whether a step can change anything at all: a million timestamps and
/// uuids must not each pay for a search over hundreds of secrets.
struct TextSanitizer {
    let redactor: Redactor
    let urls: URLPolicy

    init(redactor: Redactor, urls: URLPolicy) {
        self.redactor = redactor
        self.urls = urls
    }

    /// The search over every learned secret's forms (blobs and the output's raw-byte check).
    var search: SecretSearch { redactor.secretSearch }

    func scrub(_ text: String, _ changes: inout CellChanges) -> String {
        guard !text.isEmpty else { return text }
        var bytes = text
        if bytes.withUTF8({ leavesAsIs($0) }) { return text }
        var out = text
        // URLs first: a fingerprint holds a space, which would end the URL it sits in.
        let reduced = urls == .keep ? out : URLReducer.apply(out, policy: urls)
        if reduced != out {
            changes.insert(.urls)
            out = reduced
        }
        let redacted = redactor.redact(text: out)
        if redacted != out {
            changes.insert(.secrets)
            out = redacted
        }
        return out
    }

    /// True when `scrub` gives back a text of these bytes unchanged without looking further: a
    /// plain token (a uuid, a timestamp, a number: no URL can start in one) the redactor leaves.
    func leavesAsIs(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool { redactor.leavesAsIs(plainToken: bytes) }

    /// True when `text` is exactly one learned secret.
    func isKnownSecret(_ text: String) -> Bool { redactor.knownSecrets.contains(ExactText(text)) }
}
