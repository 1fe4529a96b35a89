/// The replayed track: fixes a replay with the dump's config (plus overrides) accepts.
/// Until the replay engine is wired in, this is the recorded track, and says so.
enum ReplayTrack {
    static func points(dump: Dump, trace: ReportTrace, overrides: [(key: String, value: JSONValue)]) -> (points: [GPXTrackPoint], notes: [String]) {
        (GPXExport.points(from: trace, mode: .recorded),
         ["the replay engine is not available in this build: the replayed track is the recorded one"])
    }
}
