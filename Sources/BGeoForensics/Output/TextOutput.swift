import Foundation

/// Buffered writing to a file descriptor: print() per line is far too slow for million-row exports.
/// Used from one thread at a time (the CLI is sequential), hence unchecked Sendable.
public final class TextOutput: @unchecked Sendable {
    private let fd: Int32
    private var buffer: [UInt8] = []
    private let capacity = 1 << 16
    /// True when the descriptor is a terminal (colour, progress bars, aligned tables).
    public let isTerminal: Bool

    public init(fd: Int32) {
        self.fd = fd
        isTerminal = isatty(fd) == 1
        buffer.reserveCapacity(capacity)
    }

    public static let standardOutput = TextOutput(fd: 1)
    public static let standardError = TextOutput(fd: 2)

    public func write(_ text: String) {
        buffer.append(contentsOf: text.utf8)
        if buffer.count >= capacity { flush() }
    }

    public func line(_ text: String = "") {
        write(text)
        buffer.append(10)
        if buffer.count >= capacity { flush() }
    }

    public func flush() {
        guard !buffer.isEmpty else { return }
        buffer.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let n = Foundation.write(fd, raw.baseAddress! + offset, raw.count - offset)
                if n < 0 {
                    if errno == EINTR { continue }
                    return  // reader went away (e.g. `| head`): drop the rest quietly
                }
                offset += n
            }
        }
        buffer.removeAll(keepingCapacity: true)
    }

    deinit { flush() }
}
