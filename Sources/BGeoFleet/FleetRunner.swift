import BGeoForensics
import Foundation
import Synchronization

/// Runs a fleet analysis: every input through its own analysis process (`fleet --worker`), at
/// most `jobs` at a time, each line handed to the sink as soon as its input is done — or, for a
/// sink that keeps the input order (a pipe stage), as soon as every input before it is. One
/// input's crash, runaway memory (the worker caps its own address space) or hang (the deadline
/// kills it) becomes that input's `failed` row; the run goes on. Each process gets a private
/// temporary folder for its evidence copy, removed when the process ends, however it ends, and
/// dies with this process (`FleetLifeline`). A machine that fails an analysis (no room or no
/// folder in $TMPDIR, no descriptor left) makes a `failed` row, tried again on a re-run; only an
/// input that is not a dump is `not_a_dump`.
public final class FleetRunner: Sendable {
    public struct Settings: Sendable {
        /// The program to run as the worker (this tool) and the words before the input path.
        public var executable: String
        public var workerArguments: [String]
        public var jobs: Int
        /// Seconds one input may take (nil: no limit).
        public var timeout: Double?
        /// The worker's address-space cap, bytes (said in a failed row's sentence).
        public var memoryLimit: UInt64?
        public var writesFindings: Bool

        public init(executable: String, workerArguments: [String], jobs: Int, timeout: Double?, memoryLimit: UInt64?,
                    writesFindings: Bool) {
            self.executable = executable
            self.workerArguments = workerArguments
            self.jobs = jobs
            self.timeout = timeout
            self.memoryLimit = memoryLimit
            self.writesFindings = writesFindings
        }
    }

    private let inputs: [FleetInputs.Input]
    private let sink: any FleetSink
    private let settings: Settings
    private let progress: FleetProgress
    /// What the workers share: the next input to hand out, the tally, whether the run was
    /// cancelled, and the analyses running (so `cancel` can kill them).
    private struct Progress {
        var next = 0
        var summary = FleetRunSummary()
        var cancelled = false
        var running: Set<pid_t> = []
    }
    private let state: Mutex<Progress>
    /// In input order only (`FleetSink.keepsInputOrder`): the results done before their turn, by
    /// input index (nil: skipped), how many inputs have been handed to the sink, and whether a
    /// thread is handing them over now (one at a time, and never while holding `order`, so a
    /// reader that is slow to take the rows holds up only the thread writing them). `order` is
    /// never taken while `state` is held.
    private struct Order {
        var waiting: [Int: Result?] = [:]
        var emitted = 0
        var emitting = false
    }
    private let order = ConditionState(Order())
    /// How far past the first unfinished input an analysis may start: one slow dump makes the
    /// others wait at most this many rows ahead, so memory stays bounded (a few rows per job)
    /// while the other jobs keep working.
    private let window: Int
    /// The run's working folder in $TMPDIR, holding one job folder per running analysis: locked
    /// while this process lives, so the next run removes it if this one is killed. Nil when it
    /// cannot be made (`scratchProblem` says why, for `DumpError.environment`): every analysis is then a failed row.
    private let scratch: PrivateFolder?
    private let scratchProblem: String?
    private let lifeline: FleetLifeline.Holder

    public init(inputs: [FleetInputs.Input], sink: any FleetSink, settings: Settings, progress: FleetProgress) throws(FleetError) {
        self.inputs = inputs
        self.sink = sink
        self.settings = settings
        window = 4 * max(1, settings.jobs)
        self.progress = progress
        let temporary = FileManager.default.temporaryDirectory.path
        do throws(DumpError) {
            scratch = try PrivateFolder(in: temporary)
            scratchProblem = nil
        } catch {
            // A full or refused $TMPDIR is no reason to give up the run: each input gets its
            // failed row saying so, and a re-run (with room) retries them.
            scratch = nil
            guard case .environment(_, let reason) = error else { throw FleetError(error.description) }
            scratchProblem = reason
        }
        lifeline = try FleetLifeline.Holder()
        var progress = Progress()
        progress.summary.inputs = inputs.count
        progress.summary.resumedRows = sink.resumedRows
        progress.summary.droppedRows = sink.droppedRows
        state = Mutex(progress)
    }

    deinit { scratch?.remove() }

    /// Analyses every input; returns when all are done or the run was cancelled.
    public func run() -> FleetRunSummary {
        let started = Date()
        let workers = max(1, min(settings.jobs, inputs.count))
        let group = DispatchGroup()
        for slot in 0..<workers {
            group.enter()
            Thread.detachNewThread { [self] in
                work(slot: slot)
                group.leave()
            }
        }
        group.wait()
        progress.finish()
        scratch?.remove()
        return state.withLock { state in
            state.summary.seconds = Date().timeIntervalSince(started)
            state.summary.interrupted = state.cancelled && state.summary.done < state.summary.inputs
            return state.summary
        }
    }

