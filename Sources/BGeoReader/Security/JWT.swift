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

    /// The `exp` claim (seconds since the epoch), when present and a time (see `Timestamp.isTime`).
    public static func expiry(_ token: String) -> Double? {
        guard case .time(let seconds) = expiryClaim(token) else { return nil }
        return seconds
    }

    /// What a token says about its expiry.
    public enum ExpiryClaim: Sendable, Equatable {
        /// Not a JWT, or no numeric `exp`.
        case none
        case time(Double)
        /// A number that names no time (1e16, -1e308): shown as the number, never converted.
        case notATime(Double)
    }

    public static func expiryClaim(_ token: String) -> ExpiryClaim {
        guard let exp = claims(token)?["exp"]?.doubleValue else { return .none }
        return Timestamp.isTime(exp) ? .time(exp) : .notATime(exp)
    }

    /// The warning for a token whose `exp` is not a time ("exp 1e+16 is not a time …"), nil otherwise.
    public static func expiryProblem(_ token: String) -> String? {
        guard case .notATime(let exp) = expiryClaim(token) else { return nil }
        return "exp \(NumberText.describe(exp)) is not a time (the token's expiry is unknown)"
    }
}

/// What can safely be said about a token: a fingerprint, its length, and for a JWT its expiry.
public struct TokenFingerprint: Sendable {
    public let fingerprint: String
    public let length: Int
    public let isJWT: Bool
    /// The `exp` claim when it is a time.
    public let expiresAt: Double?
    /// The `exp` claim when it is a number that names no time (shown as the number).
    public let invalidExpiry: Double?

    public init(_ token: String) {
        fingerprint = "sha256:" + SHA256Hasher.hex(of: token).prefix(8)
        length = token.count
        let claims = JWT.claims(token)
        isJWT = claims != nil
        switch JWT.expiryClaim(token) {
        case .none: (expiresAt, invalidExpiry) = (nil, nil)
        case .time(let t): (expiresAt, invalidExpiry) = (t, nil)
        case .notATime(let n): (expiresAt, invalidExpiry) = (nil, n)
        }
    }

    /// Facts already known (a sanitised dump keeps them for the tokens it replaced).
    init(fingerprint: String, length: Int, isJWT: Bool, expiresAt: Double?, invalidExpiry: Double? = nil) {
        self.fingerprint = fingerprint
        self.length = length
        self.isJWT = isJWT
        self.expiresAt = expiresAt
        self.invalidExpiry = invalidExpiry
    }

    /// JSON for reports; `reference` (the dump's newest timestamp) decides `expiredAtDump`.
    public func json(reference: Double?) -> JSONValue {
        var object: JSONObject = ["fingerprint": .string(fingerprint), "length": .int(Int64(length)),
                                  "jwt": .bool(isJWT)]
        if let expiresAt {
            object["exp"] = .string(Timestamp.format(expiresAt, milliseconds: false))
            if let reference { object["expiredAtDump"] = .bool(expiresAt <= reference) }
        } else if let invalidExpiry {
            object["exp"] = .string(NumberText.describe(invalidExpiry) + " (not a time)")
        }
        return .object(object)
    }
}
