import Synchronization
import Testing
@testable import BGeoReader
@testable import BGeoForensics

@Suite struct StageProgressTests {
    /// On a terminal: each stage redraws one line, and finish clears it.
    @Test func liveLineIsRedrawnThenCleared() {
        let collected = Mutex("")
        var written: String { collected.withLock { $0 } }
        let progress = StageProgress(label: "report", live: true, timing: false) { text in collected.withLock { $0 += text } }
        progress.stage("reading the log")
        progress.stage("drawing")
        progress.finish()
        #expect(written == "\r\u{1B}[2Kreport: reading the log…\r\u{1B}[2Kreport: drawing…\r\u{1B}[2K")
    }

    /// Not a terminal: nothing at all (scripts and CI logs stay clean).
    @Test func silentWhenNotATerminal() {
        let collected = Mutex("")
        var written: String { collected.withLock { $0 } }
        let progress = StageProgress(label: "report", live: false, timing: false) { text in collected.withLock { $0 += text } }
        progress.stage("reading the log")
        progress.finish()
        #expect(written.isEmpty)
    }

    /// Timing: one line per finished stage, in order, each after the live line is cleared.
    @Test func timingLinesNameEachFinishedStage() {
        let collected = Mutex("")
        var written: String { collected.withLock { $0 } }
        let progress = StageProgress(label: "gpx", live: true, timing: true) { text in collected.withLock { $0 += text } }
        progress.stage("reading")
        progress.stage("writing")
        progress.finish()
        let lines = written.split(separator: "\n").map { $0.replacingOccurrences(of: "\r\u{1B}[2K", with: "") }
        #expect(lines.count == 2)
        #expect(lines[0].hasSuffix(" s") && lines[0].contains("reading: "))
        #expect(lines[1].contains("writing: "))
        #expect(written.hasSuffix(" s\n"))
    }
}
