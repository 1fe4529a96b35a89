import BGeoForensics
import Foundation

/// Where the sanitised copy goes, checked before any work: never the dump or its side files
/// (nor a link to them: `EvidenceSet`), never an existing file without `--force`, never beside a
/// stale -wal/-journal that SQLite would apply to it. The working database is a hidden file in
/// the same folder, and the staged copy is the `OutputFile` of the target (a hidden temporary file
/// there too), so the final rename is atomic and nothing sits outside the folder the user chose.
struct OutputTarget {
    let path: String
    let folder: String
    /// The database rows are written into (deleted at the end).
    let workPath: String
    /// `VACUUM INTO` writes its temporary file; renamed to `path` once verified.
    let staging: OutputFile
    /// Stale side files beside `path` that `--force` removes.
    let staleSideFiles: [String]

    static let sideSuffixes = EvidenceSet.sideSuffixes

    var stagingPath: String { staging.writePath }

    /// Registers the staged file for removal whatever ends the run (before `VACUUM INTO` makes it).
    func prepare() { staging.prepare() }

    init(output: String, input: String, force: Bool) throws(SanitizeError) {
        let fm = FileManager.default
        let parent = (output as NSString).deletingLastPathComponent
        let folder = parent.isEmpty ? "." : parent
        var isDirectory: ObjCBool = false
        guard fm.fileExists(atPath: folder, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw .outputFolderMissing(path: output, folder: folder)
        }
        if fm.fileExists(atPath: output, isDirectory: &isDirectory), isDirectory.boolValue { throw .outputIsDirectory(path: output) }
        let evidence = EvidenceSet(inputs: [input])
        if let file = evidence.evidenceFile(at: output) {
            throw file == input || !OutputTarget.sideSuffixes.contains(where: file.hasSuffix) ? .outputIsInput(path: output)
                : .outputIsEvidenceSideFile(path: output)
        }
        if fm.fileExists(atPath: output), !force { throw .outputExists(path: output) }
        let stale = OutputTarget.sideSuffixes.map { output + $0 }.filter { fm.fileExists(atPath: $0) }
        if let first = stale.first, !force { throw .sideFileExists(path: first) }
        for side in stale where evidence.evidenceFile(at: side) != nil { throw .outputIsEvidenceSideFile(path: side) }
        path = output
        self.folder = folder
        staleSideFiles = stale
        do throws(FileProblem) { staging = try OutputFile(output, protecting: evidence) } catch {
            throw .cannotWrite(path: output, reason: error.reason)
        }
        let name = (output as NSString).lastPathComponent
        workPath = (folder as NSString).appendingPathComponent(".\(name).sanitize-\(UUID().uuidString.prefix(8)).work")
    }

    /// Moves the verified staged copy into place (atomically replacing an old file with --force)
    /// and makes the rename durable.
    func commit() throws(SanitizeError) {
        for side in staleSideFiles { unlink(side) }
        do throws(FileProblem) { try staging.commit() } catch { throw .cannotWrite(path: path, reason: error.reason) }
    }
}