    /// Stops the run: no new input starts, running analyses are killed (their inputs are redone
    /// next time). Safe to call from a signal handler's queue.
    public func cancel() {
        let pids = state.withLock { state in
            state.cancelled = true
            return state.running
        }
        for pid in pids { kill(pid, SIGKILL) }
        // Wakes the analyses waiting for their turn in the window, to stop.
        order.change { _ in }
    }

    private var isCancelled: Bool { state.withLock { $0.cancelled } }

    /// The next input and its index; in input order, only once it is within `window` of the
    /// first input whose lines are not out yet. Indices are handed out in order, so the input the
    /// others wait for is always being analysed, never waiting itself.
    private func take() -> (index: Int, input: FleetInputs.Input)? {
        let count = inputs.count
        let handedOut = state.withLock { state -> Int? in
            guard !state.cancelled, state.next < count else { return nil }
            defer { state.next += 1 }
            return state.next
        }
        guard let index = handedOut else { return nil }
        if sink.keepsInputOrder {
            let window = window
            order.read(when: { index < $0.emitted + window || isCancelled }) { _ in }
            if isCancelled { return nil }
        }
        return (index, inputs[index])
    }

    private func work(slot: Int) {
        while let taken = take() {
            let index = taken.index
            let result = analyse(taken.input, slot: slot)
            let stopped = isCancelled
            // A run stopped mid-analysis writes nothing for that input: it is redone next time.
            // (In input order, nothing after it is written either: the rows out are a prefix of the inputs.)
            if stopped, result?.status == .failed { return }
            let writesFindings = settings.writesFindings
            let snapshot = state.withLock { state in
                switch result?.status {
                case nil: state.summary.skipped += 1
                case .ok?: state.summary.analysed += 1
                case .notADump?: state.summary.notDumps += 1
                case .failed?: state.summary.failed += 1
                }
                if let result {
                    state.summary.findingLines += writesFindings ? result.findings.count : 0
                    state.summary.peakChildMB = max(state.summary.peakChildMB, result.peakMB)
                }
                return state.summary
            }
            if sink.keepsInputOrder {
                handOver(index, result)
            } else if let result {
                sink.append(row: result.row, findings: settings.writesFindings ? result.findings : [])
            }
            progress.update(snapshot)
            // A full disk or a reader gone: analysing more would only lose more work.
            if sink.failure != nil { cancel() }
        }
    }

    /// In input order: keeps `result` until every input before it is out, then hands over all
    /// that are ready. One thread hands over at a time (the others leave their result and go on);
    /// it writes without holding `order`, re-checking for results that arrived meanwhile.
    private func handOver(_ index: Int, _ result: Result?) {
        let handsOver = order.change { order in
            order.waiting[index] = .some(result)
            guard !order.emitting else { return false }
            order.emitting = true
            return true
        }
        guard handsOver else { return }
        while true {
            // The results now in turn (or none: this thread's turn as the writer ends).
            let ready = order.change { order -> [Result]? in
                var ready: [Result] = []
                var advanced = false
                while let next = order.waiting.removeValue(forKey: order.emitted) {
                    if let next { ready.append(next) }
                    order.emitted += 1
                    advanced = true
                }
                guard advanced else {
                    order.emitting = false
                    return nil
                }
                return ready
            }
            guard let ready else { return }
            for result in ready { sink.append(row: result.row, findings: settings.writesFindings ? result.findings : []) }
        }
    }

    private struct Result: Sendable {
        var status: FleetRowStatus
        var row: String
        var findings: [String]
        var peakMB: Double
    }

