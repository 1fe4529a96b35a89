import BGeoForensics
import Foundation

/// How positions are moved. A "translation" that keeps every replay number must be a motion the
/// engine's arithmetic cannot see: the haversine distance depends only on the two latitudes and
/// the *difference* of longitudes, and the Kalman filter smooths latitude and longitude as two
/// independent scalars. A rotation of the sphere about the polar axis (longitude + Δ) keeps both;
/// so does the half-turn about the equatorial axis through longitude 0 (latitude and longitude
/// both negated). Any other rotation would mix latitude into longitude and change the smoothing,
/// so |latitude| is kept.
///
/// Exactness: when every longitude lies in one binade [2^e, 2^(e+1)) and Δ is a multiple of two
/// units in the last place there, every shifted value, every difference and every Kalman update
/// rounds exactly as the original did: replay is bit-for-bit identical. When the trace does not
/// allow it (it crosses a power of two, or longitude 0), Δ is any real number and results can
/// differ by rounding (nanometres per step).
struct CoordinateTransform: Sendable {
    enum Kind: Sendable, Equatable {
        case keep
        case shift(halfTurn: Bool, delta: Double, exact: Bool)
        case coarsen(stepDegrees: Double, metres: Double)
    }

    let kind: Kind

    static let keep = CoordinateTransform(kind: .keep)

    /// Metres per degree of latitude on the replay sphere.
    static let metresPerDegree = Geodesy.earthRadius * Double.pi / 180

    var isIdentity: Bool { kind == .keep }

    static func coarsen(metres: Double) -> CoordinateTransform {
        CoordinateTransform(kind: .coarsen(stepDegrees: metres / metresPerDegree, metres: metres))
    }

    /// A secret shift for the positions measured in `extent`; exact when the extent allows a
    /// range of at least `minimumExactRange` degrees of placements.
    static func shift(for extent: CoordinateExtent, minimumExactRange: Double = 8,
                      using rng: inout some RandomNumberGenerator) -> CoordinateTransform {
        let halfTurn = Bool.random(using: &rng)
        let sign = halfTurn ? -1.0 : 1.0
        guard extent.count > 0 else { return CoordinateTransform(kind: .shift(halfTurn: halfTurn, delta: 0, exact: true)) }
        let a = sign * extent.minLongitude, b = sign * extent.maxLongitude
        let low = min(a, b), high = max(a, b)
        if let exponent = extent.sharedExponent,
           let delta = exactDelta(low: low, high: high, exponent: exponent, halfTurn: halfTurn,
                                  minimumRange: minimumExactRange, using: &rng) {
            return CoordinateTransform(kind: .shift(halfTurn: halfTurn, delta: delta, exact: true))
        }
        // Any real offset that keeps the whole trace between −180 and 180 (no wrap: a wrapped
        // longitude would send the scalar Kalman filter across the globe).
        let range = (-180 - low)...(180 - high)
        var delta = Double.random(in: range, using: &rng)
        for _ in 0..<64 where !halfTurn && abs(delta) < 1 && range.upperBound - range.lowerBound > 4 {
            delta = Double.random(in: range, using: &rng)
        }
        return CoordinateTransform(kind: .shift(halfTurn: halfTurn, delta: delta, exact: false))
    }

