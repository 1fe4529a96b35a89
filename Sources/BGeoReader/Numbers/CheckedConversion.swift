/// Whole numbers from Doubles that came from a dump (or were computed from one): `Int(x)` traps
/// when `x` is NaN, infinite or beyond ±9.2e18 — a JWT `exp` of 1e16 seconds is a fine Double but
/// not a millisecond count — so every such conversion goes through these, which say nil instead.
extension Int64 {
    /// `value` rounded to the nearest whole number, or nil when it is not finite or does not fit.
    public init?(checked value: Double) {
        let rounded = value.rounded()
        // 2^63 is exactly representable; every Double below it (and ≥ −2^63) fits.
        guard rounded.isFinite, rounded >= -9_223_372_036_854_775_808.0, rounded < 9_223_372_036_854_775_808.0 else {
            return nil
        }
        self.init(rounded)
    }
}

extension Int {
    /// `value` rounded to the nearest whole number, or nil when it is not finite or does not fit.
    public init?(checked value: Double) {
        guard let wide = Int64(checked: value), let narrow = Int(exactly: wide) else { return nil }
        self = narrow
    }

    /// `value` rounded and clamped into `range` (NaN gives the lower bound): for pixel and
    /// bucket arithmetic, where any answer inside the picture beats a trap.
    public init(clamping value: Double, to range: ClosedRange<Int>) {
        guard !value.isNaN else { self = range.lowerBound; return }
        let rounded = value.rounded(.down)
        if rounded <= Double(range.lowerBound) { self = range.lowerBound; return }
        if rounded >= Double(range.upperBound) { self = range.upperBound; return }
        self = Int(rounded)
    }
}

/// How a number that is not usable is named in a warning or a text view: `1e+16`, `nan`, `inf`.
public enum NumberText {
    public static func describe(_ value: Double) -> String {
        if value.isNaN { return "NaN" }
        if value.isInfinite { return value > 0 ? "Infinity" : "-Infinity" }
        return "\(value)"
    }
}