    /// nil: skipped (already done).
    private func analyse(_ input: FleetInputs.Input, slot: Int) -> Result? {
        if let problem = input.problem {
            return failure(input.path, size: nil, sha: nil, wal: nil, .notADump, problem, exitCode: 2)
        }
        let sha: String
        var size: Int64?
        var info = stat()
        if RawPath.stat(input.path, &info) == 0 { size = Int64(info.st_size) }
        do { sha = try EvidenceCopy.sha256(ofFile: input.path) } catch {
            // No descriptor left to read it with says nothing about the file.
            let (status, code) = error.isEnvironmental ? (FleetRowStatus.failed, 1) : (.notADump, 2)
            return failure(input.path, size: size, sha: nil, wal: nil, status, error.description, exitCode: code)
        }
        let walPath = input.path + "-wal"
        let wal = EvidenceFile.exists(walPath) ? try? EvidenceCopy.sha256(ofFile: walPath) : nil
        guard sink.claim(FleetRow.key(sha256: sha, walSha256: wal)) else { return nil }

        // Each analysis has a private temporary folder for its evidence copy, removed here even
        // when the process was killed before it could clean up, and by the analysis itself when
        // this process is killed (`FleetLifeline`).
        guard let scratch else {
            let sentence = DumpError.environment(path: input.path, reason: scratchProblem ?? "").description
            return failure(input.path, size: size, sha: sha, wal: wal, .failed, sentence, exitCode: 1)
        }
        let folder = scratch.path + "/" + FleetLifeline.jobPrefix + "\(slot)"
        guard mkdir(folder, 0o700) == 0 || errno == EEXIST else {
            let sentence = DumpError.environment(path: input.path, reason: DumpError.copyReason(in: scratch.path, errno)).description
            return failure(input.path, size: size, sha: sha, wal: wal, .failed, sentence, exitCode: 1)
        }
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var child = ChildProcess(executable: settings.executable, arguments: settings.workerArguments + [input.path],
                                 // One thread per analysis: the jobs are the parallelism.
                                 environment: ["TMPDIR": folder, "SWIFT_BACKTRACE": "enable=no", ScanThreading.variable: "1"]
                                     .merging(lifeline.environment(jobFolder: folder)) { $1 },
                                 timeout: settings.timeout)
        child.passing = [FleetLifeline.workerDescriptor: lifeline.readEnd]
        let outcome: ChildProcess.Outcome
        do {
            outcome = try startAndWait(child)
        } catch {
            return failure(input.path, size: size, sha: sha, wal: wal, .failed, "could not start the analysis: \(error.description)", exitCode: 1)
        }
        let peakMB = Double(outcome.peakKilobytes) / 1024
        if outcome.exitCode == 0, !outcome.outputOverflow, !outcome.timedOut {
            let text = String(decoding: outcome.stdout, as: UTF8.self)
            let lines = text.split(separator: "\n").map(String.init)
            if let first = lines.first, let row = (try? JSONParser.parse(first))?.objectValue,
               let status = row["status"]?.stringValue.flatMap(FleetRowStatus.init(rawValue:)) {
                // A failure the analysis reported (its copy could not be made…): with the sizes and hashes known here.
                if status == .failed, let error = row["error"]?.stringValue {
                    var result = failure(input.path, size: size, sha: sha, wal: wal, .failed, error, exitCode: 1)
                    result?.peakMB = peakMB
                    return result
                }
                return Result(status: status, row: first, findings: Array(lines.dropFirst()), peakMB: peakMB)
            }
        }
        var result = failure(input.path, size: size, sha: sha, wal: wal, .failed, FleetRunner.explain(outcome, settings), exitCode: 1)
        result?.peakMB = peakMB
        return result
    }

    /// Runs the child with its pid registered, so `cancel` can kill it.
    private func startAndWait(_ child: ChildProcess) throws(ChildProcess.SpawnError) -> ChildProcess.Outcome {
        try child.run { pid in
            state.withLock { state in
                if state.cancelled { kill(pid, SIGKILL) }
                state.running.insert(pid)
            }
        } ended: { pid in
            _ = state.withLock { $0.running.remove(pid) }
        }
    }

    private func failure(_ path: String, size: Int64?, sha: String?, wal: String?, _ status: FleetRowStatus, _ message: String,
                         exitCode: Int) -> Result? {
        let row = FleetRow.failure(path: path, size: size, sha256: sha, walSha256: wal, status: status, error: message, exitCode: exitCode)
        return Result(status: status, row: JSONWriter().string(.object(row)), findings: [], peakMB: 0)
    }

    /// Why an analysis process gave no row, in one sentence.
    static func explain(_ outcome: ChildProcess.Outcome, _ settings: Settings) -> String {
        var sentence: String
        if outcome.timedOut {
            sentence = "the analysis did not finish within \(DurationFormat.short(settings.timeout ?? 0)) (--timeout) and was stopped"
        } else if outcome.outputOverflow {
            sentence = "the analysis wrote more output than a row can hold and was stopped"
        } else if let signal = outcome.signal {
            sentence = "the analysis process crashed (signal \(signal)\(signalName(signal).map { ", \($0)" } ?? ""))"
            if let limit = settings.memoryLimit {
                sentence += "; it may have run out of memory: each analysis may use \(FleetRunner.size(limit)) (--memory-limit)"
            }
        } else if let code = outcome.exitCode, code != 0 {
            sentence = "the analysis process exited with code \(code)"
        } else {
            sentence = "the analysis process printed no row"
        }
        // The runtime's own last words ("Fatal error: …"), when it left some.
        let tail = String(decoding: outcome.stderrTail, as: UTF8.self)
        if let said = tail.split(whereSeparator: \.isNewline).last(where: { $0.localizedCaseInsensitiveContains("error") }) {
            sentence += "; it said: " + String(said.prefix(300))
        }
        return sentence + "."
    }

    static func signalName(_ signal: Int32) -> String? {
        [SIGSEGV: "SIGSEGV", SIGABRT: "SIGABRT", SIGKILL: "SIGKILL", SIGILL: "SIGILL", SIGTRAP: "SIGTRAP", SIGBUS: "SIGBUS",
         SIGFPE: "SIGFPE", SIGTERM: "SIGTERM", SIGINT: "SIGINT"][signal]
    }

    /// `4 GB`, `512 MB`.
    static func size(_ bytes: UInt64) -> String {
        bytes >= 1 << 30 && bytes % (1 << 30) == 0 ? "\(bytes >> 30) GB" : "\(bytes >> 20) MB"
    }
}
