import Foundation

/// Refuses an output path that is one of the evidence files (the dump, its -wal, -shm or
/// -journal): a mistyped `-o` must never overwrite what it reads.
public enum EvidenceOutputGuard {
    public static func check(output: String, evidence: [String]) throws(UsageError) {
        guard output != "-" else { return }
        let target = canonical(output)
        for path in evidence {
            for file in [path, path + "-wal", path + "-shm", path + "-journal"] where canonical(file) == target {
                throw UsageError(message: "-o '\(output)' is the evidence file '\(file)'; choose another output")
            }
        }
    }

    /// The absolute path with symlinks resolved (of its folder, when the file does not exist yet).
    public static func canonical(_ path: String) -> String {
        let url = URL(fileURLWithPath: path)
        if FileManager.default.fileExists(atPath: path) { return url.resolvingSymlinksInPath().path }
        return url.deletingLastPathComponent().resolvingSymlinksInPath().appendingPathComponent(url.lastPathComponent).path
    }
}
