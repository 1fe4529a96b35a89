import Foundation

/// The files a `fleet` run analyses: each file named, and every regular file found walking each
/// folder named (recursively, in name order). Inside folders, hidden entries are skipped, and so
/// are a database's companions (`-wal`, `-shm`, `-journal` beside their database: they are read
/// with it), the run's own output files, and anything that is not a regular file (a FIFO would
/// block the reader forever). Symbolic links to files are followed; links to folders are not (no
/// loops). A path that does not exist, or a named file that is not a regular file, is kept as an
/// input that fails with its reason: every name the user gave gets a line (but the run's own
/// output files, even when named).
public enum FleetInputs {
    public struct Input: Sendable, Equatable {
        public var path: String
        /// Why the input cannot be read at all, decided while walking (nil: try it).
        public var problem: String?
    }

    public static func collect(_ paths: [String], excluding outputs: [String]) -> [Input] {
        let excluded = Set(outputs.map(EvidenceOutputGuard.canonical))
        var inputs: [Input] = []
        var seen: Set<String> = []
        func add(_ input: Input) {
            if seen.insert(EvidenceOutputGuard.canonical(input.path)).inserted { inputs.append(input) }
        }
        for path in paths {
            var info = stat()
            guard stat(path, &info) == 0 else {
                add(Input(path: path, problem: "\(path): \(String(cString: strerror(errno))).")); continue
            }
            switch info.st_mode & S_IFMT {
            case S_IFDIR:
                var found: [String] = []
                walk(path, into: &found)
                for file in found where !excluded.contains(EvidenceOutputGuard.canonical(file)) { add(Input(path: file)) }
            case S_IFREG:
                if !excluded.contains(EvidenceOutputGuard.canonical(path)) { add(Input(path: path)) }
            default:
                add(Input(path: path, problem: "\(path) is not a regular file (a device, FIFO or socket), so it is not a dump."))
            }
        }
        return inputs
    }

    /// Regular files under `folder`, depth first, entries in byte order of their names.
    private static func walk(_ folder: String, into files: inout [String]) {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else { return }
        let visible = names.filter { !$0.hasPrefix(".") }.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }
        let present = Set(visible)
        for name in visible {
            let path = folder.hasSuffix("/") ? folder + name : folder + "/" + name
            var link = stat()
            guard lstat(path, &link) == 0 else { continue }
            let kind = link.st_mode & S_IFMT
            if kind == S_IFDIR {
                walk(path, into: &files)
                continue
            }
            var target = stat()
            guard kind == S_IFREG || (kind == S_IFLNK && stat(path, &target) == 0 && target.st_mode & S_IFMT == S_IFREG) else { continue }
            if isCompanion(name, present: present) { continue }
            files.append(path)
        }
    }

    /// `x.db-wal`, `x.db-shm`, `x.db-journal` next to `x.db`.
    static func isCompanion(_ name: String, present: Set<String>) -> Bool {
        for suffix in ["-wal", "-shm", "-journal"] where name.hasSuffix(suffix) {
            if present.contains(String(name.dropLast(suffix.count))) { return true }
        }
        return false
    }
}
