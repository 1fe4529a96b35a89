import BGeoForensics
import Foundation
import Testing

/// Every file a command writes passes `OutputFile` (issue 23): a target that is the dump, its
/// side files, or a hard or symbolic link to any of them is refused before anything is written
/// (exit 2, one sentence), and a write that fails — a full disk, a read-only file system — leaves
/// nothing behind and says so in words, never in a library's. Each case below destroyed the
/// evidence or left a file cut short before.
@Suite(.serialized) struct OutputBoundaryTests {
    static let sample = ReportE2E.packageRoot + "/Samples/stranded-refresh.db"

    /// A copy of a sample in a fresh folder, with its SHA-256.
    static func evidence(_ dir: TestDirectory, name: String = "bgeo.db") throws -> (path: String, sha256: String) {
        let path = dir.file(name)
        try FileManager.default.copyItem(atPath: sample, toPath: path)
        return (path, try EvidenceCopy.sha256(ofFile: path))
    }

    /// Every command that writes a file, with `target` as its output.
    static func writers(dump: String, target: String) -> [[String]] {
        [["report", dump, "-o", target],
         ["gpx", dump, "-o", target],
         ["export", dump, "--format", "geojson", "-o", target],
         ["export", dump, "--format", "kml", "-o", target],
         ["export", dump, "--format", "gpx", "-o", target],
         ["sanitize", dump, "-o", target, "--force"],
         ["fleet", dump, "-o", target],
         ["resync", dump, "--url", "http://127.0.0.1:9/locations", "--set", "authorization.refreshUrl=http://127.0.0.1:9/refresh",
          "--dry-run", "--export-quarantine", target, "--work", (dump as NSString).deletingLastPathComponent + "/work"]]
    }

    static func expectRefused(_ words: [String], evidence: (path: String, sha256: String), _ comment: String) throws {
        let result = try ToolRunner.run(words)
        #expect(result.exitCode == 2, "\(comment) \(words[0]): exit \(result.exitCode), \(result.stderr)")
        #expect(result.stderr.contains("evidence"), "\(comment) \(words[0]): \(result.stderr)")
        #expect(try EvidenceCopy.sha256(ofFile: evidence.path) == evidence.sha256, "\(comment) \(words[0]) changed the dump")
    }

    @Test func reportOntoTheDumpOrItsSideFilesIsRefused() throws {
        let dir = TestDirectory("out-side-files")
        let dump = try Self.evidence(dir)
        for suffix in ["", "-wal", "-shm", "-journal"] {
            try Self.expectRefused(["report", dump.path, "-o", dump.path + suffix], evidence: dump, "-o DUMP\(suffix)")
            #expect(suffix.isEmpty || !FileManager.default.fileExists(atPath: dump.path + suffix), "DUMP\(suffix) was created")
        }
    }

    @Test func aReportWhoseDefaultNameIsTheDumpItselfIsRefused() throws {
        let dir = TestDirectory("out-case-html")
        let dump = try Self.evidence(dir, name: "case.html")
        let result = try ToolRunner.run(["report", "case.html"], currentDirectory: dir.path)
        #expect(result.exitCode == 2, "\(result.stderr)")
        #expect(result.stderr.contains("evidence file"), "\(result.stderr)")
        #expect(try EvidenceCopy.sha256(ofFile: dump.path) == dump.sha256)
    }

    @Test func everyWriterRefusesAHardLinkToTheDump() throws {
        let dir = TestDirectory("out-hard-link")
        let dump = try Self.evidence(dir)
        let link = dir.file("link.out")
        try #require(Foundation.link(dump.path, link) == 0)
        for words in Self.writers(dump: dump.path, target: link) {
            try Self.expectRefused(words, evidence: dump, "hard link")
        }
        var info = stat()
        #expect(stat(link, &info) == 0 && info.st_nlink == 2, "the link itself is still there")
    }

