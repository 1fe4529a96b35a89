import Foundation
import Testing
@testable import BGeoReader
@testable import BGeoForensics

/// `gpx --track replayed` replays the trace once: the document goes to a scratch file without its
/// metadata bounds while the pass gathers them, and the header is then spliced on
/// (`GPXExport.pass(track:to:scratch:)`). The file and the note must be the bytes and words of
/// the two-pass way (a counting replay for the bounds first, then the writing one), whatever the
/// track: rejected and adjusted fixes, geofence waypoints, no point on the track at all.
@Suite struct GPXOnePassTests {
    static let samples = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Samples").path

    /// The two-pass reference: the decisions counted (and the bounds found) before writing.
    static func twoPass(_ path: String, overrides: [String], to output: String) throws -> (bytes: Data, notes: [String]) {
        let dump = try Dump(path: path)
        let track = try ExportTrack.read(dump, mode: .replayed, overrides: overrides, redactor: dump.makeRedactor())
        #expect(track.boundsKnown)
        try export(dump).write(track: track, to: output)
        return (try Data(contentsOf: URL(fileURLWithPath: output)), track.notes)
    }

    static func export(_ dump: Dump) -> GPXExport {
        GPXExport(name: dump.displayName, description: "BGeo dump \(dump.displayName), replayed track", generatedAt: 1_784_880_000)
    }

    static func cases(in dir: TestDirectory) throws -> [(path: String, overrides: [String])] {
        let fixture = dir.file("fixture.db")
        try Fixtures.current(at: fixture)
        var cases: [(String, [String])] = [(fixture, []), (fixture, ["locationFilterMaxAccuracy=1"]), (fixture, ["locationFilterPolicy=Adjust"])]
        for name in try FileManager.default.contentsOfDirectory(atPath: samples).sorted() where name.hasSuffix(".db") {
            let path = (samples as NSString).appendingPathComponent(name)
            cases += [(path, []), (path, ["locationFilterMaxAccuracy=6"]), (path, ["locationFilterPolicy=Adjust"])]
        }
        return cases
    }

    @Test func onePassIsTheTwoPassFile() throws {
        let dir = TestDirectory("gpx-one-pass")
        var sawRejected = false, sawWaypoints = false, sawEmptyTrack = false, sawAdjusted = false
        for (n, c) in try Self.cases(in: dir).enumerated() {
            let reference = try Self.twoPass(c.path, overrides: c.overrides, to: dir.file("two-\(n).gpx"))
            let dump = try Dump(path: c.path)
            let result = try GPXFile.write(dump: dump, to: dir.file("one-\(n).gpx"), mode: .replayed, overrides: c.overrides,
                                           generatedAt: 1_784_880_000, redactor: dump.makeRedactor())
            let bytes = try Data(contentsOf: URL(fileURLWithPath: dir.file("one-\(n).gpx")))
            #expect(bytes == reference.bytes, "\(c.path) \(c.overrides)")
            #expect(result.notes == reference.notes, "\(c.path) \(c.overrides)")
            let text = String(decoding: bytes, as: UTF8.self)
            sawRejected = sawRejected || !(reference.notes.first?.hasSuffix(" 0 rejected") ?? true)
            sawAdjusted = sawAdjusted || !(reference.notes.first?.contains(" 0 adjusted") ?? true)
            sawWaypoints = sawWaypoints || text.contains("<wpt ")
            sawEmptyTrack = sawEmptyTrack || !text.contains("<trkpt ")
            // Without scratch files the writer visits the track once more for the bounds: the same file.
            let track = try ExportTrack.read(dump, mode: .replayed, overrides: c.overrides, learning: SecretsAndConfig(dump, showSecrets: false),
                                             countingFirst: false)
            #expect(!track.boundsKnown)
            _ = try Self.export(dump).pass(track: track, to: dir.file("fallback-\(n).gpx"), scratch: nil)
            #expect(try Data(contentsOf: URL(fileURLWithPath: dir.file("fallback-\(n).gpx"))) == reference.bytes, "\(c.path)")
        }
        #expect(sawRejected && sawAdjusted && sawWaypoints && sawEmptyTrack)
    }

    /// The scratch files live in the dump's private working folder and are gone once written.
    @Test func theScratchFilesAreRemoved() throws {
        let dir = TestDirectory("gpx-one-pass-scratch")
        let path = dir.file("fixture.db")
        try Fixtures.current(at: path)
        let dump = try Dump(path: path)
        _ = try GPXFile.write(dump: dump, to: dir.file("out.gpx"), mode: .replayed, generatedAt: nil, redactor: dump.makeRedactor())
        let folder = dump.workFiles.path
        let next = dump.workFiles.newFile("probe", extension: "tape")
        // The two scratch names were the last ones handed out before the probe.
        let number = Int(((next as NSString).lastPathComponent.dropFirst(5).split(separator: ".").first).map(String.init) ?? "") ?? 0
        #expect(number >= 2)
        for k in [number - 1, number - 2] {
            #expect(!FileManager.default.fileExists(atPath: folder + "/work-\(k).tape"), "work-\(k).tape")
        }
        #expect(FileManager.default.fileExists(atPath: dir.file("out.gpx")))
    }

    /// The splice finds each document's own metadata end, whatever the dump's name holds.
    @Test func aNameThatLooksLikeMarkupIsNotTheMetadataEnd() throws {
        let dir = TestDirectory("gpx-one-pass-name")
        let path = dir.file("x<metadata>&<trk>.db")
        try Fixtures.current(at: path)
        let reference = try Self.twoPass(path, overrides: [], to: dir.file("two.gpx"))
        let dump = try Dump(path: path)
        _ = try GPXFile.write(dump: dump, to: dir.file("one.gpx"), mode: .replayed, generatedAt: 1_784_880_000,
                              redactor: dump.makeRedactor())
        #expect(try Data(contentsOf: URL(fileURLWithPath: dir.file("one.gpx"))) == reference.bytes)
    }
}
