import BGeoReader

/// Replay over a stored trace (`TraceBuilder.storedTrace`) in constant memory: a pass tallies
/// the summaries (`ReplayTally`, as in memory), and the decisions are produced again, fix by fix,
/// by another pass whenever an output lists them — the pipeline is deterministic, so every pass
/// decides the same. Nothing per fix is kept.
public enum StreamedReplay {
    /// One pass over `trace` under each configuration: their summaries, and how many fixes the
    /// first two decide differently (decision or reason; 0 with one configuration).
    public static func summarize(_ trace: CompleteTrace, _ configurations: [ReplayConfiguration],
                                 top: Int = 10) throws -> (summaries: [ReplaySummary], differences: Int) {
        var summarizer = Summarizer(filters: configurations.map(\.filter), top: top)
        try trace.forEachFix { summarizer.add($0) }
        return (summarizer.summaries(configurations, trace: trace), summarizer.differences)
    }

    /// The summaries' pass: a pipeline and a tally per configuration, given the trace's fixes one
    /// at a time (the stored trace read again, or the trace as the live assembly writes it:
    /// `LiveSummary`).
    struct Summarizer {
        private var tallies: [ReplayTally]
        private var pipelines: [ReplayPipeline]
        /// Fixes on which the first two configurations decide differently (decision or reason).
        private(set) var differences = 0
        /// Fixes given.
        private(set) var count = 0

        init(filters: [FilterConfig], top: Int) {
            tallies = filters.map { ReplayTally(config: $0, contributorCapacity: top) }
            pipelines = filters.map { ReplayPipeline(config: $0) }
        }

        mutating func add(_ fix: Fix) {
            count += 1
            var first: FixDecision?
            for k in pipelines.indices {
                let d = pipelines[k].process(fix)
                tallies[k].add(fix, d)
                if k == 0 { first = d } else if k == 1, let a = first, a.decision != d.decision || a.reason != d.reason {
                    differences += 1
                }
            }
        }

        /// Each configuration's summary (`configurations` in the order of the filters given).
        func summaries(_ configurations: [ReplayConfiguration], trace: CompleteTrace) -> [ReplaySummary] {
            configurations.indices.map { k in
                var summary = tallies[k].finish(odometerReplayed: pipelines[k].odometerTotal)
                let configuration = configurations[k]
                summary.configSource = configuration.sourceDescription
                summary.configNotes = configuration.notes
                summary.traceStats = trace.stats
                summary.isWhatIf = !configuration.overrides.isEmpty
                return summary
            }
        }
    }

    /// Replays `trace` under `config` again, handing over each fix with its decision, in trace order.
    public static func forEachDecision(_ trace: CompleteTrace, config: FilterConfig,
                                       _ body: (Fix, FixDecision) throws -> Void) throws {
        var pipeline = ReplayPipeline(config: config)
        try trace.forEachFix { fix in try body(fix, pipeline.process(fix)) }
    }

    /// Replays `trace` under both configs at once, handing over each fix on which they differ
    /// (decision or reason) with both decisions.
    public static func forEachDifference(_ trace: CompleteTrace, recorded: FilterConfig, whatIf: FilterConfig,
                                         _ body: (Fix, FixDecision, FixDecision) throws -> Void) throws {
        var a = ReplayPipeline(config: recorded), b = ReplayPipeline(config: whatIf)
        try trace.forEachFix { fix in
            let x = a.process(fix), y = b.process(fix)
            if x.decision != y.decision || x.reason != y.reason { try body(fix, x, y) }
        }
    }

    /// `replay --json`: `extra` members first, then the summary, then (when `includeDecisions`)
    /// every decision on its own line, replayed again as they are written. `extra` may hold
    /// placeholders for `arrays` (`StreamedJSONDocument.placeholder(n)` for `arrays[n]`).
    public static func writeJSON(_ summary: ReplaySummary, trace: CompleteTrace, to output: TextOutput, extra: JSONObject,
                                 arrays given: [StreamedJSONDocument.Array] = [], includeDecisions: Bool, top: Int,
                                 redactor: Redactor) throws {
        var object = extra
        for member in summary.summaryObject(top: top) { object[member.key] = member.value }
        var arrays = given
        if includeDecisions {
            object["decisions"] = StreamedJSONDocument.placeholder(arrays.count)
            arrays.append(.init(.compactLines(redactor)) { emit in
                try forEachDecision(trace, config: summary.config) { fix, d in emit(ReplaySummary.decisionJSON(fix, d)) }
            })
        }
        try StreamedJSONDocument.write(redactor.redact(.object(object)), arrays: arrays, to: output)
    }

    /// `replay --fixes` as a table: every decision, replayed again as the rows are written.
    public static func writeTable(_ summary: ReplaySummary, trace: CompleteTrace, to output: TextOutput,
                                  redactor: Redactor) throws {
        let writer = RowWriter(format: .table, columns: ReplaySummary.decisionColumns, output: output)
        try forEachDecision(trace, config: summary.config) { fix, d in
            writer.row(cells: ReplaySummary.decisionCells(fix, d).map { redactor.redact(text: $0) },
                       json: ReplaySummary.decisionJSON(fix, d))
        }
        writer.finish()
    }
}
