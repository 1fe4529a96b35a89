import BGeoReader

/// Stage 2: the accuracy gate. Runs under every policy, PassThrough included.
public enum AccuracyGate {
    /// True when the fix may go on: its accuracy is known (present, ≥ 0, not NaN) and not greater
    /// than `maxAccuracy`. An unknown accuracy is rejected: the engine cannot vouch for the fix.
    @inline(__always)
    public static func passes(accuracy: Double?, maxAccuracy: Double) -> Bool {
        guard let accuracy, accuracy >= 0 else { return false }  // NaN fails `>= 0` too
        return accuracy <= maxAccuracy
    }
}
