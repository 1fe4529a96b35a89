/// Stored JSON as `JSONWriter()` writes `Redactor.redact(JSONParser.parse(text))`, made while the
/// text is read (`JSONParser.stream`) instead of through two trees: a listing's `queue.drop` row of
/// 1,500,000 uuids held a parsed tree and its redacted copy at once (`logs` 470 MB, `report`
/// 508 MB). The tree path stays the definition (`RedactedJSONTextTests` compares the two on random
/// documents with every kind of sensitive name); the rules below are `Redactor.redact`'s, member
/// by member.
package enum RedactedJSONText {
    /// Appends the redacted compact text of `bytes` to `out` and returns true; returns false, `out`
    /// as it was, when the parser rejects them (the caller then shows them as text). Bytes that
    /// would come back as they are, or only without their whitespace (`Redactor.verbatimForm`),
    /// are copied so, not parsed.
    package static func append(_ bytes: UnsafeBufferPointer<UInt8>, redactor: Redactor, to out: inout [UInt8]) -> Bool {
        switch redactor.verbatimForm(json: bytes) {
        case .asIs:
            out.append(contentsOf: bytes)
            return true
        case .spaced:
            VerbatimJSON.appendWithoutSpace(bytes, to: &out)
            return true
        case .other:
            break
        }
        let start = out.count
        var sink = Sink(redactor: redactor, out: out, limit: .max, readableLimit: nil)
        out = []  // the sink holds the only reference: appending does not copy
        do throws(JSONParser.ParseError) {
            try JSONParser.stream(bytes: bytes, into: &sink)
            out = sink.out
            return true
        } catch {
            out = sink.out
            out.removeSubrange(start...)
            return false
        }
    }

    /// `redactor.redact(parse(text)).jsonText`, nil when the parser rejects `text`. `text` itself
    /// when that would give back its own bytes, or its bytes without their whitespace
    /// (`Redactor.verbatimForm`), else made into the string in pieces (`Sink.spillsAt`), not as
    /// bytes copied into a string at the end: a 60 MB text is not held twice over.
    package static func text(_ text: String, redactor: Redactor) -> String? {
        var text = text
        let form = text.withUTF8 { redactor.verbatimForm(json: $0) }
        if form == .asIs { return text }
        return text.withUTF8 { bytes -> String? in
            if form == .spaced { return VerbatimJSON.withoutSpace(bytes) }
            var sink = Sink(redactor: redactor, out: [], limit: .max, readableLimit: nil)
            sink.spillsAt = 1 << 16
            sink.spilled.reserveCapacity(bytes.count + 64)
            do throws(JSONParser.ParseError) {
                try JSONParser.stream(bytes: bytes, into: &sink)
            } catch {
                return nil
            }
            sink.spill()
            return sink.spilled
        }
    }

    /// Whether `start`, a text's start read in bytes (`shown`), cuts at `limit` characters as the
    /// whole text would: it is complete, or two characters longer than the cut (its last character
    /// may be a cluster or a sequence cut short; the ones before it are the whole text's). The one
    /// rule the report's log cells and the `logs` table cut a long row's start by.
    package static func cutsAsWhole(_ start: String, complete: Bool, at limit: Int) -> Bool {
        complete || start.count > limit + 2
    }

    /// What `shown` gives: each form complete, or a start at least as long as asked for.
    package struct Shown: Sendable {
        package var json: String
        package var jsonComplete: Bool
        package var readable: String
        package var readableComplete: Bool
    }

    /// The start of what a report's row shows of a redacted document: its compact text and its
    /// readable form (a string as itself; an object as `key value, key value`, a member's string
    /// as itself and any other value as its text; anything else as its text), each complete or at
    /// least `bytes` long (`complete` says which). Nil when the parser rejects `text`. Past both
    /// limits the rest is only read, as the parser must to accept it, and not redacted.
    package static func shown(_ text: String, redactor: Redactor, bytes limit: Int) -> Shown? {
        var text = text
        return text.withUTF8 { bytes -> Shown? in
            var sink = Sink(redactor: redactor, out: [], limit: limit, readableLimit: limit)
            do throws(JSONParser.ParseError) {
                try JSONParser.stream(bytes: bytes, into: &sink)
            } catch {
                return nil
            }
            return Shown(json: String(decoding: sink.out, as: UTF8.self), jsonComplete: !sink.cut,
                         readable: String(decoding: sink.readable ?? [], as: UTF8.self), readableComplete: !sink.readableCut)
        }
    }
}

extension RedactedJSONText {
    /// How a value's strings are redacted, as `Redactor.redact` decides it from the member's name
    /// and whether the value is an object.
    private enum Rule {
        /// `redact`: strings as free text, members by their names.
        case redact
        /// An object under a `…headers` name: each member a header (`SecretRules.isSecretHeader`).
        case headers
        /// `redactAll`: every string fingerprinted (a sensitive name's value, a secret header's).
        case all
    }

    private struct Frame {
        let isObject: Bool
        let rule: Rule
        var first = true
        /// The name of the member being read (objects).
        var key = ""
    }

