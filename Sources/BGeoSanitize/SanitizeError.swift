import BGeoForensics
/// Why `sanitize` refused or failed, in one sentence. Nothing is left behind in either case: the
/// output appears only complete and verified.
public enum SanitizeError: Error, CustomStringConvertible, Sendable, Equatable {
    case outputExists(path: String)
    case outputIsInput(path: String)
    case outputIsEvidenceSideFile(path: String)
    case outputFolderMissing(path: String, folder: String)
    case outputIsDirectory(path: String)
    case sideFileExists(path: String)
    case cannotWrite(path: String, reason: String)
    case verificationFailed(reason: String)
    case evidenceChanged(path: String)
    /// The dump's own `state` table cannot hold the sanitisation marker (a damaged schema).
    case cannotMark(dump: String, reason: String)

    /// True for a command line that cannot work as given (exit code 2).
    public var isUsage: Bool {
        switch self {
        case .outputExists, .outputIsInput, .outputIsEvidenceSideFile, .outputFolderMissing, .outputIsDirectory, .sideFileExists,
             .cannotMark, .cannotWrite:
            return true
        case .verificationFailed, .evidenceChanged:
            return false
        }
    }

    public var description: String {
        switch self {
        case .outputExists(let path):
            return "refusing to replace \(path): it already exists (pass --force to replace it)"
        case .outputIsInput(let path):
            return "refusing to write \(path): the output would be the dump itself (evidence is never overwritten)"
        case .outputIsEvidenceSideFile(let path):
            return "refusing to write \(path): it is the dump's -wal, -shm or -journal (evidence is never overwritten)"
        case .outputFolderMissing(let path, let folder):
            return "cannot write \(path): folder \(folder) does not exist"
        case .outputIsDirectory(let path):
            return "cannot write \(path): it is a folder; give a file name such as \(path)/sanitised.db"
        case .sideFileExists(let path):
            return "refusing to write beside \(path): SQLite would apply it to the new file (remove it, or pass --force)"
        case .cannotWrite(let path, let reason):
            return "cannot write \(path): \(reason) (nothing was written)"
        case .verificationFailed(let reason):
            return "the sanitised copy failed its own check and was deleted: \(reason)"
        case .evidenceChanged(let path):
            return "the input \(path) changed while it was being sanitised (its SHA-256 differs); the output was written, "
                + "but re-run on a quiet copy of the evidence"
        case .cannotMark(let dump, let reason):
            return "cannot sanitise \(dump): its state table \(reason) (a damaged schema), so the copy could not record that it "
                + "was sanitised; nothing was written"
        }
    }
}
