import BGeoReader

/// A pass over the complete trace that a `LiveTraceFollower` feeds while the trace is assembled
/// (on the follower's thread, so its type is `SendableMetatype`).
protocol LiveTracePass: SendableMetatype {
    /// Takes the trace's next fix.
    mutating func add(_ fix: Fix)
    /// The fixes taken.
    var count: Int { get }
    /// Drops what the pass made (its files), when it does not stand for the trace.
    func discard()
}

/// A pass following the trace as the live assembly writes it (`feed`, given to
/// `TraceBuilder.storedTrace(dump:following:)` or `ReportScan.read(traceFeed:)`), on a thread of
/// its own, so the pass overlaps the reading. The one place the rule lives for when such a pass
/// stands for a pass over the stored trace: the live assembly was the trace's only run (nothing
/// spilled, no uuid's copies apart) and the pass took every fix of it. The report's replay and
/// `replay`'s summary follow the trace this way.
final class LiveTraceFollower<Pass: LiveTracePass> {
    let feed = LiveFeed()
    private let work: BackgroundWork<Pass?>

    /// Starts following with the pass `start` makes (nil: nothing is followed).
    init(_ start: sending @escaping () -> Pass?) {
        let feed = feed
        work = BackgroundWork {
            guard var pass = start() else { return nil }
            guard let path = feed.waitForPath(), let reader = try? TapeReader(path: path, follow: feed) else {
                pass.discard()
                return nil
            }
            while var record = reader.next() { pass.add(Fix(from: &record)) }
            guard reader.failure == nil, !feed.wasAbandoned else {
                pass.discard()
                return nil
            }
            return pass
        }
    }

    /// The pass, when it took exactly `complete`; nil otherwise (what it made discarded). Call
    /// once the reading has ended.
    func take(for complete: CompleteTrace) -> Pass? {
        // The reading has ended: an unfinished feed will not be finished now.
        feed.abandon()
        guard let pass = work.take() else { return nil }
        guard complete.assembledLive, complete.assemblyRuns == 1, pass.count == complete.count else {
            pass.discard()
            return nil
        }
        return pass
    }

    /// Ends the pass unused (the reading failed): no thread outlives it.
    func cancel() {
        feed.abandon()
        work.take()?.discard()
    }
}
