import BGeoForensics
import Foundation

// bgeo-bench [--records N] [--only inspect,replay,timeline,report,export,resync,sanitize,fleet,scale] [--runs N] [--keep]
// Builds one large simulated dump, then times each feature on it beside an independent baseline.
// bgeo-bench fuzz --count N --seed S …: the fuzz suite (see FuzzBench).
if CommandLine.arguments.dropFirst().first == "fuzz" {
    exit(FuzzBench.run(Array(CommandLine.arguments.dropFirst(2))))
}
var records = 1_000_000
var only: Set<String>?
var keep = false
var runs = 3
var arguments = Array(CommandLine.arguments.dropFirst())
while !arguments.isEmpty {
    let word = arguments.removeFirst()
    switch word {
    case "--records": records = Int(arguments.removeFirst()) ?? records
    case "--only": only = Set(arguments.removeFirst().split(separator: ",").map(String.init))
    case "--keep": keep = true
    case "--runs": runs = Int(arguments.removeFirst()) ?? runs
    default:
        print("usage: bgeo-bench [--records N] [--only inspect,replay,timeline,report,export,resync,sanitize,fleet,scale] [--runs N] [--keep]")
        exit(2)
    }
}
let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("bgeo-bench").path
try? FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
let dumpPath = scratch + "/bench-\(records).db"
@MainActor func wanted(_ name: String) -> Bool { only.map { $0.contains(name) } ?? true }
// Every section but fleet (its own 100 small dumps) reads the big dump.
let needsBigDump = ["inspect", "replay", "timeline", "report", "export", "resync", "scale"].contains(where: wanted)
if needsBigDump, !FileManager.default.fileExists(atPath: dumpPath) {
    print("Simulating a \(records)-record dump at \(dumpPath) …")
    // In a child process: the children timed below would otherwise report this process's
    // high-water mark as their peak RSS (Linux carries it across fork/exec).
    let probe = BenchContext(dumpPath: dumpPath, scratch: scratch, records: records)
    let made = try probe.timeCommand(probe.toolPath, ["simulate", "--records", String(records), "--seed", "42", "-o", dumpPath])
    guard made.status == 0 else {
        print("simulate failed (exit \(made.status))")
        exit(1)
    }
    print(String(format: "  done in %.1f s (peak RSS %.0f MB)", made.seconds, made.peakMB))
}
let context = BenchContext(dumpPath: dumpPath, scratch: scratch, records: records)
if wanted("inspect") { try InspectBench.run(context) }
if wanted("replay") { try ReplayBench.run(context) }
if wanted("timeline") { try TimelineBench.run(context) }
if wanted("report") { try ReportBench.run(context) }
if wanted("export") { try ExportBench.run(context) }
if wanted("resync") { try ResyncBench.run(context) }
if wanted("sanitize") { try SanitizeBench.run(context) }
if wanted("fleet") { try FleetBench.run(context) }
if wanted("scale") { try ScaleBench.run(context, runs: runs) }
if !keep { try? FileManager.default.removeItem(atPath: dumpPath) }
