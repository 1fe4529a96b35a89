import Foundation
import Testing
@testable import BGeoReader
@testable import BGeoForensics
@testable import BGeoSimulation

/// The conversions and formatters every dump number goes through: none of them traps, whatever
/// the Double (each of these inputs trapped one of the old call sites).
@Suite struct CheckedNumberTests {
    static let unfit: [Double] = [.nan, .infinity, -.infinity, 1e19, -1e19, 9_223_372_036_854_775_808, 1e308, -1e308]

    @Test(arguments: unfit)
    func checkedIntegerConversionSaysNil(value: Double) {
        #expect(Int64(checked: value) == nil)
        #expect(Int(checked: value) == nil)
    }

    @Test func checkedIntegerConversionRoundsWhatFits() {
        #expect(Int64(checked: 2.5) == 3)
        #expect(Int64(checked: -9_223_372_036_854_775_808) == Int64.min)
        #expect(Int64(checked: 9_223_372_036_854_774_784) == 9_223_372_036_854_774_784)
        #expect(Int(clamping: .nan, to: 0...10) == 0)
        #expect(Int(clamping: 1e300, to: 0...10) == 10)
        #expect(Int(clamping: -1e300, to: Int.min...Int.max) == Int.min)
    }

    @Test(arguments: unfit + [1e16, -62_167_219_201])
    func formattersNeverTrap(value: Double) {
        #expect(!Timestamp.isTime(value))
        #expect(Timestamp.format(value).hasSuffix("(not a time)"))
        _ = DurationFormat.short(value)
        _ = String(format2: value)
        _ = SVGFormat.duration(value)
        _ = DecimalText.format(value, places: 7)
    }

    @Test func unfitNumbersAreShownAsTheNumbersTheyAre() {
        #expect(DurationFormat.short(1e19) == "1e+19 s")
        #expect(String(format2: 1e308) == "1e+308")
        #expect(String(format2: 12.345) == "12.35")
        #expect(Timestamp.format(1e16) == "1e+16 (not a time)")
        #expect(Timestamp.format(0) == "1970-01-01T00:00:00.000Z")
        #expect(Timestamp.format(-62_167_219_200, milliseconds: false) == "0000-01-01T00:00:00Z")
    }

    @Test func jwtExpiryIsATimeOrSaidNotToBe() {
        #expect(JWT.expiryClaim(FuzzValues.jwt(exp: "1784880000")) == .time(1_784_880_000))
        #expect(JWT.expiryClaim(FuzzValues.jwt(exp: "1e16")) == .notATime(1e16))
        #expect(JWT.expiry(FuzzValues.jwt(exp: "-1e308")) == nil)
        #expect(JWT.expiryProblem(FuzzValues.jwt(exp: "1e16")) == "exp 1e+16 is not a time (the token's expiry is unknown)")
        #expect(JWT.expiryClaim("not-a-jwt") == .none)
        let fingerprint = TokenFingerprint(FuzzValues.jwt(exp: "1e16"))
        #expect(fingerprint.json(reference: 0)["exp"]?.stringValue == "1e+16 (not a time)")
    }
}
