import BGeoForensics
import Foundation
import Testing

/// Every sample's replay, timeline, export and GPX output is byte for byte what it was before the
/// trace was streamed (issue 12): `Fixtures/sample-output-checksums.txt` holds the SHA-256 of each
/// command's standard output, recorded with the in-memory trace at 08ff112. A changed byte in any of
/// them fails here with the command that changed.
@Suite struct SampleOutputChecksumTests {
    /// One recorded output: the sample, the command's words (the dump goes after the first), its SHA-256.
    struct Recorded: Sendable, CustomStringConvertible {
        let sample: String
        let words: [String]
        let sha256: String
        var description: String { "\(words.first ?? "") \(sample) \(words.dropFirst().joined(separator: " "))" }
    }

    static let fixture = ReportE2E.packageRoot + "/Tests/EndToEndTests/Fixtures/sample-output-checksums.txt"

    static var recorded: [Recorded] {
        let text = (try? String(contentsOfFile: fixture, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap { line in
            guard !line.hasPrefix("#") else { return nil }
            let parts = line.components(separatedBy: "  ")
            guard parts.count == 3 else { return nil }
            return Recorded(sample: parts[1], words: parts[2].split(separator: " ").map(String.init), sha256: parts[0])
        }
    }

    static var samples: [String] { Array(Set(recorded.map(\.sample))).sorted() }

    @Test func theFixtureCoversEverySampleAndCommand() throws {
        let recorded = SampleOutputChecksumTests.recorded
        #expect(recorded.count >= 100, "only \(recorded.count) recorded outputs in \(SampleOutputChecksumTests.fixture)")
        let onDisk = try FileManager.default.contentsOfDirectory(atPath: ReportE2E.packageRoot + "/Samples")
            .filter { $0.hasSuffix(".db") }.map { String($0.dropLast(3)) }.sorted()
        #expect(SampleOutputChecksumTests.samples == onDisk)
        for command in ["replay", "timeline", "export", "gpx"] {
            #expect(recorded.contains { $0.words.first == command }, "no \(command) output recorded")
        }
    }

    @Test(arguments: SampleOutputChecksumTests.samples)
    func outputsAreByteIdentical(sample: String) throws {
        for entry in SampleOutputChecksumTests.recorded where entry.sample == sample {
            let arguments = [entry.words[0], "Samples/\(sample).db"] + entry.words.dropFirst()
            let result = try ToolRunner.run(arguments, currentDirectory: ReportE2E.packageRoot)
            #expect(result.exitCode == 0, "\(entry): \(result.stderr)")
            let digest = SHA256Hasher.hex(of: result.stdout)
            #expect(digest == entry.sha256, "\(entry): output changed (\(result.stdout.utf8.count) bytes)")
        }
    }
}
