import BGeoReader

/// The value of a given rank among many (the accuracy chart's 99th percentile), exact, in
/// bounded memory: a histogram of the values' top 16 key bits is taken as they go by, then each
/// further pass over the values narrows to the bucket holding the rank, 16 bits at a time, until
/// the bucket is small enough to sort. The same value `values.sorted()[rank]` gives.
struct RankSelection {
    static let bucketBits = 16
    static let smallEnough = 1 << 16
    private var histogram = [Int](repeating: 0, count: 1 << RankSelection.bucketBits)
    private(set) var count = 0

    /// A key that orders like the values (IEEE 754 bits, negatives flipped).
    @inline(__always) static func key(_ v: Double) -> UInt64 {
        let bits = v.bitPattern
        return bits >> 63 == 0 ? bits | (1 << 63) : ~bits
    }

    /// Counts a value into the first-level histogram.
    mutating func add(_ v: Double) {
        count += 1
        histogram[Int(RankSelection.key(v) >> 48)] += 1
    }

    /// The value at `rank` (0-based) among the values added, walking them again through `pass`
    /// (each call must hand over the same values) as often as needed.
    func value(atRank rank: Int, pass: ((Double) -> Void) -> Void) -> Double? {
        guard rank >= 0, rank < count else { return nil }
        var counts = histogram
        var prefix: UInt64 = 0
        var remaining = rank
        var shift = 64 - RankSelection.bucketBits
        while true {
            // The bucket holding the rank, and the rank within it.
            var bucket = 0
            while remaining >= counts[bucket] {
                remaining -= counts[bucket]
                bucket += 1
            }
            prefix = prefix << UInt64(RankSelection.bucketBits) | UInt64(bucket)
            let inBucket = counts[bucket]
            if inBucket <= RankSelection.smallEnough || shift == 0 {
                var values: [Double] = []
                values.reserveCapacity(inBucket)
                let wanted = prefix, at = UInt64(shift)
                pass { v in if RankSelection.key(v) >> at == wanted { values.append(v) } }
                values.sort()
                return values[remaining]
            }
            // Narrow: the next 16 bits inside this bucket.
            shift -= RankSelection.bucketBits
            counts = [Int](repeating: 0, count: 1 << RankSelection.bucketBits)
            let wanted = prefix, at = UInt64(shift + RankSelection.bucketBits), mask = UInt64((1 << RankSelection.bucketBits) - 1)
            let below = UInt64(shift)
            pass { v in
                let k = RankSelection.key(v)
                if k >> at == wanted { counts[Int((k >> below) & mask)] += 1 }
            }
        }
    }
}
