import Foundation
import Testing
@testable import BGeoReader
@testable import BGeoForensics
@testable import BGeoFleet

/// The runner's order for a pipe stage (`fleet -o -`): rows in input order whatever finishes
/// first, and a slow input holding up at most a window of analyses (bounded memory) — with a
/// stand-in worker (a shell script) whose speed the test decides, so the timing is certain.
@Suite struct FleetRunnerOrderTests {
    static let directory = TestDirectory("fleet-order")

    /// Records what the runner hands over and, at the first row, how many analyses had started.
    final class RecordingSink: FleetSink, @unchecked Sendable {
        let keepsInputOrder: Bool
        let startLog: String
        private let lock = NSLock()
        private(set) var rows: [String] = []
        private(set) var startedAtFirstRow: Int?

        init(keepsInputOrder: Bool, startLog: String) {
            self.keepsInputOrder = keepsInputOrder
            self.startLog = startLog
        }

        func claim(_ key: String) -> Bool { true }

        func append(row: String, findings: [String]) {
            lock.lock()
            defer { lock.unlock() }
            if startedAtFirstRow == nil {
                startedAtFirstRow = ((try? String(contentsOfFile: startLog, encoding: .utf8)) ?? "").split(separator: "\n").count
            }
            rows.append(row)
        }

        var failure: String? { nil }
        var resumedRows: Int { 0 }
        var droppedRows: Int { 0 }
    }

    /// A folder with `slow.db` first and 30 quick inputs after it, and a worker script that notes
    /// each start and prints a row naming its input. On `slow.db` it first waits until no analysis
    /// has started for 1.5 s (at most 20 s): every input that could start while it ran has started,
    /// however slow the machine is today.
    static func setUp(_ label: String) throws -> (inputs: [FleetInputs.Input], worker: String, log: String) {
        let folder = directory.file("\(label)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let names = ["slow.db"] + (1...30).map { String(format: "quick-%02d.db", $0) }
        for name in names { try "content of \(name)".write(toFile: folder + "/" + name, atomically: false, encoding: .utf8) }
        let log = folder + "/started.log"
        let worker = folder + "/worker.sh"
        try """
            #!/bin/sh
            for input; do :; done
            echo "$input" >> '\(log)'
            case "$input" in *slow.db)
                last=-1; quiet=0; rounds=0
                while [ $quiet -lt 15 ] && [ $rounds -lt 200 ]; do
                    now=$(wc -l < '\(log)')
                    if [ "$now" = "$last" ]; then quiet=$((quiet + 1)); else quiet=0; last=$now; fi
                    rounds=$((rounds + 1))
                    sleep 0.1
                done ;;
            esac
            printf '{"path":"%s","status":"ok"}\\n' "$input"

            """.write(toFile: worker, atomically: false, encoding: .utf8)
        chmod(worker, 0o755)
        return (names.map { FleetInputs.Input(path: folder + "/" + $0) }, worker, log)
    }

    static func run(_ inputs: [FleetInputs.Input], worker: String, sink: RecordingSink) throws -> FleetRunSummary {
        let runner = try FleetRunner(inputs: inputs, sink: sink,
                                     settings: .init(executable: worker, workerArguments: [], jobs: 2, timeout: 60, memoryLimit: nil,
                                                     writesFindings: false),
                                     progress: FleetProgress(live: false))
        return runner.run()
    }

    static func paths(_ rows: [String]) -> [String] {
        rows.compactMap { (try? JSONParser.parse($0))?.objectValue?["path"]?.stringValue }
    }

    @Test func inInputOrderTheSlowFirstInputComesFirstAndHoldsUpAWindowOnly() throws {
        let (inputs, worker, log) = try FleetRunnerOrderTests.setUp("ordered")
        let sink = RecordingSink(keepsInputOrder: true, startLog: log)
        let summary = try FleetRunnerOrderTests.run(inputs, worker: worker, sink: sink)
        #expect(summary.analysed == inputs.count && !summary.interrupted)
        #expect(FleetRunnerOrderTests.paths(sink.rows) == inputs.map(\.path))
        // Two jobs, a window of 4 × 2: while slow.db (input 0) runs, inputs 1…7 may be done and
        // waiting, no more; without the window all 31 would have started meanwhile.
        let started = try #require(sink.startedAtFirstRow)
        // Once slow.db ends, each of the two slots may start one more in the instant before its row
        // is taken (seen in a full run: 9); without the window it is 31.
        #expect(started <= 10, "\(started) analyses had started before the first row was out")
        #expect(started >= 2)
    }

    /// A file sink takes rows as inputs finish: the slow input's row is the last.
    @Test func asTheyFinishTheSlowFirstInputComesLast() throws {
        let (inputs, worker, log) = try FleetRunnerOrderTests.setUp("finished")
        let sink = RecordingSink(keepsInputOrder: false, startLog: log)
        _ = try FleetRunnerOrderTests.run(inputs, worker: worker, sink: sink)
        let paths = FleetRunnerOrderTests.paths(sink.rows)
        #expect(paths.count == inputs.count && paths.last == inputs[0].path)
    }
}
