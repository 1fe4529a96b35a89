import Foundation
import Testing
@testable import BGeoReader
@testable import BGeoForensics

/// A private copy never outlives the process: a file created inside the folder while it is being
/// removed (a background reader's SQLite `-shm` / `-journal`) must not leave the folder behind.
/// Found by the fuzz run of seed 20261204 (case 5718: `inspect` left its folder in $TMPDIR once).
@Suite struct PrivateFolderRemovalTests {
    @Test func aFileCreatedDuringRemovalDoesNotLeaveTheFolder() throws {
        let parent = TestDirectory("private-removal")
        for round in 0..<20 {
            let folder = try PrivateFolder(in: parent.path)
            let path = folder.path
            let done = DispatchSemaphore(value: 0)
            // A writer racing the removal for a few milliseconds, as a background connection would.
            Thread.detachNewThread {
                let started = Date()
                var n = 0
                while Date().timeIntervalSince(started) < 0.005 {
                    let fd = open(path + "/race-\(n)", O_CREAT | O_WRONLY | O_CLOEXEC, 0o600)
                    if fd >= 0 { close(fd) }
                    n += 1
                }
                done.signal()
            }
            folder.remove()
            done.wait()
            // Whatever the writer made after the last walk is in a folder that no longer exists.
            var info = stat()
            #expect(lstat(path, &info) != 0, "round \(round): the folder outlived its removal")
            if lstat(path, &info) == 0 { try? FileManager.default.removeItem(atPath: path) }
        }
    }
}
