import BGeoForensics
import Foundation
import Synchronization

/// Many fuzz cases on several threads: cases `first ..< first + count` of `seed`, each built in
/// its own folder under `scratch` and removed after it passed (kept when it failed and `keep`).
public struct FuzzCampaign: Sendable {
    public var seed: UInt64
    public var first = 0
    public var count: Int
    public var jobs: Int
    public var runner: FuzzRunner
    public var scratch: String
    public var keep = false

    public init(seed: UInt64, count: Int, runner: FuzzRunner, scratch: String,
                jobs: Int = max(1, ProcessInfo.processInfo.activeProcessorCount)) {
        self.seed = seed
        self.count = count
        self.runner = runner
        self.scratch = scratch
        self.jobs = jobs
    }

    public struct Summary: Sendable {
        public var passed = 0
        public var failed = 0
        public var findings: [FuzzFinding] = []
        public var seconds = 0.0
        /// "N passed, N failed".
        public var line: String { "\(passed) passed, \(failed) failed" }
    }

    /// Runs every case; `progress` is called after each (from the worker threads, serialised),
    /// with the findings of that case.
    public func run(progress: @escaping @Sendable (Int, Summary, [FuzzFinding]) -> Void = { _, _, _ in }) -> Summary {
        // The next case to take, how many are done, and the tally: shared by the worker threads.
        let shared = Mutex((next: 0, done: 0, summary: Summary()))
        let start = Date()
        try? FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
        let group = DispatchGroup()
        for _ in 0..<max(1, jobs) {
            group.enter()
            Thread.detachNewThread {
                defer { group.leave() }
                while true {
                    let offset = shared.withLock { state in
                        defer { state.next += 1 }
                        return state.next
                    }
                    guard offset < count else { return }
                    let index = first + offset
                    let findings = runOne(index)
                    shared.withLock { state in
                        if findings.isEmpty { state.summary.passed += 1 } else {
                            state.summary.failed += 1
                            state.summary.findings += findings
                        }
                        state.done += 1
                        // Under the lock, so the reports come one at a time and in count order.
                        progress(state.done, state.summary, findings)
                    }
                }
            }
        }
        group.wait()
        var summary = shared.withLock { $0.summary }
        summary.seconds = Date().timeIntervalSince(start)
        summary.findings.sort { $0.fuzzCase < $1.fuzzCase }
        return summary
    }

    /// Builds and checks case `index`; a harness failure is reported as a finding too.
    public func runOne(_ index: Int) -> [FuzzFinding] {
        let folder = scratch + "/case-\(seed)-\(index)"
        try? FileManager.default.removeItem(atPath: folder)
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            let fuzzCase = try FuzzCase(seed: seed, index: index, folder: folder)
            let findings = try runner.check(fuzzCase, folder: folder)
            if findings.isEmpty || !keep { try? FileManager.default.removeItem(atPath: folder) }
            return findings
        } catch {
            if !keep { try? FileManager.default.removeItem(atPath: folder) }
            return [FuzzFinding(fuzzCase: "seed \(seed) case \(index)", command: "(building the case)", problem: "\(error)")]
        }
    }
}
