import BGeoForensics
import Foundation

/// The files a `fleet` run analyses: each file named, and every regular file found walking each
/// folder named (recursively, in name order). Inside folders, hidden entries are skipped, and so
/// are a database's companions (`-wal`, `-shm`, `-journal` beside their database: they are read
/// with it), the run's own output files, and anything that is not a regular file (a FIFO would
/// block the reader forever). Symbolic links to files are followed; links to folders are not (no
/// loops). A path that does not exist, or a named file that is not a regular file, is kept as an
/// input that fails with its reason: every name the user gave gets a line (but the run's own
/// output files, even when named). Names need not be UTF-8: they are listed and carried as the
/// bytes they are (`RawPath`), so such a dump gets its row too.
public enum FleetInputs {
    public struct Input: Sendable, Equatable {
        public var path: String
        /// Why the input cannot be read at all, decided while walking (nil: try it).
        public var problem: String?
    }

    public static func collect(_ paths: [String], excluding outputs: [String]) -> [Input] {
        // Compared by bytes: Swift calls two strings equal when they are canonically equivalent
        // (`é` and `e` + U+0301), but those are two names, two files, two rows.
        func key(_ path: String) -> [UInt8] { RawPath.bytes(EvidenceOutputGuard.canonical(path)) }
        let excluded = Set(outputs.map(key))
        var inputs: [Input] = []
        var seen: Set<[UInt8]> = []
        func add(_ input: Input) {
            if seen.insert(key(input.path)).inserted { inputs.append(input) }
        }
        for path in paths {
            var info = stat()
            guard RawPath.stat(path, &info) == 0 else {
                add(Input(path: path, problem: "\(path): \(String(cString: strerror(errno))).")); continue
            }
            switch info.st_mode & S_IFMT {
            case S_IFDIR:
                var found: [String] = []
                walk(path, into: &found)
                for file in found where !excluded.contains(key(file)) { add(Input(path: file)) }
            case S_IFREG:
                if !excluded.contains(key(path)) { add(Input(path: path)) }
            default:
                add(Input(path: path, problem: "\(path) is not a regular file (a device, FIFO or socket), so it is not a dump."))
            }
        }
        return inputs
    }

    /// Regular files under `folder`, depth first, entries in byte order of their names.
    private static func walk(_ folder: String, into files: inout [String]) {
        guard let names = RawPath.names(in: folder) else { return }
        let visible = names.filter { !$0.hasPrefix(".") }.sorted { RawPath.bytes($0).lexicographicallyPrecedes(RawPath.bytes($1)) }
        let present = Set(visible.map(RawPath.bytes))
        for name in visible {
            let path = folder.hasSuffix("/") ? folder + name : folder + "/" + name
            var link = stat()
            guard RawPath.lstat(path, &link) == 0 else { continue }
            let kind = link.st_mode & S_IFMT
            if kind == S_IFDIR {
                walk(path, into: &files)
                continue
            }
            var target = stat()
            guard kind == S_IFREG || (kind == S_IFLNK && RawPath.stat(path, &target) == 0 && target.st_mode & S_IFMT == S_IFREG) else { continue }
            if isCompanion(name, present: present) { continue }
            files.append(path)
        }
    }

    /// `x.db-wal`, `x.db-shm`, `x.db-journal` next to `x.db`.
    static func isCompanion(_ name: String, present: Set<[UInt8]>) -> Bool {
        let bytes = RawPath.bytes(name)
        for suffix in ["-wal", "-shm", "-journal"] where bytes.count > suffix.utf8.count && bytes.reversed().starts(with: suffix.utf8.reversed()) {
            if present.contains(Array(bytes.dropLast(suffix.utf8.count))) { return true }
        }
        return false
    }
}
