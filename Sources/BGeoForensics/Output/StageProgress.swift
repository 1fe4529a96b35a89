import BGeoReader
import Foundation
import Synchronization

/// What a long command is doing, on stderr: on a terminal one line redrawn in place
/// ("report: reading the log and the queue…"), cleared when the work is done; nothing at all
/// when stderr is a file or a pipe, so scripts and CI logs stay clean. With BGEO_REPORT_TIMING
/// set, each finished stage also prints its duration (for tuning the big-dump paths).
public final class StageProgress: Sendable {
    /// Shows nothing and times nothing.
    public static let silent = StageProgress(label: "", live: false, timing: false)

    private let label: String
    private let live: Bool
    private let timing: Bool
    private let write: @Sendable (String) -> Void
    /// The stage under way and whether its line is on screen; one lock, so stages started from a
    /// background reader and the main thread never interleave their escape sequences.
    private struct State {
        var current: (activity: String, started: Date)?
        var lineShown = false
    }
    private let state = Mutex(State())

    /// `live` defaults to "stderr is a terminal", `timing` to "BGEO_REPORT_TIMING is set";
    /// `write` receives the raw text (default: stderr, unbuffered).
    public init(label: String, live: Bool = isatty(STDERR_FILENO) == 1,
                timing: Bool = ProcessInfo.processInfo.environment["BGEO_REPORT_TIMING"] != nil,
                write: @escaping @Sendable (String) -> Void = { FileHandle.standardError.write(Data($0.utf8)) }) {
        self.label = label
        self.live = live
        self.timing = timing
        self.write = write
    }

    /// Starts a stage, ending the one before.
    public func stage(_ activity: String) {
        state.withLock { state in
            endStage(&state)
            state.current = (activity, Date())
            guard live else { return }
            // The clearing sequence is the tool's own; the words are shown, never acted on.
            write("\r\u{1B}[2K" + TerminalText.prose("\(label): \(activity)") + "…")
            state.lineShown = true
        }
    }

    /// Ends the last stage and clears the line, so the command's own output starts clean.
    public func finish() {
        state.withLock { state in
            endStage(&state)
            clearLine(&state)
        }
    }

    private func endStage(_ state: inout State) {
        guard let stage = state.current else { return }
        state.current = nil
        guard timing else { return }
        clearLine(&state)
        write(String(format: "  %@: %.2f s\n", TerminalText.prose(stage.activity), Date().timeIntervalSince(stage.started)))
    }

    private func clearLine(_ state: inout State) {
        guard state.lineShown else { return }
        write("\r\u{1B}[2K")
        state.lineShown = false
    }
}
