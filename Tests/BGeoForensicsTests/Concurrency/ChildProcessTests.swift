import Foundation
import Testing
@testable import BGeoReader

/// `ChildProcess` (fleet's analyses, the fuzz suite's commands) reads a child's output until its
/// pipes close. A process the child leaves behind can hold them open long after it ended — the
/// Swift runtime's `swift-backtrace` after a crash did, and the fuzz run of seed 20261207 waited
/// on it for ten minutes. Once the child has ended, the read ends after a short grace.
@Suite struct ChildProcessTests {
    @Test func aChildThatLeavesAHolderOfItsPipesIsReportedWithoutWaitingForIt() throws {
        let started = Date()
        // The background `sleep` inherits both pipes and holds them for 30 s after the shell exits.
        let outcome = try ChildProcess(executable: "/bin/sh", arguments: ["-c", "echo out; echo err >&2; sleep 30 & exit 3"]).run()
        let elapsed = Date().timeIntervalSince(started)
        #expect(elapsed < 10, "waited \(elapsed) s for the pipes' holder")
        #expect(outcome.exitCode == 3)
        #expect(outcome.signal == nil && !outcome.timedOut)
        #expect(String(decoding: outcome.stdout, as: UTF8.self) == "out\n")
        #expect(String(decoding: outcome.stderrTail, as: UTF8.self).contains("err"))
    }

    /// What the holder writes within the grace is still read.
    @Test func whatTheHolderWritesAtOnceIsKept() throws {
        let outcome = try ChildProcess(executable: "/bin/sh",
                                       arguments: ["-c", "(sleep 0.3; echo late; sleep 30) & exit 0"]).run()
        #expect(outcome.exitCode == 0)
        #expect(String(decoding: outcome.stdout, as: UTF8.self) == "late\n")
    }

    /// A holder that never stops writing does not keep the read going either.
    @Test func aHolderThatKeepsWritingIsLeftAfterTheGrace() throws {
        let started = Date()
        let outcome = try ChildProcess(executable: "/bin/sh",
                                       arguments: ["-c", "(while :; do echo more; sleep 0.01; done) & exit 5"]).run()
        #expect(Date().timeIntervalSince(started) < 10)
        #expect(outcome.exitCode == 5)
        #expect(String(decoding: outcome.stdout, as: UTF8.self).hasPrefix("more\n"))
    }

    /// A child that ends on its own, quickly or after a while, is read to its end as before.
    @Test func aChildReadToItsEnd() throws {
        let outcome = try ChildProcess(executable: "/bin/sh", arguments: ["-c", "sleep 0.5; printf 'a%.0s' $(seq 1 100000)"]).run()
        #expect(outcome.exitCode == 0)
        #expect(outcome.stdout.count == 100_000)
    }

    /// The deadline still kills a child that does not end.
    @Test func theDeadlineStillKills() throws {
        let started = Date()
        let outcome = try ChildProcess(executable: "/bin/sh", arguments: ["-c", "exec sleep 30"], timeout: 0.5).run()
        #expect(outcome.timedOut && outcome.signal == SIGKILL)
        #expect(Date().timeIntervalSince(started) < 10)
    }
}