    @Test func everyWriterRefusesASymbolicLinkToTheDumpOrItsWAL() throws {
        let dir = TestDirectory("out-symlink")
        let dump = try Self.evidence(dir)
        try Data("not a wal".utf8).write(to: URL(fileURLWithPath: dump.path + "-wal"))
        let walSHA = try EvidenceCopy.sha256(ofFile: dump.path + "-wal")
        for (name, target) in [("to-dump.out", dump.path), ("to-wal.out", dump.path + "-wal")] {
            let link = dir.file(name)
            try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: target)
            for words in Self.writers(dump: dump.path, target: link) {
                try Self.expectRefused(words, evidence: dump, "symlink \(name)")
            }
        }
        #expect(try EvidenceCopy.sha256(ofFile: dump.path + "-wal") == walSHA)
    }

    @Test func aMissingFolderOrAFolderTargetIsOneSentenceForEveryWriter() throws {
        let dir = TestDirectory("out-missing")
        let dump = try Self.evidence(dir)
        for (target, reason) in [(dir.file("no/such/x.out"), "does not exist"), (dir.path, "it is a folder")] {
            for words in Self.writers(dump: dump.path, target: target) where words[0] != "fleet" {
                let result = try ToolRunner.run(words)
                #expect(result.exitCode == 2, "\(words[0]) \(target): \(result.stderr)")
                #expect(result.stderr.contains(reason), "\(words[0]): \(result.stderr)")
                #expect(!result.stderr.contains("NSCocoaErrorDomain") && !result.stderr.contains("I/O error"), "\(result.stderr)")
            }
        }
        #expect(!FileManager.default.fileExists(atPath: dir.file("no")), "no folder was created")
    }

    /// A real full disk: a 96 KiB tmpfs mounted in a private mount namespace (nothing outside it sees
    /// the mount), filled to the last block. Every writer says "the disk is full", exits 2, and
    /// leaves the folder as it was: no output cut short, no temporary file.
    @Test func aFullDiskLeavesNothingCutShortAndSaysSo() throws {
        if let missing = PrivateMount.unavailable { Issue.record(Comment(rawValue: missing)); return }
        let dir = TestDirectory("out-full")
        let dump = try Self.evidence(dir)
        let mount = dir.file("small")
        try FileManager.default.createDirectory(atPath: mount, withIntermediateDirectories: true)
        for words in Self.writers(dump: dump.path, target: mount + "/out.file") where words[0] != "resync" && words[0] != "fleet" {
            let result = try PrivateMount.run(words, tmpfs: mount, kilobytes: 96, fill: true)
            #expect(result.exitCode == 2, "\(words[0]) \(words[2]): \(result.stdout) \(result.stderr)")
            #expect(result.stderr.contains("the disk is full"), "\(words[0]) \(words[2]): \(result.stderr)")
            #expect(!result.stderr.contains("I/O error") && !result.stderr.contains("SQLite") && !result.stderr.contains("NSCocoa")
                    && !result.stderr.contains("No space left"), "library text: \(result.stderr)")
            #expect(result.stdout.contains("LEFT: fill\n") && !result.stdout.contains("out.file"),
                    "\(words[0]) left files behind: \(result.stdout)")
        }
        #expect(try EvidenceCopy.sha256(ofFile: dump.path) == dump.sha256)
    }

    @Test func aReadOnlyFileSystemIsOneSentence() throws {
        if let missing = PrivateMount.unavailable { Issue.record(Comment(rawValue: missing)); return }
        let dir = TestDirectory("out-ro")
        let dump = try Self.evidence(dir)
        let mount = dir.file("ro")
        try FileManager.default.createDirectory(atPath: mount, withIntermediateDirectories: true)
        for words in Self.writers(dump: dump.path, target: mount + "/out.file") where words[0] != "fleet" {
            let result = try PrivateMount.run(words, tmpfs: mount, kilobytes: 512, readOnly: true)
            #expect(result.exitCode == 2, "\(words[0]): \(result.stderr)")
            #expect(result.stderr.contains("read-only"), "\(words[0]): \(result.stderr)")
        }
    }

    /// An existing output is replaced only when the new one is whole: a failed run leaves the old bytes.
    @Test func aFailedWriteKeepsThePreviousFile() throws {
        if let missing = PrivateMount.unavailable { Issue.record(Comment(rawValue: missing)); return }
        let dir = TestDirectory("out-keep-old")
        let dump = try Self.evidence(dir)
        let mount = dir.file("small")
        try FileManager.default.createDirectory(atPath: mount, withIntermediateDirectories: true)
        let result = try PrivateMount.run(["gpx", dump.path, "-o", mount + "/old.gpx"], tmpfs: mount, kilobytes: 96, fill: true,
                                          before: "printf 'previous bytes' > \(mount)/old.gpx", show: "old.gpx")
        #expect(result.exitCode == 2, "\(result.stderr)")
        #expect(result.stdout.contains("CONTENT: previous bytes"), "\(result.stdout)")
    }
}

/// Runs the tool with a small tmpfs mounted over a folder in a private mount namespace (root only,
/// as the https tests): a real full or read-only file system that nothing outside the run sees.
enum PrivateMount {
    static var unavailable: String? {
        if getuid() != 0 { return "the full-disk tests need root (unshare -m, mount -t tmpfs)" }
        if !FileManager.default.isExecutableFile(atPath: "/usr/bin/unshare") { return "/usr/bin/unshare is missing" }
        return nil
    }

    /// `fill`: the tmpfs is filled to its last block first. The tool's stdout and stderr come back,
    /// then "LEFT: <name>" for each file left in the folder (and "CONTENT: …" of `show`).
    static func run(_ words: [String], tmpfs folder: String, kilobytes: Int, fill: Bool = false, readOnly: Bool = false,
                    before: String = "", show: String? = nil) throws -> ToolResult {
        func quoted(_ s: String) -> String { "'" + s.replacingOccurrences(of: "'", with: "'\\''") + "'" }
        var script = "mount -t tmpfs -o size=\(kilobytes)k tmpfs \(quoted(folder)) || exit 99\n"
        if !before.isEmpty { script += before + "\n" }
        if fill { script += "dd if=/dev/zero of=\(quoted(folder))/fill bs=4k 2>/dev/null\n" }
        if readOnly { script += "mount -o remount,ro \(quoted(folder))\n" }
        script += ([quoted(ToolRunner.executable)] + words.map(quoted)).joined(separator: " ") + "\ncode=$?\n"
        script += "for f in \(quoted(folder))/* \(quoted(folder))/.[!.]*; do [ -e \"$f\" ] && echo \"LEFT: ${f##*/}\"; done\n"
        if let show { script += "printf 'CONTENT: '; cat \(quoted(folder + "/" + show)); echo\n" }
        script += "exit $code\n"
        return try ReportE2E.run("/usr/bin/unshare", ["-m", "--propagation", "private", "/bin/sh", "-c", script])
    }
}
