import Foundation
import Testing
@testable import BGeoReader

/// Regression (stop 49): tokens minted by one server share their first bytes (`tok_…`,
/// `eyJhbGci…`). The search checked a position against every form sharing its first four bytes,
/// so with a token learned per refresh each request cost a compare per token learned so far:
/// `timeline` on 100,000 refreshes took 142 s (7.1 s at 25,000). Forms are now keyed by their
/// first `window` bytes, which every hit holds.
@Suite struct SharedPrefixSecretsTests {
    static func tokens(_ count: Int) -> [String] {
        var generator = SystemRandomNumberGenerator()
        return (0..<count).map { _ in "tok_" + String(format: "%016llx%016llx", generator.next() as UInt64, generator.next() as UInt64) }
    }

    @Test func manyTokensSharingAPrefixAreFoundEachInLinearTime() {
        let tokens = Self.tokens(20_000)
        var redactor = Redactor()
        for token in tokens { redactor.learn(secret: token) }
        let started = Date()
        var found = 0, leaked = 0, wrong = 0, nearMissesLeft = 0
        for (i, token) in tokens.enumerated() {
            // As a request carries it: in a URL, a header and a message.
            let text = "POST https://ingest.example.com/v1/loc?access_token=\(token)&n=\(i) Authorization: Bearer \(token)"
            let out = redactor.redact(text: text)
            if out.contains("tok_") { leaked += 1 }
            if out.components(separatedBy: Redactor.fingerprint(token)).count - 1 == 2 { found += 1 } else { wrong += 1 }
            // The same first 20 characters, then others (letters go on: not a cut-off copy).
            let nearMiss = String(token.prefix(20)) + "zzzzzzzzzzzzzzzz"
            if redactor.redact(text: "note \(nearMiss) end") == "note \(nearMiss) end" { nearMissesLeft += 1 }
        }
        let seconds = Date().timeIntervalSince(started)
        #expect(found == tokens.count && wrong == 0 && leaked == 0)
        #expect(nearMissesLeft == tokens.count)
        #expect(seconds < 20, "40,000 texts against 20,000 tokens took \(seconds) s")
    }

    /// A cut-off copy (a body truncated after 16 characters or more) is still found among many
    /// forms sharing its first bytes.
    @Test func aCutOffTokenIsFoundAmongManyLikeIt() {
        let tokens = Self.tokens(5_000)
        var redactor = Redactor()
        for token in tokens { redactor.learn(secret: token) }
        for token in tokens.prefix(200) {
            let cut = String(token.prefix(24))
            let out = redactor.redact(text: "response body: \(cut)…")
            #expect(!out.contains(cut), "\(cut) left in \(out)")
            #expect(out.contains(Redactor.fingerprint(token)))
        }
    }
}
