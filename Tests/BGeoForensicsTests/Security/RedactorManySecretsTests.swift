import Foundation
import Testing
@testable import BGeoReader

/// Regression (stop 48): a `config` line may state any number of secrets. The redactor kept its
/// list in order by inserting each new secret at its place, moving the list once per secret: a
/// line with 200,000 sensitive keys took 3.5 s of `inspect`'s 5.2 s. The order is made once, when
/// the search over the secrets is compiled.
@Suite struct RedactorManySecretsTests {
    static func secrets(_ count: Int) -> [String] {
        var generator = SystemRandomNumberGenerator()
        let letters = Array("abcdefghijklmnopqrstuvwxyz0123456789")
        return (0..<count).map { i in
            // Lengths vary so the order by length has work to do; below base64's minimum (12),
            // so each secret's own forms are few and the time measured is the learning's.
            String((0..<(6 + i % 6)).map { _ in letters.randomElement(using: &generator)! })
        }
    }

    @Test func manySecretsAreLearnedInLinearTime() {
        let secrets = RedactorManySecretsTests.secrets(300_000)
        var redactor = Redactor()
        let started = Date()
        for secret in secrets { redactor.learn(secret: secret) }
        let seconds = Date().timeIntervalSince(started)
        #expect(redactor.knownSecrets.count == Set(secrets).count)
        #expect(seconds < 5, "learning took \(seconds) s")
    }

    /// The order the search is compiled over is the one insertion in order gave: longest first,
    /// then by text; and it does not depend on the order secrets were learned in.
    @Test func theOrderIsLongestFirstThenByTextWhateverTheLearningOrder() {
        let secrets = RedactorManySecretsTests.secrets(3_000)
        var forward = Redactor(), backward = Redactor()
        for secret in secrets { forward.learn(secret: secret) }
        for secret in secrets.reversed() { backward.learn(secret: secret) }
        let expected = Array(Set(secrets)).sorted { a, b in a.utf8.count != b.utf8.count ? a.utf8.count > b.utf8.count : a < b }
        #expect(forward.secretsLongestFirst == expected)
        #expect(backward.secretsLongestFirst == expected)
        var merged = Redactor()
        merged.learn(from: backward)
        #expect(merged.secretsLongestFirst == expected)
    }

    /// A secret learned after a redaction is found by the next one (the search is compiled again).
    @Test func aSecretLearnedAfterASearchIsFound() {
        var redactor = Redactor()
        redactor.learn(secret: "first-secret-0001")
        #expect(!redactor.redact(text: "a first-secret-0001 b").contains("first-secret-0001"))
        #expect(redactor.redact(text: "a second-secret-0002 b").contains("second-secret-0002"))
        redactor.learn(secret: "second-secret-0002")
        #expect(!redactor.redact(text: "a second-secret-0002 b").contains("second-secret-0002"))
    }
}
