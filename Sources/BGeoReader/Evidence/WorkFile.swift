import Foundation
import Synchronization

/// Why a working file of the streamed trace could not be written or read back (a full disk, a
/// folder removed under the run): one sentence naming the file; the command fails with it.
public struct WorkFileError: Error, CustomStringConvertible, Sendable, Equatable {
    public let path: String
    public let reason: String

    package init(path: String, reason: String) {
        self.path = path
        self.reason = reason
    }

    public var description: String { "cannot use the working file \(path) (\(reason))" }

    package static func fromErrno(_ path: String) -> WorkFileError {
        WorkFileError(path: path, reason: String(cString: strerror(errno)))
    }
}

/// Names the working files of one run inside the private working folder of the dump's copy —
/// never anywhere else, so they are removed with the copy however the process ends.
package final class WorkFolder: Sendable {
    let path: String
    private let counter = Mutex(0)

    init(path: String) { self.path = path }

    /// How many work files the signal handler knows by name (`knownNames`): a run that makes more
    /// leaves the rest to `deinit`, the exit handler and the next run's sweep of dead folders.
    static let namedSlots = 128
    static let extensions = ["tape", "db", "db-journal"]

    /// The names the signal handler unlinks before removing the folder (it cannot list a folder).
    static let knownNames: [String] = (0..<namedSlots).flatMap { n in extensions.map { "work-\(n).\($0)" } }

    /// A fresh file name in the folder (nothing is created). Names come from `knownNames`, so a
    /// signal that ends the process removes the work files with the copy; `stem` (what the file
    /// holds) is not in the name for that reason.
    package func newFile(_ stem: String, extension ext: String) -> String {
        let n = counter.withLock { counter in
            defer { counter += 1 }
            return counter
        }
        let kind = WorkFolder.extensions.contains(ext) ? ext : "tape"
        return path + "/work-\(n).\(kind)"
    }
}

/// A working file (a sorted run's tape, a sealed spill table) removed when the last holder lets
/// go: what lets a stored trace be read on several threads without an owner thread.
package final class WorkFileLease: Sendable {
    package let path: String

    package init(path: String) { self.path = path }

    deinit { unlink(path) }
}

extension EvidenceCopy {
    /// The folder for the working files of this copy (spilled and stored traces, warnings past
    /// those held), shared by every connection to it.
    var workFiles: WorkFolder { WorkFolders.shared.folder(for: privateFolder) }
}

/// One `WorkFolder` per private folder (so two connections to one copy never pick the same name).
final class WorkFolders: Sendable {
    static let shared = WorkFolders()
    private let folders = Mutex<[String: WorkFolder]>([:])

    func folder(for path: String) -> WorkFolder {
        folders.withLock { folders in
            if let folder = folders[path] { return folder }
            let folder = WorkFolder(path: path)
            folders[path] = folder
            return folder
        }
    }
}
