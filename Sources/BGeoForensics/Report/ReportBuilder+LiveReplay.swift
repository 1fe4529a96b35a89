import BGeoReader
import Foundation

extension ReportBuilder {
    /// The report's replay following the live assembly's trace on its own thread while the dump
    /// is read (`ReportScan.read(traceFeed:)`). Its pass counts only when it saw the trace itself:
    /// the live assembly was the trace's only run (nothing spilled, no uuid apart) and every fix
    /// of it was replayed. The charts' time axis is not known yet: they reduce their own series.
    final class LiveReplay {
        let feed = LiveFeed()
        private let work: BackgroundWork<ReportReplayPass?>

        init(_ configuration: ReplayConfiguration, dump: Dump) {
            let feed = feed
            let folder = dump.workFiles
            work = BackgroundWork {
                guard var pass = try? ReportReplayPass(configuration, folder: folder, chartSpan: nil) else { return nil }
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

        /// The pass, when it replayed exactly `complete`; nil otherwise (its tape removed).
        func take(for complete: CompleteTrace) -> ReportReplayPass? {
            // The reading has ended: an unfinished feed will not be finished now.
            feed.abandon()
            guard let pass = work.take() else { return nil }
            guard complete.assembledLive, complete.assemblyRuns == 1, pass.count == complete.count else {
                pass.discard()
                return nil
            }
            return pass
        }

        /// Ends the pass unused (the reading failed).
        func cancel() {
            feed.abandon()
            work.take()?.discard()
        }
    }
}
