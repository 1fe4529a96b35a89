import BGeoForensics
/// One HTTP request exactly as it goes on the wire: no I/O, so tests compare it byte for byte.
public struct HTTPRequestSpec: Sendable, Equatable {
    public var method: String
    public var url: String
    /// In send order. `Content-Type: application/json` first, then config headers, then Authorization.
    public var headers: [HTTPHeader]
    public var body: [UInt8]

    public init(method: String, url: String, headers: [HTTPHeader], body: [UInt8]) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
    }

    public var bodyText: String { String(decoding: body, as: UTF8.self) }

    /// The first header with this name (case-insensitive).
    public func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    /// Human rendering for `--dry-run`: request line, headers, blank line, body. Authorization and
    /// any header whose name looks secret (api keys, tokens) are fingerprinted unless `redactor`
    /// is disabled; the body's known secrets are scrubbed too.
    public func rendered(redactor: Redactor) -> String {
        var lines = ["\(method) \(url)"]
        for header in headers { lines.append("\(header.name): \(header.redactedValue(redactor))") }
        lines.append("")
        lines.append(redactor.redact(text: bodyText))
        return lines.joined(separator: "\n")
    }

    /// Headers as a JSON object with secret values fingerprinted (for the journal and `--json`).
    public func redactedHeaders(_ redactor: Redactor) -> JSONValue {
        .object(JSONObject(headers.map { (key: $0.name, value: .string($0.redactedValue(redactor))) }))
    }
}

/// One request header.
public struct HTTPHeader: Sendable, Equatable {
    public var name: String
    public var value: String

    public init(_ name: String, _ value: String) {
        self.name = name
        self.value = value
    }

    /// True for Authorization, api-key and token-like header names.
    public var isSecret: Bool {
        Redactor.isSensitiveKey(name) || name.lowercased().contains("key")
    }

    /// Why this header cannot go on the wire, or nil. A CR or LF would end the header line and
    /// let the rest become headers (or a request) of its own; NUL and other control characters
    /// are cut or refused differently by every server. A name must be an RFC 9110 token.
    public var problem: String? {
        if name.isEmpty { return "a header has an empty name" }
        if let bad = name.unicodeScalars.first(where: { !HTTPHeader.isTokenCharacter($0) }) {
            return "header name '\(HTTPHeader.visible(name))' contains \(HTTPHeader.describe(bad)), which a header name cannot hold"
        }
        if let bad = HTTPHeader.forbiddenCharacter(inValue: value) {
            return "header '\(name)' has a value that contains \(HTTPHeader.describe(bad)); a header value must be one line without control characters"
        }
        return nil
    }

    /// The first character a header value cannot carry (controls other than TAB, DEL).
    public static func forbiddenCharacter(inValue value: String) -> Unicode.Scalar? {
        value.unicodeScalars.first { ($0.value < 0x20 && $0 != "\t") || $0.value == 0x7F }
    }

    static func isTokenCharacter(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar {
        case "a"..."z", "A"..."Z", "0"..."9": return true
        default: return "!#$%&'*+-.^_`|~".unicodeScalars.contains(scalar)
        }
    }

    public static func describe(_ scalar: Unicode.Scalar) -> String {
        switch scalar {
        case "\r": return "a carriage return (CR)"
        case "\n": return "a line feed (LF)"
        case "\0": return "a NUL character"
        case " ": return "a space"
        default:
            return scalar.value < 0x20 || scalar.value == 0x7F || scalar.value > 0x7E
                ? String(format: "the character U+%04X", scalar.value) : "'\(Character(scalar))'"
        }
    }

    /// A name as shown in a message: control characters as `\r`, `\n`, `\u{…}`.
    static func visible(_ text: String) -> String {
        String(text.unicodeScalars.map { $0.value < 0x20 || $0.value == 0x7F ? $0.escaped(asASCII: true) : String($0) }.joined())
    }

    func redactedValue(_ redactor: Redactor) -> String {
        guard redactor.enabled else { return value }
        guard isSecret else { return redactor.redact(text: value) }
        if value.lowercased().hasPrefix("bearer ") { return "Bearer " + Redactor.fingerprint(String(value.dropFirst(7))) }
        return Redactor.fingerprint(value)
    }
}

extension SHA256Hasher {
    /// SHA-256 of raw bytes, hex (the journal's fingerprint of a request body).
    static func hex(bytes: [UInt8]) -> String {
        var hasher = SHA256Hasher()
        bytes.withUnsafeBytes { hasher.update($0) }
        return hasher.finalizeHex()
    }
}
