import BGeoReader

/// Runs a trace through the pipeline and gathers the result.
public enum ReplayEngine {
    /// Replays `fixes` (in the order given: time order for a trace) under `config`.
    /// Each fix's `index` is set to its position so decisions and fixes line up.
    public static func run(fixes: [Fix], config: FilterConfig) -> ReplayResult {
        var fixes = fixes
        for i in fixes.indices where fixes[i].index != i { fixes[i].index = i }
        var pipeline = ReplayPipeline(config: config)
        var decisions: [FixDecision] = []
        decisions.reserveCapacity(fixes.count)
        // Indexing (not `for fix in`) reads each fix in place: no copy, no retain of its strings.
        for i in fixes.indices { decisions.append(pipeline.process(fixes[i])) }
        return ReplayResult(config: config, fixes: fixes, decisions: decisions, odometerReplayed: pipeline.odometerTotal)
    }

    /// Replays a dump's complete trace, recording where the config came from.
    public static func run(trace: Trace, config: FilterConfig, source: String, notes: [String] = [],
                           isWhatIf: Bool = false) -> ReplayResult {
        var result = run(fixes: trace.fixes, config: config)
        result.isWhatIf = isWhatIf
        result.configSource = source
        result.configNotes = notes
        result.traceStats = trace.stats
        return result
    }
}
