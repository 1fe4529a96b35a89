import Foundation

/// A spool's sorted run while it is still being written, for an assembler that follows it on
/// another thread (so assembling overlaps reading). The writer publishes how many bytes of the
/// tape are on disk; the follower reads up to there and waits for more. The live run is exact
/// only while nothing spills (a spilled record sorts before records already handed over), so a
/// spill, a working-file error or reading that stops early abandons the feed: the follower sees
/// its end, and the caller builds the trace from the finished spools instead.
package final class LiveFeed: @unchecked Sendable {
    enum State { case open, finished, abandoned }

    private let condition = NSCondition()
    private var path: String?
    private var published = 0
    private var state = State.open

    init() {}

    /// The run's tape exists (the writer created it).
    package func start(path: String) {
        condition.lock()
        self.path = path
        condition.broadcast()
        condition.unlock()
    }

    /// `bytes` of the tape are written.
    func publish(_ bytes: Int) {
        condition.lock()
        published = bytes
        condition.broadcast()
        condition.unlock()
    }

    /// The whole run is written and nothing spilled.
    func finish() { end(.finished) }

    /// The live run cannot be exact (a record spilled, a file failed) or will not be finished;
    /// nothing once the feed is finished.
    func abandon() { end(.abandoned) }

    private func end(_ final: State) {
        condition.lock()
        if state == .open { state = final }
        condition.broadcast()
        condition.unlock()
    }

    var wasAbandoned: Bool {
        condition.lock()
        defer { condition.unlock() }
        return state == .abandoned
    }

    /// The tape's path once it exists; nil when the feed ended without one (no records, or abandoned).
    func waitForPath() -> String? {
        condition.lock()
        defer { condition.unlock() }
        while path == nil, state == .open { condition.wait() }
        return state == .abandoned ? nil : path
    }

    /// Waits until more than `offset` bytes are published; false when no more will come (the feed
    /// finished at or before `offset`, or was abandoned).
    func waitForMore(than offset: Int) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while published <= offset, state == .open { condition.wait() }
        return state != .abandoned && published > offset
    }
}