    private struct Sink: JSONTokenSink {
        let redactor: Redactor
        let writer = JSONWriter()
        var out: [UInt8]
        let outStart: Int
        /// Bytes past which nothing more is appended to `out` (`cut` then).
        let limit: Int
        private(set) var cut = false
        /// The readable form (`RedactedJSONText.shown`), nil when not wanted.
        private(set) var readable: [UInt8]?
        let readableLimit: Int
        private(set) var readableCut = false
        private var frames: [Frame] = []
        private var topIsObject = false
        private var scratch: [UInt8] = []

        init(redactor: Redactor, out: [UInt8], limit: Int, readableLimit: Int?) {
            self.redactor = redactor
            self.out = out
            outStart = out.count
            self.limit = limit
            self.readableLimit = readableLimit ?? 0
            readable = readableLimit == nil ? nil : []
            frames.reserveCapacity(16)
        }

        /// Nothing more will be shown: the rest is only read.
        private var done: Bool { cut && (readable == nil || readableCut) }

        /// True while the top object's own members are read: the readable form writes them its own way.
        private var inTopObject: Bool { topIsObject && frames.count == 1 }

        /// When above zero, `out` is moved into `spilled` each time it holds this many bytes
        /// (`text`; it is only appended whole tokens, so each piece is whole characters).
        var spillsAt = 0
        var spilled = ""

        mutating func spill() {
            spilled.append(String(decoding: out, as: UTF8.self))
            out.removeAll(keepingCapacity: true)
        }

        private mutating func appendOut<Bytes: Collection<UInt8>>(_ bytes: Bytes) {
            guard !cut else { return }
            out.append(contentsOf: bytes)
            if out.count - outStart >= limit { cut = true }
            if spillsAt > 0, out.count >= spillsAt { spill() }
        }

        private mutating func appendReadable<Bytes: Collection<UInt8>>(_ bytes: Bytes) {
            guard readable != nil, !readableCut else { return }
            readable!.append(contentsOf: bytes)
            if readable!.count >= readableLimit { readableCut = true }
        }

        /// Bytes that both forms show alike (all but the top object's punctuation and names, and
        /// strings the readable form shows as themselves).
        private mutating func appendBoth<Bytes: Collection<UInt8>>(_ bytes: Bytes) {
            appendOut(bytes)
            appendReadable(bytes)
        }

        /// The comma before an array's next element.
        private mutating func separateElement() {
            guard let last = frames.indices.last, !frames[last].isObject else { return }
            if frames[last].first { frames[last].first = false } else { appendBoth(CollectionOfOne(0x2C)) }
        }

        /// The rule for the value now starting, from its container (`Redactor.redact`'s cases).
        private func valueRule(isObject: Bool) -> Rule {
            guard redactor.enabled, let frame = frames.last else { return .redact }
            switch frame.rule {
            case .all:
                return .all
            case .redact:
                guard frame.isObject else { return .redact }
                if Redactor.isSensitiveKey(frame.key), !isObject { return .all }
                if SecretRules.isHeadersKey(frame.key), isObject { return .headers }
                return .redact
            case .headers:
                return SecretRules.isSecretHeader(frame.key) && !isObject ? .all : .redact
            }
        }

        private mutating func begin(isObject: Bool) {
            separateElement()
            let rule = valueRule(isObject: isObject)
            if frames.isEmpty && isObject {
                topIsObject = true
                appendOut(CollectionOfOne(0x7B))
            } else {
                appendBoth(CollectionOfOne(isObject ? 0x7B : 0x5B))
            }
            frames.append(Frame(isObject: isObject, rule: rule))
        }

        private mutating func end(isObject: Bool) {
            if inTopObject { appendOut(CollectionOfOne(0x7D)) } else { appendBoth(CollectionOfOne(isObject ? 0x7D : 0x5D)) }
            frames.removeLast()
        }

        mutating func beginObject() { begin(isObject: true) }
        mutating func endObject() { end(isObject: true) }
        mutating func beginArray() { begin(isObject: false) }
        mutating func endArray() { end(isObject: false) }

        mutating func key(_ key: String) {
            let last = frames.count - 1
            let first = frames[last].first
            frames[last].first = false
            frames[last].key = key
            guard !done else { return }
            scratch.removeAll(keepingCapacity: true)
            if !first { scratch.append(0x2C) }
            writer.writeString(key, into: &scratch)
            scratch.append(0x3A)
            if inTopObject {
                appendOut(scratch)
                if !first { appendReadable(", ".utf8) }
                appendReadable(key.utf8)
                appendReadable(CollectionOfOne(0x20))
            } else {
                appendBoth(scratch)
            }
        }

        mutating func scalar(_ value: JSONValue) {
            separateElement()
            guard !done else { return }
            let rule = valueRule(isObject: false)
            scratch.removeAll(keepingCapacity: true)
            guard case .string(let s) = value else {
                writer.write(value, into: &scratch, indent: 0)
                appendBoth(scratch)
                return
            }
            let shown = shownString(s, rule: rule)
            writer.writeString(shown, into: &scratch)
            appendOut(scratch)
            // The readable form shows the top value's or a top member's string as itself.
            if frames.isEmpty || inTopObject { appendReadable(shown.utf8) } else { appendReadable(scratch) }
        }

        /// `redact(text:)` / `redactAll` of one string.
        private func shownString(_ s: String, rule: Rule) -> String {
            guard redactor.enabled else { return s }
            return rule == .all ? Redactor.redactAll(string: s) : redactor.redact(text: s)
        }
    }
}