    /// A multiple of 2 ulp(2^e) that keeps [low, high] + Δ inside the binade of exponent e, on
    /// either side of 0 (the image stays within ±180 and a hair away from the binade's edges).
    private static func exactDelta(low: Double, high: Double, exponent: Int, halfTurn: Bool, minimumRange: Double,
                                   using rng: inout some RandomNumberGenerator) -> Double? {
        let binadeLow = Double(sign: .plus, exponent: exponent, significand: 1)
        let edgeLow = binadeLow * (1 + 1e-9)
        let edgeHigh = min(2 * binadeLow * (1 - 1e-9), 180)
        guard edgeLow < edgeHigh else { return nil }
        let unit = Double(sign: .plus, exponent: exponent - 51, significand: 1)  // 2 ulp in the binade
        var ranges: [ClosedRange<Int64>] = []
        var degrees = 0.0
        for (lower, upper) in [(edgeLow - low, edgeHigh - high), (-edgeHigh - low, -edgeLow - high)] where lower <= upper {
            let k0 = Int64((lower / unit).rounded(.up)), k1 = Int64((upper / unit).rounded(.down))
            guard k0 <= k1 else { continue }
            ranges.append(k0...k1)
            degrees += upper - lower
        }
        guard degrees >= minimumRange else { return nil }
        let total = ranges.reduce(UInt64(0)) { $0 + UInt64($1.upperBound - $1.lowerBound) + 1 }
        for _ in 0..<64 {
            var pick = UInt64.random(in: 0..<total, using: &rng)
            for range in ranges {
                let size = UInt64(range.upperBound - range.lowerBound) + 1
                if pick < size {
                    let delta = Double(range.lowerBound + Int64(pick)) * unit
                    // A trace moved by less than a degree is hardly hidden: draw again.
                    if halfTurn || abs(delta) >= 1 { return delta }
                    break
                }
                pick -= size
            }
        }
        return nil
    }

    /// The new latitude.
    func latitude(_ latitude: Double) -> Double {
        switch kind {
        case .keep: return latitude
        case .shift(let halfTurn, _, _): return halfTurn ? -latitude : latitude
        case .coarsen(let step, _): return max(-90, min(90, (latitude / step).rounded() * step))
        }
    }

    /// The new longitude; `latitude` is the original latitude of the same position, when known
    /// (a coarse grid cell is narrower in degrees of longitude toward the poles).
    func longitude(_ longitude: Double, latitude: Double?) -> Double {
        switch kind {
        case .keep: return longitude
        case .shift(let halfTurn, let delta, let exact):
            let moved = (halfTurn ? -longitude : longitude) + delta
            return exact ? moved : max(-180, min(180, moved))
        case .coarsen(let step, _):
            let snappedLatitude = latitude.map { self.latitude($0) } ?? 0
            let cosine = max(cos(snappedLatitude * Double.pi / 180), step / 360)
            let longitudeStep = min(360, step / cosine)
            return max(-180, min(180, (longitude / longitudeStep).rounded() * longitudeStep))
        }
    }

    /// The new heading (degrees clockwise from north; negative = unknown, kept): the half-turn
    /// turns every direction around.
    func heading(_ heading: Double) -> Double {
        guard case .shift(true, _, _) = kind, heading >= 0, heading.isFinite else { return heading }
        let turned = heading + 180
        return turned >= 360 ? turned - 360 : turned
    }

    /// What was done, for the report (never the offset itself).
    var json: JSONValue {
        switch kind {
        case .keep: return ["mode": "keep", "replayIdentical": true]
        case .shift(_, _, let exact):
            return ["mode": "shift", "exact": .bool(exact), "replayIdentical": .bool(exact), "note": .string(note)]
        case .coarsen(_, let metres):
            return ["mode": "coarsen", "gridMetres": .double(metres), "replayIdentical": false, "note": .string(note)]
        }
    }

    /// One sentence for the report.
    var note: String {
        switch kind {
        case .keep: return "positions kept as recorded"
        case .shift(_, _, true):
            return "positions rotated about the polar axis by a secret angle (and, at random, turned half-way round the globe); "
                + "distances, speeds and gaps are unchanged and replay decisions and odometers are bit-for-bit identical; "
                + "the distance from the equator (|latitude|) is kept — no other motion of the sphere keeps the engine's arithmetic"
        case .shift(_, _, false):
            return "positions rotated about the polar axis by a secret angle (and, at random, turned half-way round the globe); "
                + "distances, speeds and gaps are unchanged, but this trace's longitudes cross a power of two (or 0°), so the "
                + "shifted arithmetic rounds differently: replayed distances can differ by rounding (nanometres per step); "
                + "|latitude| is kept"
        case .coarsen(_, let metres):
            return "positions snapped to a grid of about \(DecimalText.format(metres, places: 1)) m: replay decisions, "
                + "odometers and gaps computed from this dump may differ from the original's"
        }
    }
}
