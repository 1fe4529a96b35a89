import Foundation

/// Buffered writing to a file descriptor: print() per line is far too slow for million-row exports.
/// Used from one thread at a time (the CLI is sequential), hence unchecked Sendable.
///
/// This is the one place text leaves the tool, so it is where customer text is made safe to
/// show (see `TerminalText`), whatever a renderer forgot: `write`/`line` are for text views —
/// controls shown as `\u{…}` (line feeds kept), the tool's own colour codes kept on a terminal;
/// `writeData`/`dataLine` are for CSV — controls shown except tab/CR/LF; `writeJSON`/`jsonLine`
/// take `JSONWriter` output, which never holds a raw control. Only `clearLine` sends a control
/// sequence of the tool's own. Nothing is shortened here: renderers shorten fields
/// (`TerminalText.field`, `.prose`), since only they know where a field ends.
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

    /// Writes text for a human view.
    public func write(_ text: String) {
        if TerminalText.needsEscaping(text, keepingNewlines: true) {
            append(TerminalText.forTextView(text, colour: isTerminal, keepingNewlines: true, longestRun: .max))
        } else {
            append(text)
        }
    }

    public func line(_ text: String = "") {
        write(text)
        newline()
    }

    /// Writes a machine format (CSV, JSON, NDJSON): exact apart from controls, never shortened.
    public func writeData(_ text: String) {
        if TerminalText.needsEscaping(text, keepingNewlines: true) {
            append(TerminalText.forDataView(text))
        } else {
            append(text)
        }
    }

    public func dataLine(_ text: String) {
        writeData(text)
        newline()
    }

    /// Writes JSON made by `JSONWriter`, which escapes every control itself: passed as it is
    /// (a million-row export is not scanned twice).
    public func writeJSON(_ text: String) {
        append(text)
    }

    public func jsonLine(_ text: String) {
        append(text)
        newline()
    }

    /// Returns to the start of the line and erases it (progress lines redrawn in place).
    public func clearLine() {
        append("\r\u{1B}[2K")
    }

    private func append(_ text: String) {
        buffer.append(contentsOf: text.utf8)
        if buffer.count >= capacity { flush() }
    }

    private func newline() {
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
