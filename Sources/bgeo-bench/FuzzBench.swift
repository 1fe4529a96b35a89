import BGeoForensics
import BGeoSimulation
import Foundation

/// `bgeo-bench fuzz --count N --seed S [--first K] [--jobs J] [--timeout SECONDS] [--keep] [--list] [--tool PATH]`:
/// runs N deterministic fuzz cases against the `bgeo-forensics` built next to this binary (or
/// `--tool`) and prints `N passed, N failed` (every finding first, with the case to replay it:
/// `--first K --count 1`; `--keep` keeps the failing cases' files, `--list` only prints recipes).
enum FuzzBench {
    static func run(_ words: [String]) -> Int32 {
        var count = 200
        var seed: UInt64 = 20_260_724
        var first = 0
        var jobs = max(1, ProcessInfo.processInfo.activeProcessorCount)
        var timeout = 60.0
        var keep = false
        var list = false
        var tool = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
            .deletingLastPathComponent().appendingPathComponent("bgeo-forensics").path
        var words = words
        func value() -> String? { words.isEmpty ? nil : words.removeFirst() }
        while let word = value() {
            switch word {
            case "--count": count = value().flatMap { Int($0) } ?? -1
            case "--seed": seed = value().flatMap { UInt64($0) } ?? 0
            case "--first": first = value().flatMap { Int($0) } ?? -1
            case "--jobs": jobs = value().flatMap { Int($0) } ?? 0
            case "--timeout": timeout = value().flatMap { Double($0) } ?? 0
            case "--keep": keep = true
            case "--list": list = true
            case "--tool": tool = value() ?? tool
            default:
                print("usage: bgeo-bench fuzz --count N --seed S [--first K] [--jobs J] [--timeout SECONDS] [--keep] [--list] [--tool PATH]")
                return 2
            }
        }
        guard count >= 0, first >= 0, jobs > 0, timeout > 0 else {
            print("bgeo-bench fuzz: --count, --first, --jobs and --timeout take positive numbers")
            return 2
        }
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("bgeo-fuzz-\(seed)").path
        var campaign = FuzzCampaign(seed: seed, count: count, runner: FuzzRunner(tool: tool, timeout: timeout),
                                    scratch: scratch, jobs: jobs)
        campaign.first = first
        campaign.keep = keep
        if list {
            for index in first..<(first + count) {
                let folder = scratch + "/list-\(index)"
                try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
                defer { try? FileManager.default.removeItem(atPath: folder) }
                print((try? FuzzCase(seed: seed, index: index, folder: folder).description) ?? "case \(index): cannot be built")
            }
            return 0
        }
        print("Fuzzing \(tool): seed \(seed), cases \(first)…\(first + count - 1), \(jobs) jobs")
        let step = max(1, count / 20)
        let total = count
        let summary = campaign.run { done, partial, findings in
            // Findings as they come (a long run may be stopped), progress every 5 %.
            for finding in findings { FileHandle.standardOutput.write(Data("\(finding)\n".utf8)) }
            if done % step == 0 || done == total {
                FileHandle.standardError.write(Data("  \(done)/\(total): \(partial.line)\n".utf8))
            }
        }
        if keep, summary.failed > 0 { print("failing cases kept in \(scratch)") }
        // Each case's folder goes when it passes; the campaign's own goes once empty.
        _ = rmdir(scratch)
        print(String(format: "%@ (seed %llu, %d cases in %.0f s)", summary.line, seed, count, summary.seconds))
        return summary.failed == 0 ? 0 : 1
    }
}
