import Foundation

/// The redactor's side of copying stored JSON through (`VerbatimJSON`): whether redacting the
/// parsed text would change nothing, decided on the whole text at once.
extension Redactor {
    /// `verbatimForm(json:) == .asIs`: the stored JSON is already in the writer's form
    /// (`VerbatimJSON`) and redacting it would change nothing (`leavesUnchanged`), so parsing,
    /// redacting and writing it would give back its own bytes.
    public func copiesThrough(json text: String) -> Bool {
        var text = text
        return text.withUTF8 { copiesThrough(json: $0) }
    }

    /// `copiesThrough` on the stored bytes.
    public func copiesThrough(json bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        verbatimForm(json: bytes) == .asIs
    }

    /// How parsing, redacting and writing `bytes` would give them back: `.asIs` (`copiesThrough`),
    /// `.spaced` (the bytes without the whitespace between tokens,
    /// `VerbatimJSON.appendWithoutSpace`), or `.other` (they must be parsed: `RedactedJSONText`).
    public func verbatimForm(json bytes: UnsafeBufferPointer<UInt8>) -> VerbatimJSON.Form {
        // The names are looked for as the form is checked (one pass), the rest after.
        guard enabled else { return VerbatimJSON.form(bytes) }
        let form = VerbatimJSON.form(bytes, holdingNoneOf: Redactor.verbatimFilter)
        // Whitespace between tokens holds no secret: what is searched for is in the strings.
        guard form != .other, leavesUnchanged(json: bytes, namesChecked: true) else { return .other }
        return form
    }

    /// True when `redact(parse(bytes))` equals the parsed value, for JSON that
    /// `VerbatimJSON.isWrittenAsIs` accepts (no escapes) and whose strings hold no sensitive name
    /// (`VerbatimJSON.form(_:holdingNoneOf:)`, or a byte from 0x80 when the caller did not look).
    /// Conservative: a text that merely might hold something to redact answers false and takes
    /// the tree path. Every rule of `redact(text:)` and of the key rules is searched across the
    /// whole text: no `@` (URL user-info), `%` or `\` (other readings of a secret), `eyJ` (a JWT),
    /// `bearer `, no name a sensitive key or credential pair contains, no `headers` key, no known
    /// secret in any form.
    public func leavesUnchanged(json bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        leavesUnchanged(json: bytes, namesChecked: false)
    }

    /// `namesChecked`: the caller already knows no name of `verbatimFilter` is in `bytes`.
    private func leavesUnchanged(json bytes: UnsafeBufferPointer<UInt8>, namesChecked: Bool) -> Bool {
        guard enabled else { return true }
        guard !bytes.isEmpty else { return true }
        for byte in [UInt8(ascii: "@"), UInt8(ascii: "%"), UInt8(ascii: "\\")] where ByteSearch.contains(byte, in: bytes) {
            return false
        }
        if !namesChecked, Redactor.verbatimFilter.mayContainName(bytes: bytes) { return false }
        guard !knownSecrets.isEmpty else { return true }
        var hit = false
        secretSearch.forEachHit(in: bytes) { _ in hit = true }
        return !hit
    }

    public func leavesUnchanged(json text: String) -> Bool {
        var text = text
        return text.withUTF8 { leavesUnchanged(json: $0) }
    }

    /// One pass for every name: the sensitive key fragments and credential pair names (the pair
    /// filter's), `headers` (a key walked header by header), and `eyJ` and `bearer` in any letter
    /// case (a superset of the JWT and Bearer rules' tests).
    private static let verbatimFilter = SensitiveNameFilter(
        SecretRules.sensitiveKeyFragments + SecretRules.credentialPairNames + ["headers", "eyj", "bearer"])
}
