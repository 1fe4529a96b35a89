import BGeoForensics
import Foundation

/// Ties every analysis process (`fleet --worker`) to the fleet that started it, so that none
/// outlives it however the fleet ends — `kill -9` included, where the fleet itself can do nothing
/// (analyses went on for up to `--timeout`, no longer bound by it, and left their folders).
///
/// The fleet holds the only write end of a pipe (close-on-exec: no child inherits it); each
/// analysis gets the read end as descriptor 3 and watches it on a thread of its own. Nothing is
/// ever written: the read returns when the kernel closes the write end, which it does when the
/// fleet's process ends, however it ends. The analysis then removes its job folder (its $TMPDIR,
/// holding the private copy of the dump), and the fleet's working folder once that is empty (the
/// last analysis to go does it), and exits.
///
/// Why a pipe rather than `prctl(PR_SET_PDEATHSIG, SIGKILL)`: an analysis killed outright cannot
/// remove its copy (a customer's tokens left in $TMPDIR); the death signal follows the *thread*
/// that started the child, not the process; and an analysis started as the fleet died would need
/// a `getppid()` check to notice. A pipe has none of these faults: an analysis started after its
/// fleet died finds the pipe already closed and exits at once, and the watcher runs even when the
/// analysis itself is stuck in a loop. What no analysis is left to clean (the fleet killed between
/// two analyses) is in the fleet's working folder, a locked `PrivateFolder`: the next run in the
/// same $TMPDIR removes it.
public enum FleetLifeline {
    /// Set in an analysis's environment: the descriptor to watch.
    static let descriptorVariable = "BGEO_FLEET_LIFELINE"
    /// Set in an analysis's environment: its job folder, removed when the fleet is gone.
    static let folderVariable = "BGEO_FLEET_JOB_FOLDER"
    /// The lifeline's number in an analysis process.
    static let workerDescriptor: Int32 = 3
    /// How a job folder's name starts (inside the fleet's working folder).
    static let jobPrefix = "job-"

    /// The fleet's end of the pipe, open as long as the fleet runs.
    final class Holder: Sendable {
        /// The end each analysis gets (as `workerDescriptor`).
        let readEnd: Int32
        private let writeEnd: Int32

        init() throws(FleetError) {
            var ends: [Int32] = [-1, -1]
            guard pipe(&ends) == 0 else { throw FleetError("cannot create a pipe: \(String(cString: strerror(errno)))") }
            // Above 3, so that moving it to 3 in the child is a real dup2 (which clears close-on-exec);
            // both ends close-on-exec here, so no child inherits the write end.
            let read = fcntl(ends[0], F_DUPFD_CLOEXEC, 10)
            close(ends[0])
            _ = fcntl(ends[1], F_SETFD, FD_CLOEXEC)
            guard read >= 0 else {
                close(ends[1])
                throw FleetError("cannot create a pipe: \(String(cString: strerror(errno)))")
            }
            readEnd = read
            writeEnd = ends[1]
        }

        /// What an analysis's environment gets so that it watches the lifeline.
        func environment(jobFolder: String) -> [String: String] {
            [FleetLifeline.descriptorVariable: String(FleetLifeline.workerDescriptor), FleetLifeline.folderVariable: jobFolder]
        }

        deinit {
            close(readEnd)
            close(writeEnd)
        }
    }

    /// In an analysis process: when started by a fleet, watches the lifeline on a thread; when the
    /// fleet is gone, removes the job folder (and the fleet's folder if nothing else is left in
    /// it) and exits. Does nothing in a process the fleet did not start.
    public static func watchInWorker() {
        let environment = ProcessInfo.processInfo.environment
        guard let number = environment[descriptorVariable].flatMap(Int32.init), let folder = environment[folderVariable] else { return }
        // Only ever a fleet's job folder: never a folder a stray variable could name.
        let root = (folder as NSString).deletingLastPathComponent
        guard (folder as NSString).lastPathComponent.hasPrefix(jobPrefix),
              (root as NSString).lastPathComponent.hasPrefix(PrivateFolder.namePrefix) else { return }
        Thread.detachNewThread {
            var byte: UInt8 = 0
            while true {
                let n = read(number, &byte, 1)
                if n > 0 || (n < 0 && errno == EINTR) { continue }
                break  // end of file: the fleet's process is gone (an unreadable lifeline counts as cut)
            }
            removeAfterFleet(folder, root: root)
            _exit(1)
        }
    }

    /// Removes `folder` (again while this process's other threads put something back in it: once
    /// the folder itself is gone nothing can be created under it), then `root` when only its lock
    /// is left. Each analysis tries the root after its own folder, so the last one removes it.
    static func removeAfterFleet(_ folder: String, root: String) {
        for _ in 0..<100 where EvidenceFile.exists(folder) {
            try? FileManager.default.removeItem(atPath: folder)
        }
        // The fleet that held the root's lock is dead; the lock file is all that may be left.
        guard let names = RawPath.names(in: root), names.allSatisfy({ $0 == PrivateFolder.lockName }) else { return }
        _ = unlink(root + "/" + PrivateFolder.lockName)
        _ = rmdir(root)
    }
}
