import Testing
@testable import BGeoReader
@testable import BGeoSQLite
@testable import BGeoSanitize

/// Short texts that scrub to themselves are remembered per sanitiser (`JSONSanitizer.scrubText`): a text
/// that holds a secret or a URL is never taken for one of them, before or after clean ones.
@Suite struct CleanWordsTests {
    @Test func aRememberedCleanWordNeverHidesASecret() {
        let secret = "rt-shape-secret-7f3a"
        let json = SanitizePartsTests.sanitizer(secrets: [secret])
        let rows = RowSanitizer(json: json, options: SanitizeOptions())
        let rule = TableRule.log(src: 0, event: 1, message: nil, data: nil)
        var changes = [CellChanges](repeating: [], count: 2)
        for event in ["location", secret, "location", "x \(secret)", secret, "https://u:p@h.example/x", "location"] {
            var cells: [CellValue] = [.text("native"), .text(event)]
            rows.sanitize(&cells, rule: rule, changes: &changes)
            if event == "location" {
                #expect(cells[1] == .text("location") && changes[1].isEmpty)
            } else {
                #expect(cells[1] != .text(event) && !changes[1].isEmpty, "\(event)")
                if case .text(let out) = cells[1] { #expect(!out.contains(secret) && !out.contains("u:p@")) }
            }
            #expect(cells[0] == .text("native") && changes[0].isEmpty)
        }
    }

    /// Regression (stop 56): the memory was a `Set<String>`, and Swift's `==` is canonical
    /// equivalence, so a secret written precomposed (`pässwörd-1`, U+00E4) was taken for the clean
    /// decomposed spelling (`a` + U+0308) seen before it and written out as it was. A word is
    /// remembered by its bytes: the secret is replaced, the other spelling (bytes the search does
    /// not match) is kept.
    @Test func aCleanWordSpelledOtherwiseNeverHidesASecret() {
        let secret = "p\u{E4}ssw\u{F6}rd-1"
        let decomposed = "pa\u{308}sswo\u{308}rd-1"
        #expect(secret == decomposed && Array(secret.utf8) != Array(decomposed.utf8), "the two spellings are canonically equal")
        let json = SanitizePartsTests.sanitizer(secrets: [secret])
        let rows = RowSanitizer(json: json, options: SanitizeOptions())
        let rule = TableRule.log(src: 0, event: 1, message: nil, data: 2)
        var changes = [CellChanges](repeating: [], count: 3)
        for value in [decomposed, secret, decomposed, secret] {
            var cells: [CellValue] = [.text("native"), .text(value), .text(#"{"type":"\#(value)"}"#)]
            rows.sanitize(&cells, rule: rule, changes: &changes)
            for (column, cell) in [(1, cells[1]), (2, cells[2])] {
                guard case .text(let out) = cell else { Issue.record("column \(column) is not text"); continue }
                let holdsSecret = Array(out.utf8).withUnsafeBufferPointer { haystack in
                    Array(secret.utf8).withUnsafeBufferPointer { ByteSearch.firstIndex(of: $0, in: haystack) != nil }
                }
                #expect(!holdsSecret, "column \(column) of \(Array(value.utf8)) holds the secret's bytes")
                // (`==` would take the secret for the other spelling too: bytes tell them apart.)
                if value.utf8.elementsEqual(decomposed.utf8) { #expect(changes[column].isEmpty, "column \(column): the other spelling is kept") }
            }
        }
    }

    /// Regression (stop 56): the kinds of member names were remembered by `String`, so after
    /// `secre` + U+1E6B (a plain name) the canonically equal `secret` + U+0307, whose bytes spell
    /// `secret` and whose value the redactor fingerprints, was taken for plain and its value kept.
    @Test func aNameSpelledOtherwiseKeepsItsOwnKind() {
        let plain = "secre\u{1E6B}", sensitive = "secret\u{307}"
        #expect(plain == sensitive && Redactor.isSensitiveKey(sensitive) && !Redactor.isSensitiveKey(plain))
        let json = SanitizePartsTests.sanitizer()
        for key in [plain, sensitive] {
            var changes = CellChanges()
            let out = json.sanitize(.object(JSONObject([(key, .string("hunter2-value"))])), &changes)
            #expect(out.jsonText.contains("hunter2-value") == (key.utf8.elementsEqual(plain.utf8)), "\(Array(key.utf8))")
        }
    }

    /// The same memory serves strings inside documents, read from bytes or from the tree.
    @Test func aRememberedWordInsideADocumentNeverHidesASecret() {
        let secret = "rt-shape-secret-7f3a"
        let json = SanitizePartsTests.sanitizer(secrets: [secret])
        let rows = RowSanitizer(json: json, options: SanitizeOptions())
        let rule = TableRule.log(src: 0, event: 1, message: nil, data: 2)
        var changes = [CellChanges](repeating: [], count: 3)
        for value in ["walking", secret, "walking", secret] {
            for data in [#"{"type":"\#(value)"}"#, #"{ "type" : "\#(value)" }"#] {
                var cells: [CellValue] = [.text("native"), .text("activity"), .text(data)]
                rows.sanitize(&cells, rule: rule, changes: &changes)
                #expect(value == secret ? !changes[2].isEmpty : changes[2].isEmpty, "\(data)")
                if case .text(let out) = cells[2] { #expect(!out.contains(secret)) }
            }
        }
    }

    /// Uuids and timestamps skip the searches, in columns and inside documents, only while no
    /// learned secret could lie in one: a hex-and-dashes key inside a uuid is still replaced.
    @Test func aPlainTokenIsSearchedWhenASecretCouldLieInIt() {
        let uuid = "3c365801-5930-4855-915f-a2cbeaa71ff3"
        for (secret, replaced) in [("sk_live_5930-4855", false), ("5930-4855-915f", true)] {
            let rows = RowSanitizer(json: SanitizePartsTests.sanitizer(secrets: [secret]), options: SanitizeOptions())
            let rule = TableRule.log(src: 0, event: 1, message: nil, data: 2)
            var changes = [CellChanges](repeating: [], count: 3)
            var cells: [CellValue] = [.text(uuid), .text("location"), .text(#"{"uuid":"\#(uuid)","n":1}"#)]
            rows.sanitize(&cells, rule: rule, changes: &changes)
            #expect(changes[0].isEmpty != replaced && changes[2].isEmpty != replaced, "\(secret)")
            for cell in [cells[0], cells[2]] {
                if case .text(let out) = cell { #expect(out.contains("5930-4855-915f") != replaced) }
            }
        }
    }

    /// The shortcut is for plain tokens only, whatever the redactor: with redaction off a URL is
    /// still cut to its host by the URL policy (the shortcut once answered yes to any text then).
    @Test func theShortcutNeverSkipsTheURLPolicy() {
        let text = TextSanitizer(redactor: .disabled, urls: .host)
        var changes = CellChanges()
        #expect(text.scrub("https://u:pw@h.example/p?q=1", &changes) == "https://h.example")
        #expect(changes.contains(.urls))
        var uuid = "3c365801-5930-4855-915f-a2cbeaa71ff3"
        #expect(uuid.withUTF8 { text.leavesAsIs($0) })
    }
}
