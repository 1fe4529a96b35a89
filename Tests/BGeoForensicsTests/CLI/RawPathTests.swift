import Foundation
import Testing
@testable import BGeoReader
@testable import BGeoForensics

/// A path's bytes survive the trip through `String` whatever they are, and every output shows a
/// byte that is not UTF-8 the same way.
@Suite struct RawPathTests {
    @Test func everyByteStringComesBackExactly() {
        let samples: [[UInt8]] = [
            Array("plain/ascii.db".utf8), Array("zażółć/日本.db".utf8), [0xFF, 0xFE], [0x61, 0xC3], [0xE2, 0x82], [0xED, 0xA0, 0x80],
            [0xC0, 0xAF], [0xF4, 0x90, 0x80, 0x80], Array("\u{10FD80}\u{10FDFF}".utf8), [0xF4, 0x8F, 0xB6], [0x80, 0x2F, 0xBF],
        ]
        var generator = SystemRandomNumberGenerator()
        let random = (0..<500).map { _ in (0..<Int.random(in: 0...12, using: &generator)).map { _ in UInt8.random(in: 1...255, using: &generator) } }
        for bytes in samples + random {
            #expect(RawPath.bytes(RawPath.decode(bytes)) == bytes, "\(bytes)")
        }
        // Valid UTF-8 is the string it always was.
        #expect(RawPath.decode(Array("zażółć/日本.db".utf8)) == "zażółć/日本.db")
        #expect(!RawPath.carriesBytes("zażółć/日本.db") && RawPath.carriesBytes(RawPath.decode([0xFF])))
    }

    @Test func textAndJSONShowEachByteAsHex() {
        let path = RawPath.decode(Array("d/a".utf8) + [0xFF, 0x80] + Array(".db".utf8))
        #expect(RawPath.shown(path) == "d/a\\x{ff}\\x{80}.db")
        #expect(TerminalText.escaped(path + "\u{1B}") == "d/a\\x{ff}\\x{80}.db\\u{1b}")
        #expect(JSONWriter().string(.string(path + "\u{1B}")) == "\"d/a\\\\x{ff}\\\\x{80}.db\\u001b\"")
        #expect(TerminalText.needsEscaping(path, keepingNewlines: true))
    }

    @Test func theKernelGetsTheBytes() throws {
        let folder = TestDirectory("raw-path")
        let path = RawPath.decode(Array(folder.path.utf8) + [0x2F, 0xFF, 0xFE])
        let fd = RawPath.open(path, O_WRONLY | O_CREAT | O_EXCL, 0o600)
        try #require(fd >= 0)
        close(fd)
        #expect(RawPath.names(in: folder.path) == [RawPath.decode([0xFF, 0xFE])])
        var info = stat()
        #expect(RawPath.stat(path, &info) == 0 && RawPath.lstat(path, &info) == 0)
        #expect(!FileManager.default.fileExists(atPath: path))  // what Foundation would have done
    }
}
