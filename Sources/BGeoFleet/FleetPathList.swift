import BGeoForensics
import Foundation

/// The paths `fleet --paths-from FILE` (or `-`, standard input) names: one per line, or one per
/// NUL-terminated entry with `--null` (`find -print0`), the only separator no file name can hold
/// — a name may hold a newline. Each entry is taken as the bytes it is (`RawPath`: UTF-8 or not),
/// nothing trimmed (a name may end with a space or a carriage return); an empty entry is skipped
/// (a blank line, the list's last separator).
public enum FleetPathList {
    public static func read(_ source: String, nullSeparated: Bool) throws(UsageError) -> [String] {
        let bytes = try contents(of: source)
        let separator: UInt8 = nullSeparated ? 0 : 10
        return bytes.split(separator: separator, omittingEmptySubsequences: true).map { RawPath.decode($0) }
    }

    /// Every byte of the list (`-`: standard input, to its end).
    static func contents(of source: String) throws(UsageError) -> [UInt8] {
        let fd = source == "-" ? STDIN_FILENO : RawPath.open(source, O_RDONLY | O_CLOEXEC)
        let shown = source == "-" ? "standard input" : "'\(RawPath.shown(source))'"
        guard fd >= 0 else { throw UsageError(message: "cannot read the path list \(shown): \(String(cString: strerror(errno)))") }
        defer { if fd != STDIN_FILENO { close(fd) } }
        var out: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if n < 0, errno == EINTR { continue }
            guard n >= 0 else { throw UsageError(message: "cannot read the path list \(shown): \(String(cString: strerror(errno)))") }
            if n == 0 { return out }
            out.append(contentsOf: chunk[0..<n])
        }
    }
}
