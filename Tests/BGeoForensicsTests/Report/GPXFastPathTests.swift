import Foundation
import Testing
@testable import BGeoReader
@testable import BGeoForensics
@testable import BGeoSimulation

/// The one-line track-point writer and the byte-appending formatters are shortcuts of the
/// libxml2 / String paths: each is compared byte for byte with its reference on random and
/// edge-case input, so a change in either shows here.
@Suite struct GPXFastPathTests {
    static let directory = TestDirectory("gpx-fast-path")

    /// Strings a point may carry: plain ones (the fast path) and ones needing escaping or
    /// sanitising (the libxml2 path), so both meet in one file.
    static let texts: [String?] = [nil, "", "3c365801-5930-4855-915f-a2cbeaa71ff3", "accepted", "teleport", "a b",
                                   "<script>", "x&y", "say \"hi\"", "it's", "tab\there", "line\nbreak", "esc\u{1B}",
                                   "bidi\u{202E}", "zero\u{0}", "€uro", "\u{FFFE}"]

    static func randomPoint(_ r: inout SplitMix64) -> GPXWriter.Point {
        let coordinates: [Double] = [0, -0.0, 90, -90, 91, 180, -180, 179.99999994, 179.99999996, 179.9999999, -179.99999996,
                                     .nan, .infinity, 1e-9, 52.2297263, 21.0121615]
        func coordinate(_ span: Double) -> Double { r.next() % 4 == 0 ? r.pick(coordinates) : (r.unit() * 2 - 1) * span }
        func optionalNumber() -> Double? {
            switch r.next() % 6 {
            case 0: return nil
            case 1: return r.pick([0, -0.0, .nan, -.infinity, 1e300, -1e-300, 9e17, 0.005, 0.015, 123.456])
            default: return (r.unit() * 2 - 1) * r.pick([1, 100, 10_000, 1e7])
            }
        }
        let times: [Double?] = [nil, 0, -1, 1_785_100_000.1234, 253_402_300_799.999, 253_402_300_800, -62_167_219_201, .nan, 1e16]
        let time = r.next() % 3 == 0 ? r.pick(times) : 1_785_000_000 + r.unit() * 1e7
        let extensions = GPXWriter.Extensions(accuracy: optionalNumber(), speed: optionalNumber(), heading: optionalNumber(),
                                              uuid: r.pick(texts), action: r.next() % 5 == 0 ? r.pick(texts) : nil,
                                              decision: r.pick(texts), reason: r.pick(texts))
        return GPXWriter.Point(latitude: coordinate(90), longitude: coordinate(180), time: time, elevation: optionalNumber(),
                               extensions: extensions)
    }

    static func write(_ points: [GPXWriter.Point], plainLines: Bool) throws -> Data {
        let path = directory.file("points-\(plainLines)-\(UUID().uuidString).gpx")
        // libxml2 hands its last buffer to the file when the writer is freed: read after that.
        do {
            let writer = try GPXWriter(path: path, plainLines: plainLines)
            writer.begin(creator: "test", name: "n", description: nil, time: 0, bounds: nil)
            writer.beginTrack(name: "t", description: nil, type: "raw")
            for (i, point) in points.enumerated() {
                if i % 97 == 0 { writer.beginSegment() }
                writer.trackPoint(point)
            }
            try writer.finish()
        }
        return try Data(contentsOf: URL(fileURLWithPath: path))
    }

    @Test func oneLinePointsAreTheBytesLibxml2Writes() throws {
        var r = SplitMix64(seed: 20261201)
        let points = (0..<3000).map { _ in GPXFastPathTests.randomPoint(&r) }
        let fast = try GPXFastPathTests.write(points, plainLines: true)
        let reference = try GPXFastPathTests.write(points, plainLines: false)
        #expect(fast.count > 900_000)
        #expect(String(decoding: fast.suffix(8), as: UTF8.self) == "</gpx>\n" || String(decoding: fast.suffix(7), as: UTF8.self) == "</gpx>\n")
        #expect(fast == reference)
    }

