import Foundation

/// A spool's sorted run while it is still being written, for an assembler that follows it on
/// another thread (so assembling overlaps reading). The writer publishes how many bytes of the
/// tape are on disk; the follower reads up to there and waits for more. The live run is exact
/// only while nothing spills (a spilled record sorts before records already handed over), so a
/// spill, a working-file error or reading that stops early abandons the feed: the follower sees
/// its end, and the caller builds the trace from the finished spools instead.
package final class LiveFeed: Sendable {
    package enum Stage: Sendable { case open, finished, abandoned }

    private struct Progress {
        var path: String?
        var published = 0
        var stage = Stage.open
    }
    private let progress = ConditionState(Progress())

    package init() {}

    /// The run's tape exists (the writer created it).
    package func start(path: String) {
        progress.change { $0.path = path }
    }

    /// `bytes` of the tape are written.
    package func publish(_ bytes: Int) {
        progress.change { $0.published = bytes }
    }

    /// The whole run is written and nothing spilled.
    package func finish() { end(.finished) }

    /// The live run cannot be exact (a record spilled, a file failed) or will not be finished;
    /// nothing once the feed is finished.
    package func abandon() { end(.abandoned) }

    private func end(_ final: Stage) {
        progress.change { if $0.stage == .open { $0.stage = final } }
    }

    package var wasAbandoned: Bool { progress.read { $0.stage == .abandoned } }

    /// The tape's path once it exists; nil when the feed ended without one (no records, or abandoned).
    package func waitForPath() -> String? {
        progress.read(when: { $0.path != nil || $0.stage != .open }) { $0.stage == .abandoned ? nil : $0.path }
    }

    /// Waits until more than `offset` bytes are published; false when no more will come (the feed
    /// finished at or before `offset`, or was abandoned).
    package func waitForMore(than offset: Int) -> Bool {
        progress.read(when: { $0.published > offset || $0.stage != .open }) { $0.stage != .abandoned && $0.published > offset }
    }
}
