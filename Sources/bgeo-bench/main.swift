import BGeoForensics
import Foundation

// bgeo-bench [--records N] [--only inspect,replay,timeline,report,export,resync,sanitize,fleet,scale,shapes] [--runs N] [--keep]
//            [--shapes alone,every5,…] [--growth]
// Builds one large simulated dump, then times each feature on it beside an independent baseline;
// `shapes` writes its own dumps of several shapes (`DumpShape.all`) and, with --growth, 4× them too.
// bgeo-bench fuzz --count N --seed S …: the fuzz suite (see FuzzBench).
if CommandLine.arguments.dropFirst().first == "fuzz" {
    exit(FuzzBench.run(Array(CommandLine.arguments.dropFirst(2))))
}
var records = 1_000_000
var only: Set<String>?
var keep = false
var runs = 3
var shapes = DumpShape.all
var growth = false
var arguments = Array(CommandLine.arguments.dropFirst())
while !arguments.isEmpty {
    let word = arguments.removeFirst()
    switch word {
    case "--records": records = Int(arguments.removeFirst()) ?? records
    case "--only": only = Set(arguments.removeFirst().split(separator: ",").map(String.init))
    case "--keep": keep = true
    case "--runs": runs = Int(arguments.removeFirst()) ?? runs
    case "--growth": growth = true
    case "--shapes":
        let names = arguments.removeFirst().split(separator: ",").map(String.init)
        shapes = names.compactMap(DumpShape.named)
        guard shapes.count == names.count else {
            print("unknown shape; the shapes are: " + DumpShape.all.map(\.name).joined(separator: ", "))
            exit(2)
        }
    default:
        print("usage: bgeo-bench [--records N] [--only inspect,replay,timeline,report,export,resync,sanitize,fleet,scale,shapes] [--runs N] [--keep] [--shapes NAME,…] [--growth]")
        exit(2)
    }
}
let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("bgeo-bench").path
try? FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
let dumpPath = scratch + "/bench-\(records).db"
@MainActor func wanted(_ name: String) -> Bool { only.map { $0.contains(name) } ?? true }
// Every section but fleet (its own 100 small dumps) and shapes (their own dumps) reads the big dump.
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
if only?.contains("shapes") == true { try ShapeBench.run(context, shapes: shapes, runs: runs, growth: growth, keep: keep) }
if !keep { try? FileManager.default.removeItem(atPath: dumpPath) }
