import Foundation

/// A file path as the kernel holds it — any bytes but NUL, UTF-8 or not — carried in an ordinary
/// `String` without losing a byte. Swift decodes argv (`CommandLine.arguments`), `FileManager`
/// listings and `String(decoding:as:)` lossily: each byte that is not UTF-8 becomes U+FFFD, so a
/// dump named with the bytes 0xFF 0xFE got no row from a folder walk and "no such file" from
/// `inspect`. Here each such byte stands for itself as one private-use scalar, U+10FD80 … U+10FDFF
/// for 0x80 … 0xFF (the bytes of a real U+10FD80 … U+10FDFF in a name are carried the same way, so
/// every byte string has one form and comes back exactly). Paths built by concatenation
/// (`path + "-wal"`, `folder + "/" + name`) stay right.
///
/// The kernel is only ever given a path through `withCString` (the one place that turns the
/// string back into bytes), directly or through `stat`, `lstat`, `open`, `opendir`; text outputs
/// show each such byte as `\x{ff}` (`TerminalText`, `JSONWriter`), the way they show a control
/// as `\u{1b}`. A text from a dump holding one of these 128 private-use scalars is shown the same
/// way: no device writes them, and showing is all that happens to it.
public enum RawPath {
    /// The scalar standing for `byte` (0x80…0xFF) is `base + byte`.
    static let base: UInt32 = 0x10FD00
    /// The scalars that stand for raw bytes.
    public static let byteScalars: ClosedRange<UInt32> = (base + 0x80)...(base + 0xFF)

    /// The byte `value` stands for, or nil when it is an ordinary scalar.
    public static func byte(standingFor value: UInt32) -> UInt8? {
        byteScalars.contains(value) ? UInt8(value - base) : nil
    }

    /// `bytes` (a path as the kernel gave it) as a string: valid UTF-8 kept as it is, every other
    /// byte carried as its scalar.
    public static func decode<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> String {
        if bytes.allSatisfy({ $0 < 0x80 }) { return String(decoding: bytes, as: UTF8.self) }
        var out = String.UnicodeScalarView()
        func carry(_ byte: UInt8) { out.append(Unicode.Scalar(base + UInt32(byte))!) }
        var parser = Unicode.UTF8.ForwardParser()
        var iterator = bytes.makeIterator()
        var remaining = bytes[...]
        while true {
            switch parser.parseScalar(from: &iterator) {
            case .emptyInput:
                return String(out)
            case .valid(let encoded):
                let scalar = Unicode.UTF8.decode(encoded)
                if byteScalars.contains(scalar.value) { encoded.forEach(carry) } else { out.append(scalar) }
                remaining = remaining.dropFirst(encoded.count)
            case .error(let length):
                remaining.prefix(length).forEach(carry)
                remaining = remaining.dropFirst(length)
            }
        }
    }

    /// The bytes `path` stands for (the inverse of `decode`).
    public static func bytes(_ path: String) -> [UInt8] {
        guard carriesBytes(path) else { return Array(path.utf8) }
        var out: [UInt8] = []
        out.reserveCapacity(path.utf8.count)
        for scalar in path.unicodeScalars {
            if let byte = byte(standingFor: scalar.value) { out.append(byte) } else { out.append(contentsOf: String(scalar).utf8) }
        }
        return out
    }

    /// True when `path` holds a scalar standing for a raw byte (all of them start F4 8F B6/B7 in UTF-8).
    public static func carriesBytes(_ path: String) -> Bool {
        path.utf8.contains(0xF4) && path.unicodeScalars.contains { byteScalars.contains($0.value) }
    }

    /// Runs `body` with the NUL-terminated bytes of `path`: what every file API here is given.
    public static func withCString<R>(_ path: String, _ body: (UnsafePointer<CChar>) throws -> R) rethrows -> R {
        guard carriesBytes(path) else { return try path.withCString(body) }
        let bytes = self.bytes(path).map { CChar(bitPattern: $0) } + [0]
        return try bytes.withUnsafeBufferPointer { try body($0.baseAddress!) }
    }

    /// A copy of `path`'s bytes from `strdup` (for an argv; the caller frees it).
    static func duplicate(_ path: String) -> UnsafeMutablePointer<CChar>? {
        withCString(path) { strdup($0) }
    }

    /// `stat(2)` on the bytes of `path`.
    public static func stat(_ path: String, _ info: inout Foundation.stat) -> Int32 {
        withCString(path) { systemStat($0, &info) }
    }

    /// `lstat(2)` on the bytes of `path`.
    public static func lstat(_ path: String, _ info: inout Foundation.stat) -> Int32 {
        withCString(path) { systemLstat($0, &info) }
    }

    /// `open(2)` on the bytes of `path`.
    public static func open(_ path: String, _ flags: Int32, _ mode: mode_t = 0) -> Int32 {
        withCString(path) { systemOpen($0, flags, mode) }
    }

    /// The names in `folder` (without `.` and `..`), each decoded losslessly (`FileManager` drops
    /// or mangles a name that is not UTF-8); nil when it cannot be listed.
    public static func names(in folder: String) -> [String]? {
        guard let stream = withCString(folder, { opendir($0) }) else { return nil }
        defer { closedir(stream) }
        var names: [String] = []
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: &entry.pointee.d_name) { raw in
                decode(raw.prefix { $0 != 0 })
            }
            if name != ".", name != ".." { names.append(name) }
        }
        return names
    }

    /// The program's arguments as the kernel passed them (`CommandLine.arguments` replaces the
    /// bytes of a name that is not UTF-8, so such a dump could not be named).
    public static func commandLine() -> [String] {
        (0..<Int(CommandLine.argc)).map { index in
            guard let argument = CommandLine.unsafeArgv[index] else { return "" }
            return decode(UnsafeBufferPointer(start: UnsafeRawPointer(argument).assumingMemoryBound(to: UInt8.self),
                                              count: strlen(argument)))
        }
    }

    /// `path` for a reader: each carried byte as `\x{ff}`, everything else as it is (the other
    /// escapes are the output's business, see `TerminalText`).
    public static func shown(_ path: String) -> String {
        guard carriesBytes(path) else { return path }
        var out = ""
        for scalar in path.unicodeScalars {
            if let byte = byte(standingFor: scalar.value) { out += visible(byte) } else { out.unicodeScalars.append(scalar) }
        }
        return out
    }

    /// The shown form of one carried byte: `\x{ff}`.
    public static func visible(_ byte: UInt8) -> String {
        "\\x{" + (byte < 0x10 ? "0" : "") + String(byte, radix: 16) + "}"
    }
}

// The C calls under the names `RawPath`'s own methods shadow inside it.
private func systemStat(_ path: UnsafePointer<CChar>, _ info: inout stat) -> Int32 { stat(path, &info) }
private func systemLstat(_ path: UnsafePointer<CChar>, _ info: inout stat) -> Int32 { lstat(path, &info) }
private func systemOpen(_ path: UnsafePointer<CChar>, _ flags: Int32, _ mode: mode_t) -> Int32 { open(path, flags, mode) }
