import Foundation
import Testing
@testable import BGeoReader
@testable import BGeoForensics
@testable import BGeoSimulation

/// The decoders behind every search for a learned secret in its escaped forms are written once
/// (`DecodedView`); a search that only counts takes the decoded bytes without positions. Both
/// must read the same bytes, and a search must find the same secrets either way.
@Suite struct DecodedViewTests {
    /// Random texts dense in escapes (well-formed, cut short, surrogate pairs and lone halves).
    static func texts(count: Int, seed: UInt64) -> [[UInt8]] {
        var rng = SplitMix64(seed: seed)
        let pieces: [String] = ["\\", "\\u", "\\u00", "\\u0041", "\\ud83d\\ude00", "\\ud83d", "\\udc00", "\\uZZZZ", "\\n", "\\/",
                                "\\\"", "%", "%4", "%41", "%zz", "%E2%82%AC", "a", "é", "tok", "-", "_", "\u{0}"]
        return (0..<count).map { _ in
            var text: [UInt8] = []
            for _ in 0..<Int.random(in: 0...24, using: &rng) { text += Array(pieces.randomElement(using: &rng)!.utf8) }
            return text
        }
    }

    @Test func theBytesAloneAreTheViewsBytes() {
        var compared = 0
        for text in Self.texts(count: 20_000, seed: 2026_12_05) {
            text.withUnsafeBufferPointer { bytes in
                for reading in DecodedView.Reading.allCases {
                    var alone: [UInt8]?
                    DecodedView.withDecodedBytes(reading, bytes) { alone = Array($0) }
                    let view = DecodedView(reading, bytes)
                    #expect(alone == view?.decoded, "\(reading) of \(String(decoding: text, as: UTF8.self).debugDescription)")
                    if let view {
                        #expect(view.start.count == view.decoded.count && view.end.count == view.decoded.count)
                        compared += 1
                    }
                }
            }
        }
        #expect(compared > 20_000, "the texts hold escapes of both kinds")
    }

    /// A secret written with escapes is counted and fingerprinted as before, in every reading.
    @Test func aSecretInEveryEscapeIsFoundAndReplaced() {
        let secret = "tok-SECRET_123"
        let search = SecretSearch(secrets: [secret])
        let forms = [secret, "tok\\u002dSECRET_123", "tok%2DSECRET%5F123", "t\\u006fk-SECRET_123", "tok-SECRET\\u005f123"]
        for form in forms {
            let text = Array("{\"a\":\"x \(form) y\"}".utf8)
            text.withUnsafeBytes { raw in #expect(search.countMatches(in: raw) >= 1, "\(form)") }
            let replaced = text.withUnsafeBufferPointer { search.fingerprintingHits(in: $0) }
            let out = replaced.map { String(decoding: $0, as: UTF8.self) } ?? ""
            #expect(!out.contains(form) && out.contains(Redactor.fingerprint(secret)), "\(form) → \(out)")
        }
        let clean = Array("{\"a\":\"%41\\u0041 nothing here\"}".utf8)
        clean.withUnsafeBytes { #expect(search.countMatches(in: $0) == 0) }
        #expect(clean.withUnsafeBufferPointer { search.fingerprintingHits(in: $0) } == nil)
    }
}
