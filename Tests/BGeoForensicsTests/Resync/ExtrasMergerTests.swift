import Foundation
import Testing
@testable import BGeoReader
@testable import BGeoForensics
@testable import BGeoResync
@testable import BGeoSimulation

/// Config extras merged into stored records as bytes must give exactly what parsing, merging and
/// writing the record gives (the general path), for every shape a record can have.
@Suite struct ExtrasMergerTests {
    static let extras: JSONObject = ["fleetId": "north-42", "shift": "night", "n": 3]

    func builder(_ extras: JSONObject = ExtrasMergerTests.extras) throws -> RequestBuilder {
        var config = SDKConfig()
        config.set(path: "extras", to: .object(extras))
        return RequestBuilder(settings: try ResyncSettings(config: config))
    }

    /// The byte path's output for one record, or nil when it defers to the general path.
    func merged(_ builder: RequestBuilder, _ text: String) -> String {
        var out: [UInt8] = []
        var copy = text
        copy.withUTF8 { builder.appendStoredRecord($0, to: &out) }
        return String(decoding: out, as: UTF8.self)
    }

    @Test(arguments: [
        #"{"uuid":"a","coords":{"latitude":1,"longitude":2}}"#,                           // none
        #"{"uuid":"a","extras":{"fleetId":"own","trip":7}}"#,                              // last, overlapping
        #"{"uuid":"a","extras":{"trip":7,"n":{"deep":[1,{"x":"}"}]}}}"#,                   // last, nested braces in strings
        #"{"uuid":"a","extras":null}"#,                                                      // null
        #"{"extras":{"shift":"day"},"uuid":"a","odometer":5.0}"#,                           // not last
        #"{"uuid":"a","extras":"free text"}"#,                                               // another type: untouched
        #"{"uuid":"a","extras":[1,2]}"#,
        #"{"uuid":"a","note":"extras","extras":{"a":1}}"#,                                   // the word as a value first
        #"{"uuid":"a","extras":{"extras":{"fleetId":"inner"}}}"#,                            // the key inside extras
        #"{"uuid":"say \"hi\"","extras":{"q":"a\\b"}}"#,                                     // escapes
        #"{"uuid":"a","extr\u0061s":{"fleetId":"escaped-key"}}"#,                            // an escaped key
        #"{"uuid":"a","extras":{"a":1},"extras":{"b":2}}"#,                                  // duplicate keys
        #"{"uuid":"a","extras":{"fleetId":"x","fleetId":"y"}}"#,
        #"{}"#,
        #"{"uuid":"łódź ✓","extras":{"miasto":"Łódź"}}"#,
    ])
    func bytesMatchTheGeneralPath(_ text: String) throws {
        let b = try builder()
        #expect(merged(b, text) == b.mergedByParsing(text), "\(text)")
    }

    /// Random records in random key order (compact, as the SDK stores them): identical bytes.
    @Test func randomRecordsMatchByteForByte() throws {
        let b = try builder()
        var rng = SplitMix64(seed: 10)
        let writer = JSONWriter()
        for _ in 0..<2_000 {
            var members: [(key: String, value: JSONValue)] = [
                ("uuid", .string("u-\(rng.next() % 1000)")), ("odometer", .double(Double(rng.next() % 10_000) / 4)),
                ("coords", ["latitude": 52.1, "longitude": 21.0, "speed": .int(Int64(rng.next() % 30))]),
                ("is_moving", rng.next() % 3 == 0 ? .null : .bool(true)),
            ]
            switch rng.next() % 5 {
            case 0: break
            case 1: members.append(("extras", .null))
            case 2: members.append(("extras", ["fleetId": "own", "trip": .int(Int64(rng.next() % 9))]))
            case 3: members.append(("extras", ["shift": .string("s\(rng.next() % 3)"), "n": ["nested": ["}", "]"]]]))
            default: members.append(("extras", .string("text")))
            }
            let shift = Int(rng.next() % UInt64(members.count))
            members = Array(members[shift...] + members[..<shift])
            let text = writer.string(.object(JSONObject(members)))
            #expect(merged(b, text) == b.mergedByParsing(text), "\(text)")
        }
    }

    /// A record written with whitespace keeps it; it means the same JSON as the general path's.
    @Test func spacedRecordsKeepTheirBytesAndMeanTheSame() throws {
        let b = try builder()
        for text in [#"{ "uuid" : "a" , "extras" : { "trip" : 7 } }"#, #"{ "uuid": "a" }"#, "{ }", #"{"extras" : null }"#] {
            let out = merged(b, text)
            #expect(try JSONParser.parse(out) == JSONParser.parse(b.mergedByParsing(text)), "\(text) → \(out)")
        }
        #expect(merged(b, #"{ "uuid": "a" }"#) == #"{ "uuid": "a" ,"extras":{"fleetId":"north-42","shift":"night","n":3}}"#)
    }

    /// The fast locator finds extras as the last member or nowhere, and defers everything else.
    @Test func locatorTakesOnlyTheShapesItIsSureOf() {
        func locate(_ text: String) -> String {
            var copy = text
            return copy.withUTF8 { bytes in
                switch ExtrasMerger.locateFast(bytes) {
                case .none?: return "none"
                case .object(let r)?: return "object \(r)"
                case .null(let r)?: return "null \(r)"
                case nil: return "scan"
                }
            }
        }
        #expect(locate(#"{"a":1}"#) == "none")
        #expect(locate(#"{"a":1,"extras":{"b":"}"}}"#) == "object 16..<25")
        #expect(locate(#"{"a":1,"extras":null}"#) == "null 16..<20")
        #expect(locate(#"{"extras":{},"a":1}"#) == "scan")
        #expect(locate(#"{"a":"extras","extras":{}}"#) == "scan")
        #expect(locate(#"{"a":"\"","extras":{}}"#) == "scan")
        #expect(locate(#"{"a":1,"extras":"x"}"#) == "scan")
    }
}
