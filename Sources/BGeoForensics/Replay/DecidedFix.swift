/// A fix with the decision taken on it: what the report, the recorded trace, the exports, the map
/// and the charts walk. It only pairs the two types that hold a fix's fields, so that a fix with
/// its decision can be stored on a tape (a `SpoolRecord` is one value): the fix as observed
/// (`Fix`), and the verdict with the position that left the pipeline (`FixDecision.latitude` and
/// `longitude`).
public struct DecidedFix: Sendable {
    public var fix: Fix
    public var decision: FixDecision

    public init(fix: Fix, decision: FixDecision) {
        self.fix = fix
        self.decision = decision
    }

    /// A fix of the recorded trace with the decision the engine logged for it (its `source`'s,
    /// with its `recordedReason`), and the position it logged as its output.
    init(recorded fix: Fix, outputLatitude: Double, outputLongitude: Double) {
        self.init(fix: fix, decision: FixDecision(index: fix.index, decision: fix.source.recordedDecision, reason: fix.recordedReason,
                                                  latitude: outputLatitude, longitude: outputLongitude, odometer: 0))
    }

    /// A fix of the complete trace with the replay's decision, as the report's trace keeps it:
    /// without the recorded fields the report draws none of (heading, altitude, the SDK's
    /// odometer, is_moving) and without a logged reason (the replay gives its own).
    init(replayed fix: Fix, decision: FixDecision) {
        var kept = fix
        kept.headingOrNaN = .nan
        kept.altitudeOrNaN = .nan
        kept.recordedOdometerOrNaN = .nan
        kept.isMoving = nil
        kept.loggedReason = nil
        self.init(fix: kept, decision: decision)
    }

    /// Why the fix was rejected, as the outputs print it: `accuracy`, `time`, `teleport`, or the
    /// reason the engine logged when it is none of those (`Fix.loggedReason`); nil otherwise.
    public var reason: String? { decision.reason?.rawValue ?? fix.loggedReason }

    /// A `location` line's fix: the only log line the engine accepted as it stands (reject and
    /// adjust lines carry their own decision), and the only one a queued uuid groups.
    var isLocationLine: Bool { fix.source == .logLocation }
}
