import BGeoReader
import Foundation

/// A file (or standard output, "-") written through a 256 KiB buffer. The first failed write
/// (disk full, closed pipe) is remembered and stops further writing, so a million-point export
/// checks once, at `finish`, instead of at every write.
final class BufferedFileWriter {
    private let fd: Int32
    private let path: String
    private var buffer: [UInt8] = []
    private let capacity = 1 << 18
    private var failure: Int32?
    /// Bytes handed to the writer so far (all of them reach the file once `finish` succeeds).
    private(set) var bytesWritten = 0

    init(path: String) throws(OutputWriteError) {
        self.path = path
        if path == "-" {
            fd = STDOUT_FILENO
        } else {
            fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
            guard fd >= 0 else { throw OutputWriteError(code: errno) }
        }
        buffer.reserveCapacity(capacity)
    }

    deinit {
        if fd != STDOUT_FILENO { close(fd) }
    }

    func write(_ text: String) {
        bytesWritten += text.utf8.count
        buffer.append(contentsOf: text.utf8)
        if buffer.count >= capacity { flush() }
    }

    func write(_ bytes: [UInt8]) {
        bytesWritten += bytes.count
        buffer.append(contentsOf: bytes)
        if buffer.count >= capacity { flush() }
    }

    private func flush() {
        defer { buffer.removeAll(keepingCapacity: true) }
        guard failure == nil, !buffer.isEmpty else { return }
        if let error = buffer.withUnsafeBytes({ FileDescriptorWrite.all(fd, $0) }) { failure = error }
    }

    /// Writes what is buffered; throws if any write failed.
    func finish() throws(OutputWriteError) {
        flush()
        if let failure { throw OutputWriteError(code: failure) }
    }
}
