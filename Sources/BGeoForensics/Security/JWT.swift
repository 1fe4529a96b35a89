import Foundation

/// Reads the claims of a JWT without verifying it (we only need `exp` to explain a 401).
public enum JWT {
    /// The payload claims, or nil when the token is not a JWT.
    public static func claims(_ token: String) -> JSONObject? {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3 else { return nil }
        var base64 = parts[1].replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        guard let data = Data(base64Encoded: base64), let text = String(data: data, encoding: .utf8) else { return nil }
        return (try? JSONParser.parse(text))?.objectValue
    }

    /// The `exp` claim (seconds since the epoch), when present.
    public static func expiry(_ token: String) -> Double? {
        claims(token)?["exp"]?.doubleValue
    }
}

/// What can safely be said about a token: a fingerprint, its length, and for a JWT its expiry.
public struct TokenFingerprint: Sendable {
    public let fingerprint: String
    public let length: Int
    public let isJWT: Bool
    public let expiresAt: Double?

    public init(_ token: String) {
        fingerprint = "sha256:" + SHA256Hasher.hex(of: token).prefix(8)
        length = token.count
        let claims = JWT.claims(token)
        isJWT = claims != nil
        expiresAt = claims?["exp"]?.doubleValue
    }

    /// Facts already known (a sanitised dump keeps them for the tokens it replaced).
    init(fingerprint: String, length: Int, isJWT: Bool, expiresAt: Double?) {
        self.fingerprint = fingerprint
        self.length = length
        self.isJWT = isJWT
        self.expiresAt = expiresAt
    }

    /// JSON for reports; `reference` (the dump's newest timestamp) decides `expiredAtDump`.
    public func json(reference: Double?) -> JSONValue {
        var object: JSONObject = ["fingerprint": .string(fingerprint), "length": .int(Int64(length)),
                                  "jwt": .bool(isJWT)]
        if let expiresAt {
            object["exp"] = .string(Timestamp.format(expiresAt, milliseconds: false))
            if let reference { object["expiredAtDump"] = .bool(expiresAt <= reference) }
        }
        return .object(object)
    }
}
