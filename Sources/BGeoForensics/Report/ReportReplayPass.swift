import BGeoReader
import Foundation

/// The report's one replay pass: each fix of the complete trace, in trace order, goes through the
/// pipeline and is written with its decision to the report's trace (a tape in the private working
/// folder), counted, and sketched for the drawings. The fixes come from the stored trace, or from
/// the live assembly's tape as it is written (`ReportBuilder.LiveReplay`).
struct ReportReplayPass {
    private let tape: String
    private let writer: TapeWriter
    private var tally: ReplayTally
    private var pipeline: ReplayPipeline
    private var accepted = 0, adjusted = 0, rejected = 0
    private var sketch: ReportTraceSketch
    /// Fixes replayed.
    private(set) var count = 0
    /// Device offsets: any fix timestamp written with a UTC offset instead of Z (at most 4).
    private(set) var offsets: Set<Int> = []

    /// `chartSpan`: the charts' time axis, when known before the pass (nil: the charts reduce
    /// their series themselves).
    init(_ configuration: ReplayConfiguration, dump: Dump, chartSpan: (start: Double, end: Double)?) throws(WorkFileError) {
        try self.init(configuration, folder: dump.workFiles, chartSpan: chartSpan)
    }

    /// A pass writing its tape in `folder` (the dump's working folder).
    init(_ configuration: ReplayConfiguration, folder: WorkFolder, chartSpan: (start: Double, end: Double)?) throws(WorkFileError) {
        tape = folder.newFile("report-trace", extension: "tape")
        writer = try TapeWriter(path: tape)
        tally = ReplayTally(config: configuration.filter)
        pipeline = ReplayPipeline(config: configuration.filter)
        sketch = ReportTraceSketch(chartSpan: chartSpan)
    }

    mutating func add(_ fix: Fix) {
        count += 1
        // Cheap: only a timestamp not ending in Z is looked at.
        if offsets.count < 4, let last = fix.timestampText.utf8.last, last != UInt8(ascii: "Z"), last != UInt8(ascii: "z") {
            ReportBuilder.offset(fix.timestampText, into: &offsets)
        }
        let d = pipeline.process(fix)
        tally.add(fix, d)
        switch d.decision {
        case .accepted: accepted += 1
        case .adjusted: adjusted += 1
        case .rejected: rejected += 1
        }
        let decided = DecidedFix(replayed: fix, decision: d)
        sketch.add(decided)
        writer.append(decided)
    }

    /// The summary and the report's trace of a pass over all of `complete`.
    func finish(_ complete: CompleteTrace, _ configuration: ReplayConfiguration, dump: Dump,
                queueHeadUUID: String?) throws -> (ReplaySummary, StoredReportTrace) {
        try writer.finish()
        var summary = tally.finish(odometerReplayed: pipeline.odometerTotal)
        let counts: [Decision: Int] = [.accepted: accepted, .adjusted: adjusted, .rejected: rejected]
        summary.configSource = configuration.sourceDescription
        summary.configNotes = configuration.notes
        summary.traceStats = complete.stats
        summary.isWhatIf = !configuration.overrides.isEmpty
        let stored = StoredTrace<DecidedFix>(tape: tape, count: count, geofences: nil, geofenceCount: 0)
        let trace = StoredReportTrace(dump: dump, stored: stored, geofences: try complete.geofences(), queueHeadUUID: queueHeadUUID,
                                      counts: counts, sketch: sketch)
        return (summary, trace)
    }

    /// Drops a pass that is not used: its tape goes.
    func discard() {
        try? writer.finish()
        unlink(tape)
    }
}
