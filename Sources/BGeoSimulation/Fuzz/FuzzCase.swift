import BGeoForensics
import Foundation

/// One fuzz case, entirely decided by (seed, index): a base dump of some layout and shape, then
/// one to three mutations (row level, schema, file level). The same pair always gives the same
/// recipe, so a failure found in a 20,000-case run is replayed with `--seed S --case N`.
public struct FuzzCase: Sendable {
    public let seed: UInt64
    public let index: Int
    /// What was built and done, in words.
    public private(set) var recipe: [String] = []
    /// Text views or `--json` for every command of this case.
    public let json: Bool
    /// The dump's file inside the case folder.
    public let dumpPath: String

    /// Writes the case's files into `folder` (which must exist and be empty).
    public init(seed: UInt64, index: Int, folder: String) throws {
        self.seed = seed
        self.index = index
        var rng = SplitMix64(seed: seed ^ (UInt64(index) &* 0x9E37_79B9_7F4A_7C15) ^ 0x4655_5A5A)
        json = rng.chance(0.5)
        dumpPath = folder + "/bgeo.db"
        let layout = FuzzDumpBuilder.Layout.allCases[rng.int(0...(FuzzDumpBuilder.Layout.allCases.count - 1))]
        let shape = rng.chance(0.6) ? FuzzDumpBuilder.Shape.normal
            : FuzzDumpBuilder.Shape.allCases[rng.int(0...(FuzzDumpBuilder.Shape.allCases.count - 1))]
        recipe.append("\(layout.rawValue) dump, \(shape.rawValue) shape")
        let writer = try FuzzDumpBuilder(layout: layout, shape: shape).build(at: dumpPath, rng: &rng)
        // Row and schema mutations while the writer is open; file damage after it closed.
        let mutations = rng.int(1...3)
        var fileLevel = 0
        for _ in 0..<mutations {
            // A mutation a constraint refuses (a duplicate uuid, a dropped column) is skipped: the
            // dump stays what SQLite let it become.
            func attempt(_ mutate: (inout SplitMix64) throws -> String) -> String {
                do { return try mutate(&rng) } catch { return "(a mutation SQLite refused: \(error))" }
            }
            switch rng.int(0...9) {
            case 0...4: recipe.append(attempt { try FuzzMutation.rowLevel(writer, rng: &$0) })
            case 5: recipe.append(attempt { rng in rng.chance(0.5) ? try FuzzMutation.schemaLevel(writer, rng: &rng) : try FuzzMutation.rowLevel(writer, rng: &rng) })
            default: fileLevel += 1
            }
        }
        try writer.close(keepWAL: layout == .currentWAL)
        for suffix in ["-shm", "-journal"] { _ = unlink(dumpPath + suffix) }
        if FileManager.default.fileExists(atPath: dumpPath + "-wal") {
            try WALNormalizer.normalize(path: dumpPath + "-wal", salt1: UInt32(truncatingIfNeeded: rng.next()),
                                        salt2: UInt32(truncatingIfNeeded: rng.next()))
        }
        if fileLevel > 0 {
            let foreign = rng.chance(0.3) ? try FuzzCase.foreignWAL(folder: folder, rng: &rng) : nil
            for _ in 0..<fileLevel {
                recipe.append(try FuzzMutation.fileLevel(path: dumpPath, foreignWAL: foreign, rng: &rng))
            }
        }
    }

    /// The WAL of another, independently built dump.
    private static func foreignWAL(folder: String, rng: inout SplitMix64) throws -> [UInt8]? {
        let other = folder + "/other/bgeo.db"
        try FileManager.default.createDirectory(atPath: folder + "/other", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder + "/other") }
        let writer = try FuzzDumpBuilder(layout: .currentWAL, shape: .normal).build(at: other, rng: &rng)
        try writer.close(keepWAL: true)
        return (try? Data(contentsOf: URL(fileURLWithPath: other + "-wal"))).map { [UInt8]($0) }
    }

    /// One line: `seed S case N: recipe; recipe`.
    public var description: String {
        "seed \(seed) case \(index)\(json ? " (--json)" : ""): " + recipe.joined(separator: "; ")
    }
}
