import Foundation
import Testing
@testable import BGeoReader
@testable import BGeoForensics
@testable import BGeoSimulation

/// Listings copy a stored record through when `VerbatimJSON` and `Redactor.leavesUnchanged` say
/// the tree path (parse, redact, write) would give back its bytes. The tree path stays the
/// definition: on random JSON built from canonical and non-canonical pieces, every text the
/// checks accept must come out of the tree path unchanged — and the common record must be accepted,
/// or the fast path would silently never run.
@Suite struct VerbatimJSONTests {
    static let numbers = ["0", "7", "-3", "42", "123456789012345678", "1234567890123456789", "-0", "0.0", "-0.0", "1.0",
                          "100.0", "8.4", "52.2438479", "-21.0122", "0.0001", "0.00011", "0.00009", "0.1", "1.10", "1.5e3",
                          "1E5", "0.30000000000000004", "123456789012345.0", "1234567890123456.0", "12345678901234567.0",
                          "1.234567890123456", "99999999999999.9", "0.000100", "007", "5e-324"]
    static let strings = ["", "a", "uuid", "in_vehicle", "north-42", "<script>alert(1)</script>", "a b", "é", "x\\\"y",
                          "tab\\t", "\\u0041", "50%", "user@example.com", "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2ln",
                          "Bearer abc", "token=abc", "sk_live_4eC39HqLyjWDarjtT1zdp7dc",
                          // Outside ASCII: written as they are, escaped (bidi, C1, U+2028, BOM), or
                          // spelling a name only once lowercased (U+212A KELVIN SIGN, U+0130).
                          "Krak\u{F3}w", "\u{65E5}\u{672C}", "\u{1F680} go", "e\u{301}", "Stra\u{DF}e", "\u{212A}ey=abcd",
                          "to\u{212A}en", "\u{130}d", "\u{202E}evil", "a\u{2028}b", "\u{85}", "\u{FEFF}x", "\u{F3}token=abc"]
    static let keys = ["uuid", "odometer", "coords", "latitude", "extras", "accessToken", "Headers", "api_key", "password",
                       "is_moving", "speed", "key", "a", "miasto\u{301}", "to\u{212A}en"]

    /// A random JSON text: mostly compact canonical records, with whitespace, duplicate keys,
    /// deep nesting and odd numbers mixed in.
    static func randomJSON(_ rng: inout SplitMix64, depth: Int = 0) -> String {
        let pick = depth > 3 ? rng.int(0...3) : rng.int(0...6)
        switch pick {
        case 0: return numbers[rng.int(0...(numbers.count - 1))]
        case 1: return "\"" + strings[rng.int(0...(strings.count - 1))] + "\""
        case 2: return ["true", "false", "null"][rng.int(0...2)]
        case 3: return "\"" + String(rng.uuid()) + "\""
        case 4:
            let items = (0..<rng.int(0...3)).map { _ in randomJSON(&rng, depth: depth + 1) }
            return "[" + items.joined(separator: rng.chance(0.1) ? ", " : ",") + "]"
        default:
            var used = Set<String>()
            let members = (0..<rng.int(0...5)).map { _ -> String in
                var key = keys[rng.int(0...(keys.count - 1))]
                if !rng.chance(0.05) { while used.contains(key) { key += "x" } }
                used.insert(key)
                return "\"" + key + "\"" + (rng.chance(0.05) ? " : " : ":") + randomJSON(&rng, depth: depth + 1)
            }
            return "{" + members.joined(separator: ",") + "}"
        }
    }

    @Test func everyAcceptedTextIsWrittenBackAsItIs() throws {
        var rng = SplitMix64(seed: 2027)
        var accepted = 0
        for _ in 0..<20_000 {
            let text = VerbatimJSONTests.randomJSON(&rng)
            guard VerbatimJSON.isWrittenAsIs(text) else { continue }
            accepted += 1
            let written = JSONWriter().string(try JSONParser.parse(text))
            #expect(written == text, "accepted \(text) but the writer gives \(written)")
        }
        #expect(accepted > 2_000)
    }

