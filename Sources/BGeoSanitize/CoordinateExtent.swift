import BGeoForensics
/// The longitudes a dump holds (every position `sanitize` would move), measured in a first pass
/// so the secret shift can be chosen to keep the whole trace on the same side of the antimeridian
/// — and, where the trace allows, inside one binary order of magnitude, which makes the shifted
/// arithmetic exact (see `CoordinateTransform`).
struct CoordinateExtent: Sendable, Equatable {
    private(set) var count = 0
    private(set) var minLongitude = Double.infinity
    private(set) var maxLongitude = -Double.infinity
    /// Smallest and largest |longitude| (their binary exponents decide exactness).
    private(set) var minMagnitude = Double.infinity
    private(set) var maxMagnitude = 0.0

    mutating func add(longitude: Double) {
        count += 1
        minLongitude = min(minLongitude, longitude)
        maxLongitude = max(maxLongitude, longitude)
        minMagnitude = min(minMagnitude, abs(longitude))
        maxMagnitude = max(maxMagnitude, abs(longitude))
    }

    /// Both extents in one (the queue and the log are measured on two threads).
    mutating func merge(_ other: CoordinateExtent) {
        guard other.count > 0 else { return }
        count += other.count
        minLongitude = min(minLongitude, other.minLongitude)
        maxLongitude = max(maxLongitude, other.maxLongitude)
        minMagnitude = min(minMagnitude, other.minMagnitude)
        maxMagnitude = max(maxMagnitude, other.maxMagnitude)
    }

    /// The binary exponent shared by every |longitude|, when there is one: all values non-zero,
    /// of one sign, and in one binade [2^e, 2^(e+1)).
    var sharedExponent: Int? {
        guard count > 0, minMagnitude > 0, minMagnitude.isNormal, minLongitude > 0 || maxLongitude < 0,
              minMagnitude.exponent == maxMagnitude.exponent else { return nil }
        return Int(minMagnitude.exponent)
    }
}
