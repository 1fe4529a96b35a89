import BGeoReader
import Foundation
import Synchronization

/// Buffered writing to a file descriptor: print() per line is far too slow for million-row exports.
/// The buffer lives in a `Mutex` (uncontended: the CLI writes from one thread; fleet's progress
/// from several), so lines from two threads never interleave within a write and Swift checks it.
///
/// This is the one place text leaves the tool, so it is where customer text is made safe to
/// show (see `TerminalText`), whatever a renderer forgot: `write`/`line` are for text views —
/// controls shown as `\u{…}` (line feeds kept), the tool's own colour codes kept on a terminal;
/// `writeData`/`dataLine` are for CSV — controls shown except tab/CR/LF; `writeJSON`/`jsonLine`
/// take `JSONWriter` output, which never holds a raw control. Only `clearLine` sends a control
/// sequence of the tool's own. Nothing is shortened here: renderers shorten fields
/// (`TerminalText.field`, `.prose`), since only they know where a field ends.
public final class TextOutput: Sendable {
    private let fd: Int32
    private struct Pending {
        var buffer: [UInt8] = []
        var usesColour: Bool
    }
    private let pending: Mutex<Pending>
    private static let capacity = 1 << 16
    /// True when the descriptor is a terminal (progress bars, aligned tables).
    public let isTerminal: Bool
    /// Whether the tool's own colour codes are written: on a terminal unless `NO_COLOR` is set (to
    /// any value, as no-color.org asks) or `TERM` is `dumb`; `--color` overrides (`useColour`).
    public var usesColour: Bool { pending.withLock { $0.usesColour } }

    public init(fd: Int32) {
        self.fd = fd
        isTerminal = isatty(fd) == 1
        let environment = ProcessInfo.processInfo.environment
        var start = Pending(usesColour: isTerminal && environment["NO_COLOR"] == nil && environment["TERM"] != "dumb")
        start.buffer.reserveCapacity(TextOutput.capacity)
        pending = Mutex(start)
    }

    /// The width help text is wrapped to: `COLUMNS` on a terminal when the shell exports it
    /// (between 40 and 200), else 80. (ioctl's TIOCGWINSZ is a variadic C call Swift cannot make.)
    public var helpWidth: Int {
        guard isTerminal, let text = ProcessInfo.processInfo.environment["COLUMNS"], let columns = Int(text) else { return 80 }
        return min(200, max(40, columns))
    }

    /// `--color WHEN`: `always`, `never`, or `auto` (the default described at `usesColour`).
    public func useColour(_ choice: ColourChoice) {
        switch choice {
        case .always: pending.withLock { $0.usesColour = true }
        case .never: pending.withLock { $0.usesColour = false }
        case .auto: break
        }
    }

    public static let standardOutput = TextOutput(fd: 1)
    public static let standardError = TextOutput(fd: 2)

    /// Writes text for a human view.
    public func write(_ text: String) {
        if TerminalText.needsEscaping(text, keepingNewlines: true) {
            append(TerminalText.forTextView(text, colour: usesColour, keepingNewlines: true, longestRun: .max))
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

    /// `dataLine(fields.map(\.written).joined(separator:))` without making the line or a quoted
    /// copy of a cell (a row's cells, one of them maybe 60 MB): controls are shown field by field,
    /// as `forDataView` shows them scalar by scalar; it never makes a quote, so quoting the shown
    /// text is showing the quoted one.
    public func dataLine(fields: [CSVField], separator: UInt8) {
        pending.withLock { pending in
            for (index, field) in fields.enumerated() {
                if index > 0 { pending.buffer.append(separator) }
                var shown = TerminalText.needsEscaping(field.text, keepingNewlines: true) ? TerminalText.forDataView(field.text) : field.text
                guard field.isQuoted else {
                    if field.guardsFormula { pending.buffer.append(UInt8(ascii: "'")) }
                    TextOutput.append(shown, to: &pending.buffer, fd: fd)
                    continue
                }
                let quote = UInt8(ascii: "\"")
                pending.buffer.append(quote)
                if field.guardsFormula { pending.buffer.append(UInt8(ascii: "'")) }  // inside the quotes, as part of the text
                shown.withUTF8 { bytes in
                    var start = 0
                    while let at = ByteSearch.firstIndex(of: quote, in: bytes, from: start) {
                        TextOutput.append(UnsafeBufferPointer(rebasing: bytes[start...at]), to: &pending.buffer, fd: fd)
                        pending.buffer.append(quote)
                        start = at + 1
                    }
                    TextOutput.append(UnsafeBufferPointer(rebasing: bytes[start...]), to: &pending.buffer, fd: fd)
                }
                pending.buffer.append(quote)
            }
            pending.buffer.append(10)
            if pending.buffer.count >= TextOutput.capacity { TextOutput.drain(&pending.buffer, to: fd) }
        }
    }

    private func append(_ text: String) {
        pending.withLock { TextOutput.append(text, to: &$0.buffer, fd: fd) }
    }

    private static func append(_ text: String, to buffer: inout [UInt8], fd: Int32) {
        var text = text
        text.withUTF8 { append($0, to: &buffer, fd: fd) }
    }

    private static func append(_ bytes: UnsafeBufferPointer<UInt8>, to buffer: inout [UInt8], fd: Int32) {
        // Bytes more than the buffer holds (a 60 MB row) are written from where they are after
        // what waits, not copied into a buffer grown to hold them.
        guard bytes.count < TextOutput.capacity else {
            drain(&buffer, to: fd)
            write(bytes, to: fd)
            return
        }
        buffer.append(contentsOf: bytes)
        if buffer.count >= TextOutput.capacity { drain(&buffer, to: fd) }
    }

    /// `writeJSON` for JSON that `write` appends as bytes straight into the output buffer: a
    /// listing writes a row from its cells without making a String of it. What `write` appends
    /// must be `JSONWriter`'s form (no raw control).
    public func writeJSONBytes(_ write: (inout [UInt8]) -> Void) {
        pending.withLock { pending in
            write(&pending.buffer)
            if pending.buffer.count >= TextOutput.capacity { TextOutput.drain(&pending.buffer, to: fd) }
        }
    }

    private func newline() {
        pending.withLock { pending in
            pending.buffer.append(10)
            if pending.buffer.count >= TextOutput.capacity { TextOutput.drain(&pending.buffer, to: fd) }
        }
    }

    public func flush() {
        pending.withLock { TextOutput.drain(&$0.buffer, to: fd) }
    }

    private static func drain(_ buffer: inout [UInt8], to fd: Int32) {
        guard !buffer.isEmpty else { return }
        buffer.withUnsafeBufferPointer { write($0, to: fd) }
        buffer.removeAll(keepingCapacity: true)
    }

    private static func write(_ bytes: UnsafeBufferPointer<UInt8>, to fd: Int32) {
        guard let base = bytes.baseAddress else { return }
        var offset = 0
        while offset < bytes.count {
            let n = Foundation.write(fd, base + offset, bytes.count - offset)
            if n < 0 {
                if errno == EINTR { continue }
                return  // reader went away (e.g. `| head`): drop the rest quietly
            }
            offset += n
        }
    }

    deinit { flush() }
}

/// `--color never|auto|always`, accepted by every command.
public enum ColourChoice: String, Sendable, CaseIterable {
    case never, auto, always
}
