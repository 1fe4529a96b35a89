import BGeoReader

/// `replay`'s summary made while the trace is read: a pass following the trace as the live
/// assembly writes it (`LiveFeed`), on its own thread, under filters known before the reading
/// (the recorded config's keys do not wait for its lines' notes). It stands for
/// `StreamedReplay.summarize` only under `LiveTraceFollower`'s rule (the one the report's replay
/// follows); otherwise the stored trace is replayed after the reading, as before.
package final class LiveSummary {
    private let follower: LiveTraceFollower<StreamedReplay.Summarizer>
    private let filters: [FilterConfig]
    private let top: Int
    /// Whether `summarize` took the pass's summaries (else it replayed the stored trace).
    package private(set) var stoodForTheTrace = false

    /// The feed the trace's assembly writes to (`TraceBuilder.storedTrace(dump:following:)`).
    package var feed: LiveFeed { follower.feed }

    package init(filters: [FilterConfig], top: Int) {
        self.filters = filters
        self.top = top
        follower = LiveTraceFollower { StreamedReplay.Summarizer(filters: filters, top: top) }
    }

    /// `StreamedReplay.summarize(trace, configurations, top:)`, from the pass when it saw `trace`
    /// (`configurations` must have the filters given at the start). Call once the reading ended.
    package func summarize(_ trace: CompleteTrace, _ configurations: [ReplayConfiguration])
        throws -> (summaries: [ReplaySummary], differences: Int) {
        precondition(configurations.map(\.filter) == filters, "the live pass ran under other filters")
        if let summarizer = follower.take(for: trace) {
            stoodForTheTrace = true
            return (summarizer.summaries(configurations, trace: trace), summarizer.differences)
        }
        return try StreamedReplay.summarize(trace, configurations, top: top)
    }

    /// Ends the pass unused (the reading failed): no thread outlives it.
    package func cancel() {
        follower.cancel()
    }
}

extension StreamedReplay.Summarizer: LiveTracePass {
    /// A summary makes no files.
    func discard() {}
}