    /// Whether a name is in `text` as the name rules read it: lowercased, in its ASCII.
    static func holdsName(_ text: String, _ names: SensitiveNameFilter) -> Bool {
        names.mayContainName(String(String.UnicodeScalarView(text.lowercased().unicodeScalars.map { $0.isASCII ? $0 : " " })))
    }

    /// Whether `text` holds a character that lowercases to ASCII: refused when names are looked
    /// for, beyond `holdsName` (the only such refusal).
    static func spellsByCase(_ text: String) -> Bool {
        text.unicodeScalars.contains { SensitiveNameFilter.lowercasesToASCII($0.value) }
    }

    /// Names looked for while the form is checked answer as the two checks one after the other
    /// (`Redactor.copiesThrough` relies on it): 20,000 random texts, with mixed-case names.
    @Test func namesFoundWhileReadingAnswerAsASecondPass() throws {
        var rng = SplitMix64(seed: 2028)
        let names = SensitiveNameFilter(SecretRules.sensitiveKeyFragments + SecretRules.credentialPairNames + ["headers", "eyj", "bearer"])
        var both = (accepted: 0, refusedForNames: 0)
        for _ in 0..<20_000 {
            var text = VerbatimJSONTests.randomJSON(&rng)
            if rng.chance(0.3) { text = text.uppercased() }
            let fused = text.utf8.withContiguousStorageIfAvailable { (VerbatimJSON.form($0, holdingNoneOf: names) == .asIs) } ?? false
            let form = VerbatimJSON.isWrittenAsIs(text)
            let apart = form && !Self.holdsName(text, names)
            if fused { both.accepted += 1 }
            if form && !apart { both.refusedForNames += 1 }
            if fused { #expect(apart, "\(text)") }
            if apart, !Self.spellsByCase(text) { #expect(fused, "\(text)") }
        }
        #expect(both.accepted > 1_000 && both.refusedForNames > 1_000, "both answers exercised: \(both)")
    }

    /// Every byte that is not plain (controls, `"`, `\`, DEL, every byte from 0x80) and a few that
    /// are, at every offset of strings longer than a machine word, with and without a name in them,
    /// answer as the byte-by-byte definition does (a guard for any faster scan of a string: one
    /// eight bytes at a time, tried on 2026-12-06, failed it with 760 issues when bytes from 0x80
    /// were not flagged).
    @Test func everyByteAtEveryOffsetAnswersAsTheDefinition() {
        let names = SensitiveNameFilter(SecretRules.sensitiveKeyFragments + SecretRules.credentialPairNames + ["headers", "eyj", "bearer"])
        let probes: [UInt8] = [0x00, 0x01, 0x09, 0x1F, 0x20, 0x21, 0x22, 0x23, 0x5B, 0x5C, 0x5D, 0x7E, 0x7F, 0x80, 0xC3, 0xE2, 0xFF]
        var checked = 0
        for length in [9, 16, 23] {
            for offset in 0..<length {
                for probe in probes {
                    for tail in ["", "Bearer", "x-api-KEY"] {
                        var content = [UInt8](repeating: UInt8(ascii: "a"), count: length)
                        content[offset] = probe
                        content += Array(tail.utf8)
                        let text = [UInt8(ascii: "\"")] + content + [UInt8(ascii: "\"")]
                        let plain = content.allSatisfy(VerbatimJSON.isPlainStringByte)
                        let (form, fused, named) = text.withUnsafeBufferPointer { bytes in
                            (VerbatimJSON.isWrittenAsIs(bytes), VerbatimJSON.form(bytes, holdingNoneOf: names) == .asIs,
                             names.mayContainName(bytes: bytes))
                        }
                        #expect(form == plain, "length \(length), byte \(probe) at \(offset), tail \(tail)")
                        #expect(fused == (plain && !named), "length \(length), byte \(probe) at \(offset), tail \(tail)")
                        checked += 1
                    }
                }
            }
        }
        #expect(checked == 48 * 17 * 3)
    }

    /// `text` with JSON's whitespace put around its punctuation here and there, never inside a
    /// string: what Python's `json.dumps` (`", "`, `": "`) and pretty printers make of a document.
    static func spaced(_ text: String, _ rng: inout SplitMix64) -> String {
        var out = ""
        var inString = false, escaped = false
        for character in text {
            if inString {
                out.append(character)
                if escaped { escaped = false } else if character == "\\" { escaped = true } else if character == "\"" { inString = false }
                continue
            }
            if "{}[],:".contains(character), rng.chance(0.4) { out += [" ", "\n", "\t", "\r\n", "  "][rng.int(0...4)] }
            out.append(character)
            if "{[,:".contains(character), rng.chance(0.4) { out += [" ", "\n  ", "\t"][rng.int(0...2)] }
            if character == "\"" { inString = true }
        }
        return rng.chance(0.2) ? " " + out + "\n" : out
    }

    /// A text with whitespace between its tokens is taken as `.spaced` exactly when the writer
    /// gives back its bytes without that whitespace (stop 55: a dump written by Python took every
    /// row through a parse); the names found while reading answer as a second pass; and a text
    /// whose compact form is accepted is never refused for its whitespace.
    @Test func aSpacedTextIsWrittenAsItsBytesWithoutTheSpace() throws {
        var rng = SplitMix64(seed: 2029)
        let names = SensitiveNameFilter(SecretRules.sensitiveKeyFragments + SecretRules.credentialPairNames + ["headers", "eyj", "bearer"])
        var redactor = Redactor()
        redactor.learn(secret: "sk_live_4eC39HqLyjWDarjtT1zdp7dc")
        var counts = (spaced: 0, asIs: 0, redactedSpaced: 0)
        for _ in 0..<20_000 {
            let compact = VerbatimJSONTests.randomJSON(&rng)
            let text = VerbatimJSONTests.spaced(compact, &rng)
            var copy = text
            let (form, fused, byRedactor, without) = copy.withUTF8 { bytes in
                (VerbatimJSON.form(bytes), VerbatimJSON.form(bytes, holdingNoneOf: names), redactor.verbatimForm(json: bytes),
                 VerbatimJSON.withoutSpace(bytes))
            }
            if fused != .other { #expect(fused == form && !Self.holdsName(text, names), "\(text)") }
            if !Self.holdsName(text, names), !Self.spellsByCase(text) { #expect(fused == form, "\(text)") }
            if VerbatimJSON.isWrittenAsIs(compact) { #expect(form != .other, "\(text)") }
            switch form {
            case .asIs:
                counts.asIs += 1
                #expect(VerbatimJSON.isWrittenAsIs(text))
                #expect(JSONWriter().string(try JSONParser.parse(text)) == text)
            case .spaced:
                counts.spaced += 1
                #expect(!VerbatimJSON.isWrittenAsIs(text))
                #expect(JSONWriter().string(try JSONParser.parse(text)) == without, "\(text)")
                var appended = Array("x".utf8)
                Array(text.utf8).withUnsafeBufferPointer { VerbatimJSON.appendWithoutSpace($0, to: &appended) }
                #expect(appended == Array(("x" + without).utf8))
            case .other:
                break
            }
            if byRedactor != .other {
                #expect(byRedactor == form)
                #expect(redactor.redact(try JSONParser.parse(text)).jsonText == (form == .asIs ? text : without), "\(text)")
                if byRedactor == .spaced { counts.redactedSpaced += 1 }
            }
        }
        #expect(counts.spaced > 2_000 && counts.asIs > 500 && counts.redactedSpaced > 1_000, "\(counts)")
        for text in ["[1 , 2]", " {\"a\" : \"b c\" }\n", "{\n  \"a\": [\n    1,\n    2\n  ]\n}", "\t\"x y\"\r\n"] {
            #expect(text.utf8.withContiguousStorageIfAvailable { VerbatimJSON.form($0) } == .spaced, "\(text)")
        }
        #expect("\"a b\"".utf8.withContiguousStorageIfAvailable { VerbatimJSON.form($0) } == .asIs)
        #expect("[1 2]".utf8.withContiguousStorageIfAvailable { VerbatimJSON.form($0) } == .other)
    }

    /// The bench's `spaced` shape (`DumpWriter.spacesJSON`) stores the same values, in the form
    /// the copy-through paths take as `.spaced`.
    @Test func theBenchsSpacedShapeKeepsEachValue() throws {
        var rng = SplitMix64(seed: 2030)
        var spaced = 0
        for _ in 0..<5_000 {
            let text = VerbatimJSONTests.randomJSON(&rng)
            let written = DumpWriter.spaced(text)
            guard let value = try? JSONParser.parse(text) else { continue }
            #expect(try JSONParser.parse(written) == value, "\(text)")
            guard VerbatimJSON.isWrittenAsIs(text), text.contains(",") || text.contains(":") else { continue }
            #expect(written.utf8.withContiguousStorageIfAvailable { VerbatimJSON.form($0) } == .spaced, "\(written)")
            spaced += 1
        }
        #expect(spaced > 250, "\(spaced)")
    }

    /// Strings built from pieces of UTF-8, well-formed or not (overlong forms, surrogates, values
    /// past U+10FFFF, sequences cut short, lone continuation bytes): a string is accepted exactly
    /// when its bytes are well-formed and hold no character the writer escapes, and then the tree
    /// path (parse, redact, write) gives back its bytes. Looking for names also refuses the
    /// characters that lowercase to ASCII (stop 56: every record holding `"city":"Kraków"` was
    /// parsed and written again, 3.3× the time of the compact listing).
    @Test func aStringOutsideASCIIIsAcceptedExactlyWhenWrittenAsItIs() throws {
        let pieces: [[UInt8]] = [Array("ab".utf8), Array("\u{E9}".utf8), Array("\u{65E5}".utf8), Array("\u{1F680}".utf8),
                                 Array("\u{212A}".utf8), Array("\u{130}".utf8), Array("\u{85}".utf8), Array("\u{202E}".utf8),
                                 Array("\u{2028}".utf8), Array("\u{FEFF}".utf8), Array("\u{10FD80}".utf8), Array("\u{FFFD}".utf8),
                                 [0xC0, 0x80], [0xC1, 0xBF], [0xC1, 0x81], [0xC0, 0xA2], [0xE0, 0x81, 0x81], [0xE0, 0x80, 0x80], [0xED, 0xA0, 0x80], [0xF0, 0x80, 0x80, 0x80],
                                 [0xF4, 0x90, 0x80, 0x80], [0xF5, 0x80, 0x80, 0x80], [0xC3], [0xE6, 0x97], [0x80], [0xBF], [0xFF],
                                 Array("ey=".utf8), Array("token".utf8)]
        let names = SensitiveNameFilter(SecretRules.sensitiveKeyFragments + SecretRules.credentialPairNames + ["headers", "eyj", "bearer"])
        let redactor = Redactor()
        var rng = SplitMix64(seed: 2031)
        var counts = (accepted: 0, refused: 0, byNames: 0)
        for _ in 0..<20_000 {
            var content: [UInt8] = []
            for _ in 0..<rng.int(1...4) { content += pieces[rng.int(0...(pieces.count - 1))] }
            let document = Array(#"{"a":""#.utf8) + content + Array(#""}"#.utf8)
            let decoded = String(validating: content, as: UTF8.self)
            let writable = decoded.map { !$0.unicodeScalars.contains { !$0.isASCII && TerminalText.isControl($0.value) } } ?? false
            let (asIs, fused, byRedactor) = document.withUnsafeBufferPointer {
                (VerbatimJSON.isWrittenAsIs($0), VerbatimJSON.form($0, holdingNoneOf: names), redactor.verbatimForm(json: $0))
            }
            #expect(asIs == writable, "\(content)")
            if asIs {
                counts.accepted += 1
                let value = try JSONParser.parse(String(decoding: document, as: UTF8.self))
                #expect(Array(JSONWriter().string(value).utf8) == document, "\(content)")
            } else {
                counts.refused += 1
            }
            if fused == .asIs {
                #expect(asIs && !decoded!.unicodeScalars.contains { SensitiveNameFilter.lowercasesToASCII($0.value) }, "\(content)")
            } else if asIs {
                counts.byNames += 1
            }
            if byRedactor == .asIs {
                let value = try JSONParser.parse(String(decoding: document, as: UTF8.self))
                #expect(Array(redactor.redact(value).jsonText.utf8) == document, "\(content)")
            }
        }
        #expect(counts.accepted > 1_500 && counts.refused > 2_000 && counts.byNames > 500, "\(counts)")
    }

    @Test func theWritersOtherFormsAreRefused() {
        for text in ["-0", "1.10", "0.00001", "1e5", "1E5", "1.5e3", "12345678901234567890", "0.30000000000000004",
                     "12345678901234567.0", "007", " 1", "{\"a\":1 }", "[1, 2]", "\"a\\nb\"",
                     "{\"a\":", "", "tru", "[1,]", "{\"a\"}", "\"\u{7F}\"",
                     // Outside ASCII: what the writer escapes (C1, bidi, U+2028, BOM, a file name's
                     // raw byte, U+FFFE, a zero-width space).
                     "\"\u{85}\"", "\"\u{202E}x\"", "\"a\u{2028}\"",
                     "\"\u{FEFF}\"", "\"\u{10FD80}\"", "\"\u{FFFE}\"", "\"\u{200B}\""] {
            #expect(!VerbatimJSON.isWrittenAsIs(text), "\(text) should take the tree path")
        }
        for text in ["\"\u{E9}\"", "\"Krak\u{F3}w\"", "{\"city\":\"\u{65E5}\u{672C}\"}", "[\"\u{1F680}\"]", "\"e\u{301}\"",
                     "\"\u{212A}\"", "\"\u{E000}\"", "\"\u{10FFFD}\"", "{\"\u{E9}\":1}",
                     // A key twice, and two keys Swift finds equal: the tree writes both, as stored.
                     "{\"a\":1,\"a\":2}", "{\"e\u{301}\":1,\"\u{E9}\":2}"] {
            #expect(VerbatimJSON.isWrittenAsIs(text), "\(text) is written as it is")
            #expect(JSONWriter().string(try! JSONParser.parse(text)) == text)
        }
        var deep = String(repeating: "[", count: 70) + String(repeating: "]", count: 70)
        #expect(!VerbatimJSON.isWrittenAsIs(deep))
        deep = String(repeating: "[", count: 10) + String(repeating: "]", count: 10)
        #expect(VerbatimJSON.isWrittenAsIs(deep))
    }

    @Test func aTypicalRecordIsCopiedThrough() {
        let record = """
            {"uuid":"3f9c9e2a-8b41-4b8a-9e0a-6b7d1c9a2f10","timestamp":"2026-07-24T09:14:32.118Z","odometer":18420.5,\
            "coords":{"latitude":52.2297,"longitude":21.0122,"accuracy":8.4,"altitude":112.3,"speed":6.7,"heading":-1.0},\
            "activity":{"type":"in_vehicle","confidence":92},"battery":{"level":0.63,"is_charging":false},"is_moving":true,\
            "extras":{"fleetId":"north-42","tripNote":"<script>alert(1)</script>"}}
            """
        var redactor = Redactor()
        redactor.learn(secret: "sk_live_4eC39HqLyjWDarjtT1zdp7dc")
        #expect(VerbatimJSON.isWrittenAsIs(record))
        #expect(redactor.leavesUnchanged(json: record))
    }

    /// Whatever `leavesUnchanged` accepts, redacting the parsed value changes nothing; and a text
    /// holding a learned secret (as it is, or cut off at a string's end) or a credential's shape
    /// is never accepted.
    @Test func redactionThatWouldChangeSomethingIsNeverSkipped() throws {
        var redactor = Redactor()
        redactor.learn(secret: "sk_live_4eC39HqLyjWDarjtT1zdp7dc")
        redactor.learn(secret: "rt-shape-secret-7f3a")
        var rng = SplitMix64(seed: 2028)
        var accepted = 0, refused = 0
        for _ in 0..<20_000 {
            let text = VerbatimJSONTests.randomJSON(&rng)
            guard VerbatimJSON.isWrittenAsIs(text) else { continue }
            let value = try JSONParser.parse(text)
            if redactor.leavesUnchanged(json: text) {
                accepted += 1
                #expect(redactor.redact(value) == value, "accepted \(text) but redaction changes it")
            } else {
                refused += 1
            }
        }
        #expect(accepted > 1_000 && refused > 1_000)
        for text in ["{\"note\":\"sk_live_4eC39HqLyjWDarjtT1zdp7dc\"}", "{\"note\":\"x sk_live_4eC39HqLyjWD\"}",
                     "[\"rt-shape-secret-7f3a\"]", "{\"Headers\":{\"X\":\"1\"}}", "{\"a\":\"BEARER xyz\"}", "{\"a\":\"EYJ\"}",
                     "{\"pass\":1}", "{\"u\":\"a@b\"}", "{\"u\":\"50%\"}", "{\"myApiKey\":\"v\"}"] {
            #expect(!redactor.leavesUnchanged(json: text), "\(text) must be redacted through the tree")
        }
        #expect(Redactor(enabled: false).leavesUnchanged(json: "{\"accessToken\":\"sk_live_4eC39HqLyjWDarjtT1zdp7dc\"}"))
    }
}

/// The listings' copied-through rows are the tree path's rows, byte for byte, on every sample
/// (stranded tokens, `<script>` extras, LongPing attempts, damaged rows), redacting or not.
@Suite struct ListingCopyThroughTests {
    @Test(arguments: [true, false])
    func everySampleListsAsTheTreePathWrites(redacting: Bool) throws {
        let writer = JSONWriter()
        var copied = 0, rows = 0
        for path in SampleReports.paths {
            let dump = try Dump(path: path)
            let redactor = dump.makeRedactor(enabled: redacting)
            dump.forEachRecord(QueueQuery()) { record in
                let tree = writer.string(LocationListing.json(record, redactor: redactor))
                let text = LocationListing.jsonText(record, redactor: redactor, writer: writer)
                #expect(text == tree, "\(path) record \(record.rowId)")
                rows += 1
                if redactor.copiesThrough(json: record.json) { copied += 1 }
            }
            dump.forEachLogEntry(LogQuery()) { entry in
                let tree = writer.string(LogListing.json(entry, redactor: redactor))
                let text = LogListing.jsonText(entry, redactor: redactor, writer: writer)
                #expect(text == tree, "\(path) log row \(entry.rowId)")
                rows += 1
                if let data = entry.dataText, redactor.copiesThrough(json: data) { copied += 1 }
            }
        }
        // Most rows take the copy: a fast path that never runs would hide here.
        #expect(rows > 5_000 && copied * 2 > rows, "\(copied) of \(rows) rows copied through")
    }

    /// Regression (stop 48): the check for a repeated key compared each key with the object's
    /// earlier ones, so a record whose extras held 150,000 keys took minutes. No key is compared
    /// now (stop 56: the tree writes a repeated key twice, so the check guarded nothing), and
    /// such an object is copied through in time linear in its keys, as the tree writes it.
    @Test func anObjectOfManyKeysIsCopiedThroughInLinearTime() throws {
        func object(_ count: Int) -> String {
            "{" + (0..<count).map { #""k\#($0 % 1000)":\#($0)"# }.joined(separator: ",") + "}"
        }
        let wide = #"{"extras":"# + object(150_000) + "}"
        let started = Date()
        #expect(VerbatimJSON.isWrittenAsIs(wide))
        #expect(Date().timeIntervalSince(started) < 1)
        #expect(JSONWriter().string(try JSONParser.parse(wide)) == wide)
        var redactor = Redactor()
        redactor.learn(secret: "sk_live_4eC39HqLyjWDarjtT1zdp7dc")
        #expect(redactor.copiesThrough(json: wide))
        #expect(redactor.redact(try JSONParser.parse(wide)).jsonText == wide)
    }
}

/// The name rules compare names lowercased; the byte filters read names in ASCII bytes. They
/// agree on text free of the characters `SensitiveNameFilter.lowercasesToASCII` lists, so that
/// list must hold every scalar whose lowercase holds ASCII.
@Suite struct SensitiveNameFilterTests {
    @Test func theCharactersThatLowercaseToASCIIAreListed() {
        var found: [UInt32] = []
        for value in UInt32(0x80)...0x10_FFFF {
            guard let scalar = Unicode.Scalar(value) else { continue }
            if String(Character(scalar)).lowercased().utf8.contains(where: { $0 < 0x80 }) { found.append(value) }
        }
        #expect(found == [0x130, 0x212A])
        for value in found { #expect(SensitiveNameFilter.lowercasesToASCII(value)) }
        #expect(!SensitiveNameFilter.lowercasesToASCII(0xDF) && !SensitiveNameFilter.lowercasesToASCII(0x212B))
    }
}
