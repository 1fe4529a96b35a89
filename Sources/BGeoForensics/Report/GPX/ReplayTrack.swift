/// The replayed track: the fixes a replay of the complete trace accepts (or adjusts), at the
/// replay's output positions, under the dump's config plus `--set` overrides (as `replay`).
/// Heading and altitude are not replay inputs; they are taken from the fix's own queue or log row.
enum ReplayTrack {
    static func points(dump: Dump, trace: Trace, overrides: [String]) throws(UsageError) -> (points: [GPXTrackPoint], notes: [String]) {
        var configuration = ReplayConfiguration.recorded(from: dump)
        for text in overrides { try configuration.apply(set: text) }
        let result = ReplayEngine.run(trace: trace, config: configuration.filter, source: configuration.sourceDescription,
                                      notes: configuration.notes, isWhatIf: !configuration.overrides.isEmpty)
        let (byQueueRow, byLogRow) = dump.headingsAndAltitudes(logIds: trace.fixes.compactMap { $0.rowId == nil ? $0.logId : nil })
        var points: [GPXTrackPoint] = []
        points.reserveCapacity(result.accepted + result.adjusted)
        for (i, d) in result.decisions.enumerated() where d.decision != .rejected {
            let fix = result.fixes[i]
            let extra = fix.rowId.flatMap { byQueueRow[$0] } ?? fix.logId.flatMap { byLogRow[$0] }
            points.append(GPXTrackPoint(time: fix.time, latitude: d.latitude, longitude: d.longitude, altitude: extra?.altitude ?? nil,
                                        accuracy: fix.accuracy, speed: fix.speed, heading: extra?.heading ?? nil,
                                        uuid: fix.uuid.isEmpty ? nil : fix.uuid, decision: d.decision == .adjusted ? "adjusted" : nil))
        }
        return (points, ["replayed with \(configuration.sourceDescription): \(result.accepted) accepted, \(result.adjusted) adjusted, \(result.rejected) rejected"])
    }
}
