import BGeoForensics
import Foundation

/// JWT-shaped tokens (`eyJ…`) with a real `exp` claim, from the simulator's own PRNG.
enum TokenFactory {
    static func base64url(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    static func jwt(subject: String, issuedAt: Double, expires: Double, kind: String, rng: inout SplitMix64) -> String {
        let header: JSONValue = ["alg": "HS256", "typ": "JWT"]
        let payload: JSONValue = ["sub": .string(subject), "typ": .string(kind), "iat": .int(Int64(issuedAt)),
                                  "exp": .int(Int64(expires)), "jti": .string(rng.uuid())]
        return base64url(Array(header.jsonText.utf8)) + "." + base64url(Array(payload.jsonText.utf8)) + "."
            + base64url(rng.bytes(32))
    }

    /// An api key like `sk_live_…` (hex).
    static func apiKey(rng: inout SplitMix64) -> String {
        "sk_live_" + rng.bytes(16).map { String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16) }.joined()
    }
}
