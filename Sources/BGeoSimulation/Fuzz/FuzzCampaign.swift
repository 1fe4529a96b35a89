import BGeoForensics
import Foundation

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
        final class Shared: @unchecked Sendable {
            let lock = NSLock()
            var next = 0
            var done = 0
            var summary = Summary()
        }
        let shared = Shared()
        let start = Date()
        try? FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
        let group = DispatchGroup()
        for _ in 0..<max(1, jobs) {
            group.enter()
            Thread.detachNewThread {
                defer { group.leave() }
                while true {
                    shared.lock.lock()
                    let offset = shared.next
                    shared.next += 1
                    shared.lock.unlock()
                    guard offset < count else { return }
                    let index = first + offset
                    let findings = runOne(index)
                    shared.lock.lock()
                    if findings.isEmpty { shared.summary.passed += 1 } else {
                        shared.summary.failed += 1
                        shared.summary.findings += findings
                    }
                    shared.done += 1
                    progress(shared.done, shared.summary, findings)
                    shared.lock.unlock()
                }
            }
        }
        group.wait()
        var summary = shared.summary
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
