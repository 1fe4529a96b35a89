import BGeoForensics
import Foundation
import Synchronization

/// `fleet`'s progress bar on a terminal (stderr): one line redrawn as inputs finish, with the
/// counts, the rate and the time left; cleared at the end. Nothing when stderr is not a terminal.
/// It shows counts only, never a path (paths may hold any character).
public final class FleetProgress: Sendable {
    private let live: Bool
    private let write: @Sendable (String) -> Void
    private let started = Date()
    /// When the line was last drawn, and whether it is on screen: workers finish concurrently.
    private let drawn = Mutex((at: Date.distantPast, shown: false))

    public init(live: Bool = isatty(STDERR_FILENO) == 1,
                write: @escaping @Sendable (String) -> Void = { FileHandle.standardError.write(Data($0.utf8)) }) {
        self.live = live
        self.write = write
    }

    /// Redraws (at most 10 times a second, and always for the last input).
    public func update(_ summary: FleetRunSummary) {
        guard live else { return }
        drawn.withLock { drawn in
            let now = Date()
            guard now.timeIntervalSince(drawn.at) >= 0.1 || summary.done == summary.inputs else { return }
            drawn.at = now
            write("\r\u{1B}[2K" + FleetProgress.line(summary, elapsed: now.timeIntervalSince(started)))
            drawn.shown = true
        }
    }

    public func finish() {
        drawn.withLock { drawn in
            if drawn.shown { write("\r\u{1B}[2K") }
            drawn.shown = false
        }
    }

    /// `fleet [#########-----------] 45/100  3 not dumps  1 failed  12 skipped  4.2/s  ETA 13s`
    static func line(_ s: FleetRunSummary, elapsed: Double) -> String {
        let total = max(s.inputs, 1)
        let width = 24
        let filled = min(width, s.done * width / total)
        var text = "fleet [" + String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled) + "] \(s.done)/\(s.inputs)"
        if s.notDumps > 0 { text += "  \(s.notDumps) not dump\(s.notDumps == 1 ? "" : "s")" }
        if s.failed > 0 { text += "  \(s.failed) failed" }
        if s.skipped > 0 { text += "  \(s.skipped) skipped" }
        let worked = s.done - s.skipped
        if elapsed > 0.5, worked > 0 {
            let rate = Double(worked) / elapsed
            text += String(format: "  %.1f/s", rate)
            let left = Double(s.inputs - s.done) / rate
            if s.done < s.inputs { text += "  ETA " + DurationFormat.short(left.rounded()) }
        }
        return text
    }
}
