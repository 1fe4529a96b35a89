/// The replayed track: the fixes a replay of the complete trace accepts (or adjusts), at the
/// replay's output positions, under the dump's config plus `--set` overrides (as `replay`).
/// Heading and altitude are not replay inputs; they come from the fix's own queue or log row,
/// read with the trace.
enum ReplayTrack {
    static func points(dump: Dump, trace: Trace, overrides: [String]) throws(UsageError) -> (points: [GPXTrackPoint], notes: [String]) {
        var configuration = ReplayConfiguration.recorded(from: dump)
        for text in overrides { try configuration.apply(set: text) }
        let result = ReplayEngine.run(trace: trace, config: configuration.filter, source: configuration.sourceDescription,
                                      notes: configuration.notes, isWhatIf: !configuration.overrides.isEmpty)
        var points: [GPXTrackPoint] = []
        points.reserveCapacity(result.accepted + result.adjusted)
        for (i, d) in result.decisions.enumerated() where d.decision != .rejected {
            let fix = result.fixes[i]
            points.append(GPXTrackPoint(time: fix.time, latitude: d.latitude, longitude: d.longitude, altitude: fix.altitude,
                                        accuracy: fix.accuracy, speed: fix.speed, heading: fix.heading,
                                        uuid: fix.uuid.isEmpty ? nil : fix.uuid, decision: d.decision == .adjusted ? "adjusted" : nil))
        }
        return (points, ["replayed with \(configuration.sourceDescription): \(result.accepted) accepted, \(result.adjusted) adjusted, \(result.rejected) rejected"])
    }
}