    /// `isPlain` reads eight bytes at a time: every ASCII byte, and a multi-byte character, at
    /// every place of a word and of the tail, gives the byte-by-byte rule's answer.
    @Test func plainCheckIsTheByteByByteRule() {
        func byteByByte(_ text: String) -> Bool {
            text.utf8.allSatisfy { $0 >= 0x20 && $0 < 0x7F && !"&<>\"'".utf8.contains($0) }
        }
        var mismatches: [String] = []
        for length in 1...20 {
            for place in 0..<length {
                let inserts = (0...0x7F).map { [UInt8($0)] } + [Array("é".utf8), Array("\u{202E}".utf8)]
                for insert in inserts {
                    var bytes = [UInt8](repeating: UInt8(ascii: "a"), count: length)
                    bytes.replaceSubrange(place...place, with: insert)
                    let text = String(decoding: bytes, as: UTF8.self)
                    if GPXWriter.isPlain(text) != byteByByte(text) { mismatches.append(text.debugDescription) }
                }
            }
        }
        #expect(mismatches.isEmpty)
        #expect(GPXWriter.isPlain("3c365801-5930-4855-915f-a2cbeaa71ff3"))
        #expect(!GPXWriter.isPlain("3c365801-5930-4855-915f-a2cbeaa71ff\u{7F}"))
        #expect(GPXWriter.isPlain(nil) && GPXWriter.isPlain(""))
    }

    /// A point without a child element (no time, elevation or extension) is `<trkpt …/>` in
    /// libxml2's hands: the fast path must leave it to libxml2.
    @Test func childlessPointKeepsLibxml2Form() throws {
        let bare = GPXWriter.Point(latitude: 1, longitude: 2)
        let fast = try GPXFastPathTests.write([bare, bare], plainLines: true)
        #expect(fast == (try GPXFastPathTests.write([bare, bare], plainLines: false)))
        #expect(String(decoding: fast, as: UTF8.self).contains("<trkpt lat=\"1\" lon=\"2\"/>"))
    }

    @Test func appendedDecimalsAreFormatsBytes() {
        var r = SplitMix64(seed: 7)
        let specials: [Double] = [0, -0.0, .nan, .infinity, -.infinity, 9e17, -9e17, 8.9999e17, 1e-12, 0.5, -0.5, 0.05, 2.675,
                                  179.99999995, -179.99999995, .greatestFiniteMagnitude, .leastNonzeroMagnitude]
        for i in 0..<20_000 {
            let value = i < specials.count * 10 ? specials[i % specials.count]
                : (r.unit() * 2 - 1) * pow(10, Double(Int(r.next() % 40)) - 20)
            let places = Int(r.next() % 12) - 1
            var bytes: [UInt8] = [0x41]
            DecimalText.append(value, places: places, to: &bytes)
            #expect(String(decoding: bytes.dropFirst(), as: UTF8.self) == DecimalText.format(value, places: places),
                    "value \(value) places \(places)")
        }
    }

    @Test func appendedTimesAreFormatsBytes() {
        var r = SplitMix64(seed: 11)
        let specials: [Double] = [0, -0.0005, -1, 951_782_400, 253_402_300_799.999, 253_402_300_800, -62_167_219_200,
                                  -62_167_219_200.001, .nan, .infinity, 1e16, -1e308, 1_785_100_000.9995]
        for i in 0..<20_000 {
            let value = i < specials.count ? specials[i] : (r.unit() * 2 - 1) * 3e11
            var bytes: [UInt8] = []
            Timestamp.append(value, to: &bytes)
            #expect(String(decoding: bytes, as: UTF8.self) == Timestamp.format(value), "time \(value)")
        }
    }
}

extension SplitMix64 {
    mutating func pick<T>(_ values: [T]) -> T { values[Int(next() % UInt64(values.count))] }
}
