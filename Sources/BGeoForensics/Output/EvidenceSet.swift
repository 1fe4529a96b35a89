import BGeoReader
import Foundation

/// The files a command reads as evidence — each input dump and its `-wal`, `-shm` and
/// `-journal` — remembered both by device and inode (so a hard link or a symbolic link to any of
/// them is recognised under any name) and by resolved path (so a side file that does not exist
/// yet, `-o DUMP-wal`, is refused too: creating it beside the dump would change what SQLite reads).
/// `OutputFile` asks it about every target before anything is opened for writing.
public struct EvidenceSet: Sendable {
    /// The suffixes SQLite gives a database's companion files.
    public static let sideSuffixes = ["-wal", "-shm", "-journal"]

    struct Identity: Hashable, Sendable {
        let device: UInt64
        let inode: UInt64
    }

    /// Evidence files by identity, each with the name the user gave it.
    private var identities: [Identity: String] = [:]
    /// Evidence files (existing or not) by resolved absolute path.
    private var resolvedPaths: [String: String] = [:]

    /// No inputs (`simulate`): every target is allowed.
    public static let none = EvidenceSet(inputs: [])

    /// The evidence of `inputs` (dump paths as the user named them).
    public init(inputs: [String]) {
        for input in inputs { add(input) }
    }

    /// Adds one input dump and its side files.
    public mutating func add(_ input: String) {
        for file in [input] + EvidenceSet.sideSuffixes.map({ input + $0 }) {
            if let identity = EvidenceSet.identity(of: file) { identities[identity] = file }
            resolvedPaths[EvidenceSet.resolve(file)] = file
        }
    }

    /// The evidence file `target` is (by identity or resolved path), or nil when it is none.
    public func evidenceFile(at target: String) -> String? {
        if let identity = EvidenceSet.identity(of: target), let file = identities[identity] { return file }
        return resolvedPaths[EvidenceSet.resolve(target)]
    }

    /// Device and inode of what `path` names, following symbolic links (nil: nothing there).
    static func identity(of path: String) -> Identity? {
        var info = stat()
        guard RawPath.stat(path, &info) == 0 else { return nil }
        return Identity(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))
    }

    /// The absolute path `path` stands for: symbolic links followed (a dangling one too, as far
    /// as its text goes) and its folder's links resolved. A target that does not exist yet keeps
    /// its own name.
    public static func resolve(_ path: String) -> String {
        var current = URL(fileURLWithPath: path).standardizedFileURL.path
        for _ in 0..<40 {
            guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: current) else { break }
            let folder = (current as NSString).deletingLastPathComponent
            current = URL(fileURLWithPath: target, relativeTo: URL(fileURLWithPath: folder, isDirectory: true)).standardizedFileURL.path
        }
        let url = URL(fileURLWithPath: current)
        let folder = url.deletingLastPathComponent()
        let resolvedFolder = (folder.path.withCString { realpath($0, nil) }).map { pointer -> String in
            defer { free(pointer) }
            return String(cString: pointer)
        } ?? folder.path
        return (resolvedFolder as NSString).appendingPathComponent(url.lastPathComponent)
    }
}
