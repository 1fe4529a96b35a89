import BGeoForensics
import Foundation

/// Writes realistic simulated dumps, deterministically: the same scenario, seed and size give
/// byte-identical files (own PRNG, fixed base date, fixed page size, normalised WAL salts).
public enum Simulator {
    /// The first day of every simulation: 2026-07-24T06:00:00Z.
    public static let baseTime: Double = Timestamp.parse("2026-07-24T06:00:00Z") ?? 1_784_872_800
    /// The seed used when none is given (and for the committed samples).
    public static let defaultSeed: UInt64 = 20_260_724

    /// Writes `scenario` to `path` (and `path-wal` for WAL dumps). `records` (raw fixes) scales the
    /// scenario up by repeating its day; nil gives the small default. Returns what was written.
    @discardableResult
    public static func write(scenario: Scenario, to path: String, seed: UInt64 = defaultSeed, records: Int? = nil) throws -> SimulationSummary {
        try written(to: path, scenario: scenario.rawValue, seed: seed) { path, summary in
            try script(scenario, path: path, seed: seed, records: records, summary: &summary)
        }
    }

    private static func script(_ scenario: Scenario, path: String, seed: UInt64, records: Int?, summary: inout SimulationSummary) throws {
        switch scenario {
        case .healthyDay: try ScenarioScripts.healthyDay(path: path, seed: seed, records: records, summary: &summary)
        case .strandedRefresh: try ScenarioScripts.strandedRefresh(path: path, seed: seed, records: records, summary: &summary)
        case .poisonBatch: try ScenarioScripts.poisonBatch(path: path, seed: seed, records: records, summary: &summary)
        case .teleports: try ScenarioScripts.teleports(path: path, seed: seed, records: records, summary: &summary)
        case .processKill: try ScenarioScripts.processKill(path: path, seed: seed, records: records, summary: &summary)
        case .walMode: try ScenarioScripts.walMode(path: path, seed: seed, records: records, summary: &summary)
        case .legacySchema: try ScenarioScripts.legacySchema(path: path, seed: seed, records: records, summary: &summary)
        case .longping: try ScenarioScripts.longping(path: path, seed: seed, records: records, summary: &summary)
        case .damagedRows: try ScenarioScripts.damagedRows(path: path, seed: seed, records: records, summary: &summary)
        }
    }

    /// Runs `body` on the temporary file of `path`'s `OutputFile` (with its -wal), then renames the
    /// finished dump into place: a simulation stopped half-way leaves nothing at `path`.
    private static func written(to path: String, scenario: String, seed: UInt64,
                                _ body: (String, inout SimulationSummary) throws -> Void) throws -> SimulationSummary {
        let output = try OutputFile(path, protecting: .none, companions: ["-wal"])
        var summary = SimulationSummary(scenario: scenario, seed: seed)
        try output.write { temporary in
            try body(temporary, &summary)
            try finishFiles(path: temporary, seed: seed, summary: &summary)
        }
        summary.files = summary.files.map { path + $0.dropFirst(output.writePath.count) }
        return summary
    }

    /// Writes every scenario into `directory` as `<name>.db`.
    public static func writeAll(to directory: String, seed: UInt64 = defaultSeed) throws -> [SimulationSummary] {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        return try Scenario.allCases.map { try write(scenario: $0, to: (directory as NSString).appendingPathComponent($0.rawValue + ".db"), seed: seed) }
    }

    /// A large dump for benchmarks: `records` queue rows (a tracker that records every second and
    /// has not synced yet) and about as many log rows (a `location` line per fix plus the day's
    /// events), deterministic for a seed.
    @discardableResult
    public static func writeLarge(to path: String, records: Int, seed: UInt64) throws -> SimulationSummary {
        try written(to: path, scenario: "large", seed: seed) { path, summary in
            try ScenarioScripts.large(path: path, seed: seed, records: records, summary: &summary)
        }
    }

    /// SQLite `application_id` stamped into every simulated dump ("BGSM"), so that `simulate`
    /// can tell its own output from evidence before replacing a file.
    public static let applicationID: UInt32 = 0x4247_534D

    /// True when `path` is a dump this simulator wrote (read from the header bytes only: the
    /// file is never opened with SQLite, so evidence beside it is untouched).
    public static func isSimulatedDump(_ path: String) -> Bool {
        guard let handle = FileHandle(forReadingAtPath: path) else { return false }
        defer { try? handle.close() }
        guard let header = try? handle.read(upToCount: 100), header.count == 100 else { return false }
        let bytes = [UInt8](header)
        guard bytes.starts(with: Array("SQLite format 3\0".utf8)) else { return false }
        let id = UInt32(bytes[68]) << 24 | UInt32(bytes[69]) << 16 | UInt32(bytes[70]) << 8 | UInt32(bytes[71])
        return id == applicationID
    }

    /// After the writer is closed: normalise a kept WAL, drop the -shm, count what is on disk.
    private static func finishFiles(path: String, seed: UInt64, summary: inout SimulationSummary) throws {
        _ = unlink(path + "-shm")
        _ = unlink(path + "-journal")
        summary.files = [path]
        if FileManager.default.fileExists(atPath: path + "-wal") {
            var rng = SplitMix64(seed: seed ^ 0x5741_4C00)
            try WALNormalizer.normalize(path: path + "-wal", salt1: UInt32(truncatingIfNeeded: rng.next()),
                                        salt2: UInt32(truncatingIfNeeded: rng.next()))
            summary.files.append(path + "-wal")
        }
    }
}
