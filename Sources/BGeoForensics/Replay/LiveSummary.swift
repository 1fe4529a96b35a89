import BGeoReader

/// `replay`'s summary made while the trace is read: a pass following the trace as the live
/// assembly writes it (`LiveFeed`), on its own thread, under filters known before the reading
/// (the recorded config's keys do not wait for its lines' notes). It stands for
/// `StreamedReplay.summarize` only when it saw the trace itself — the live assembly was the
/// trace's only run and every fix of it was replayed (the rule of the report's `LiveReplay`);
/// otherwise the stored trace is replayed after the reading, as before.
package final class LiveSummary {
    /// The feed the trace's assembly writes to (`TraceBuilder.storedTrace(dump:following:)`).
    package let feed = LiveFeed()
    private let filters: [FilterConfig]
    private let top: Int
    private let work: BackgroundWork<StreamedReplay.Summarizer?>
    /// Whether `summarize` took the pass's summaries (else it replayed the stored trace).
    package private(set) var stoodForTheTrace = false

    package init(filters: [FilterConfig], top: Int) {
        self.filters = filters
        self.top = top
        let feed = feed
        work = BackgroundWork {
            guard let path = feed.waitForPath(), let reader = try? TapeReader(path: path, follow: feed) else { return nil }
            var summarizer = StreamedReplay.Summarizer(filters: filters, top: top)
            while var record = reader.next() { summarizer.add(Fix(from: &record)) }
            guard reader.failure == nil, !feed.wasAbandoned else { return nil }
            return summarizer
        }
    }

    /// `StreamedReplay.summarize(trace, configurations, top:)`, from the pass when it saw `trace`
    /// (`configurations` must have the filters given at the start). Call once the reading ended.
    package func summarize(_ trace: CompleteTrace, _ configurations: [ReplayConfiguration])
        throws -> (summaries: [ReplaySummary], differences: Int) {
        precondition(configurations.map(\.filter) == filters, "the live pass ran under other filters")
        // The reading has ended: an unfinished feed will not be finished now.
        feed.abandon()
        if let summarizer = work.take(), trace.assembledLive, trace.assemblyRuns == 1, summarizer.count == trace.count {
            stoodForTheTrace = true
            return (summarizer.summaries(configurations, trace: trace), summarizer.differences)
        }
        return try StreamedReplay.summarize(trace, configurations, top: top)
    }

    /// Ends the pass unused (the reading failed): no thread outlives it.
    package func cancel() {
        feed.abandon()
        _ = work.take()
    }
}
