import BGeoReader
import Foundation

/// A file or folder the user named that cannot be used, in one sentence (exit 2) instead of a
/// platform error (`Error Domain=NSCocoaErrorDomain Code=516 …`, libxml2's `I/O error`).
public struct FileProblem: Error, CustomStringConvertible, Sendable {
    public var path: String
    /// What is wrong, in words: "it is a folder", "the folder /x does not exist", …
    public var reason: String
    /// "write" or "read" or "create the folder".
    public var action: String

    public init(path: String, reason: String, action: String = "write") {
        self.path = path
        self.reason = reason
        self.action = action
    }

    /// False for a full or failing disk: not the user's input (exit 1 rather than 2).
    public var isInputProblem = true

    public var description: String { "cannot \(action) '\(path)': \(reason)" }

    /// Checks that `path` can be created or replaced as a file: not a folder, in a folder that
    /// exists (unless `createFolders`) and is a folder. Throws the problem before any work is done.
    public static func checkWritableFile(_ path: String, createFolders: Bool = false) throws(FileProblem) {
        let manager = FileManager.default
        var isDirectory: ObjCBool = false
        if path.hasSuffix("/") || (manager.fileExists(atPath: path, isDirectory: &isDirectory) && isDirectory.boolValue) {
            throw FileProblem(path: path, reason: "it is a folder; give a file name")
        }
        let parent = URL(fileURLWithPath: path).deletingLastPathComponent().path
        var ancestor = parent
        // The nearest part of the path that exists must be a folder (a file in the way is an error
        // whether or not folders may be created).
        while !manager.fileExists(atPath: ancestor, isDirectory: &isDirectory) {
            guard createFolders else { throw FileProblem(path: path, reason: "the folder \(parent) does not exist") }
            let up = URL(fileURLWithPath: ancestor).deletingLastPathComponent().path
            if up == ancestor { break }
            ancestor = up
        }
        if !isDirectory.boolValue {
            throw FileProblem(path: path, reason: "\(ancestor) is a file, not a folder")
        }
        if ancestor == parent, !manager.isWritableFile(atPath: parent) {
            throw FileProblem(path: path, reason: "the folder \(parent) is not writable")
        }
    }

    /// Checks that `path` is, or can become, a folder (not a file).
    public static func checkFolder(_ path: String) throws(FileProblem) {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue {
            throw FileProblem(path: path, reason: "it is a file, and a folder is needed here", action: "use")
        }
    }

    /// What is wrong with `path` as a file to write, found by looking (for errors that do not say).
    static func probe(_ path: String) -> String? {
        do { try checkWritableFile(path) } catch { return error.reason }
        return nil
    }

    /// The sentence for a Foundation file error, when it is one (nil otherwise). `path` is used
    /// when the error does not name its file.
    public static func from(_ error: Error, path fallback: String? = nil) -> FileProblem? {
        let ns = error as NSError
        guard ns.domain == NSCocoaErrorDomain || ns.domain == NSPOSIXErrorDomain else { return nil }
        let path = (ns.userInfo[NSFilePathErrorKey] as? String)
            ?? (ns.userInfo[NSURLErrorKey] as? URL)?.path ?? fallback ?? "the file"
        var posix = ns.domain == NSPOSIXErrorDomain ? Int32(ns.code) : nil
        if posix == nil, let underlying = ns.userInfo[NSUnderlyingErrorKey] as? NSError, underlying.domain == NSPOSIXErrorDomain {
            posix = Int32(underlying.code)
        }
        let reading = ns.domain == NSCocoaErrorDomain && (256..<512).contains(ns.code)
        var reason: String
        var action = reading ? "read" : "write"
        switch posix {
        case EEXIST?:
            reason = "a file with that name already exists"
            action = "create"
        case EISDIR?: reason = "it is a folder"
        case ENOENT?: reason = "no such file or folder"
        case ENOTDIR?: reason = "a part of the path is a file, not a folder"
        case EACCES?, EPERM?: reason = "permission denied"
        case ENOSPC?, EIO?: reason = posix == EIO ? "input/output error" : "the disk is full"
        case EROFS?: reason = "the file system is read-only"
        default:
            switch CocoaError.Code(rawValue: ns.code) {
            case .fileWriteFileExists:
                reason = "a file with that name already exists"
                action = "create"
            case .fileNoSuchFile, .fileReadNoSuchFile: reason = "no such file or folder"
            case .fileWriteNoPermission, .fileReadNoPermission: reason = "permission denied"
            case .fileWriteOutOfSpace: reason = "the disk is full"
            case .fileWriteVolumeReadOnly: reason = "the file system is read-only"
            default: reason = FileProblem.probe(path) ?? "the file system refused it (\(ns.domain) \(ns.code))"
            }
        }
        var problem = FileProblem(path: path, reason: reason, action: action)
        problem.isInputProblem = posix != ENOSPC && posix != EIO && CocoaError.Code(rawValue: ns.code) != .fileWriteOutOfSpace
        return problem
    }
}
