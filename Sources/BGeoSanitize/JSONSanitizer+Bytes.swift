import BGeoForensics

extension JSONSanitizer {
    /// What `sanitize(bytes:)` made of a document.
    enum ByteOutcome: Equatable {
        /// Nothing to change: the cell is kept as it is.
        case unchanged
        /// The document with its changed values rewritten, every other byte copied.
        case rewritten(String)
        /// A form the byte walk leaves to the tree (`sanitize` of the parsed document).
        case needsTree
    }

    /// `sanitize` of a document read from its bytes, without building its tree (issue 27: the
    /// writing stage parsed every cell into a tree, walked it and wrote it again, when most cells
    /// change in a few values). Only a document in `JSONWriter`'s form is taken, or in that form
    /// once the whitespace between its tokens is taken out (`VerbatimJSON.form`): the tree's
    /// output is then those bytes with the changed values written by that writer, which is what
    /// this makes (a spaced document left unchanged is kept as stored, as the tree keeps it). It
    /// answers `.needsTree`, having changed nothing, for any other form and for what the tree
    /// does on its own: a value under a sensitive key (the redactor fingerprints it), a `headers`
    /// object, and a walked string that may hold a nested document. The walk below is
    /// `walkObject`'s, member by member.
    func sanitize(bytes: UnsafeBufferPointer<UInt8>, _ changes: inout CellChanges) -> ByteOutcome {
        switch VerbatimJSON.form(bytes) {
        case .asIs:
            return sanitize(writerForm: bytes, &changes)
        case .spaced:
            var compact: [UInt8] = []
            VerbatimJSON.appendWithoutSpace(bytes, to: &compact)
            return compact.withUnsafeBufferPointer { sanitize(writerForm: $0, &changes) }
        case .other:
            return .needsTree
        }
    }

    private func sanitize(writerForm bytes: UnsafeBufferPointer<UInt8>, _ changes: inout CellChanges) -> ByteOutcome {
        var walk = SanitizeWalk(cursor: JSONByteCursor(bytes: bytes), sanitizer: self)
        guard walk.walk(depth: 0) else { return .needsTree }
        guard !walk.changes.isEmpty else { return .unchanged }
        changes.formUnion(walk.changes)
        return .rewritten(walk.rewritten())
    }
}

/// One document's sanitising walk over its bytes (`JSONSanitizer.sanitize(bytes:)`). The
/// document is known to be in the writer's form: no whitespace, no escape. A key written twice is
/// walked twice, as `walkObject` walks the tree's members.
private struct SanitizeWalk {
    var cursor: JSONByteCursor
    let sanitizer: JSONSanitizer
    var changes = CellChanges()
    /// Value spans to replace and their new text, in the writer's form.
    var edits: [Edit] = []

    struct Edit {
        let range: Range<Int>
        let text: [UInt8]
    }

    init(cursor: JSONByteCursor, sanitizer: JSONSanitizer) {
        self.cursor = cursor
        self.sanitizer = sanitizer
    }

    /// The document with every edit applied.
    func rewritten() -> String {
        let bytes = cursor.bytes
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count + 64 * edits.count)
        var copied = 0
        // A position's edit is made when its object ends, after the edits inside its members.
        let inOrder = zip(edits, edits.dropFirst()).allSatisfy { $0.range.lowerBound < $1.range.lowerBound }
        for edit in inOrder ? edits : edits.sorted(by: { $0.range.lowerBound < $1.range.lowerBound }) {
            out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[copied..<edit.range.lowerBound]))
            out.append(contentsOf: edit.text)
            copied = edit.range.upperBound
        }
        out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[copied...]))
        return String(decoding: out, as: UTF8.self)
    }

    private mutating func replace(_ range: Range<Int>, with value: JSONValue) {
        var text: [UInt8] = []
        JSONWriter().write(value, into: &text, indent: 0)
        edits.append(Edit(range: range, text: text))
    }

    private func text(_ range: Range<Int>) -> String {
        String(decoding: UnsafeBufferPointer(rebasing: cursor.bytes[range]), as: UTF8.self)
    }

    /// `walk` of one value.
    mutating func walk(depth: Int) -> Bool {
        switch cursor.peek {
        case UInt8(ascii: "{"): return object(depth: depth)
        case UInt8(ascii: "["):
            cursor.index += 1
            if cursor.peek == UInt8(ascii: "]") { cursor.index += 1; return true }
            while true {
                guard walk(depth: depth + 1) else { return false }
                if cursor.peek == UInt8(ascii: ",") { cursor.index += 1; continue }
                cursor.index += 1  // `]`: the form is checked
                return true
            }
        case UInt8(ascii: "\""):
            let start = cursor.index
            guard cursor.skipString() else { return false }
            let content = (start + 1)..<(cursor.index - 1)
            // `walkString` reads a string that starts as a document as one: left to the tree.
            if let first = content.first, cursor.bytes[first] == UInt8(ascii: "{") || cursor.bytes[first] == UInt8(ascii: "[") {
                return false
            }
            // A uuid or a timestamp is left as it is: no string is made for it.
            if sanitizer.leavesAsIs(UnsafeBufferPointer(rebasing: cursor.bytes[content])) { return true }
            var local = CellChanges()
            let scrubbed = sanitizer.scrubText(text(content), &local)
            if !local.isEmpty {
                changes.formUnion(local)
                replace(start..<cursor.index, with: .string(scrubbed))
            }
            return true
        default:
            return cursor.skipValue(depth: depth)
        }
    }

    /// `walkObject`: each member by its key's kind; positions moved when the object ends.
    private mutating func object(depth: Int) -> Bool {
        cursor.index += 1
        if cursor.peek == UInt8(ascii: "}") { cursor.index += 1; return true }
        var latitudes: [JSONSanitizer.Position] = []
        var longitudes: [JSONSanitizer.Position] = []
        var headings: [(index: Int, value: Double)] = []
        var spans: [Range<Int>] = []
        spans.reserveCapacity(16)
        while true {
            guard let keyRange = cursor.scanKey() else { return false }
            let start = cursor.index
            let peek = cursor.peek
            let isNumber = peek == UInt8(ascii: "-") || peek &- 48 < 10
            let isObject = peek == UInt8(ascii: "{")
            switch sanitizer.kind(of: UnsafeBufferPointer(rebasing: cursor.bytes[keyRange])) {
            case .sensitive where !isObject, .headers where isObject:
                return false
            case .extras:
                guard customerData(depth: depth + 1) else { return false }
            case .latitude(let prefix) where isNumber:
                guard let value = cursor.scanNumber() else { return false }
                if (-90.0...90.0).contains(value) { latitudes.append(.init(index: spans.count, prefix: prefix, value: value)) }
            case .longitude(let prefix) where isNumber:
                guard let value = cursor.scanNumber() else { return false }
                if (-180.0...180.0).contains(value) { longitudes.append(.init(index: spans.count, prefix: prefix, value: value)) }
            case .heading where isNumber:
                guard let value = cursor.scanNumber() else { return false }
                headings.append((spans.count, value))
            default:
                guard walk(depth: depth + 1) else { return false }
            }
            spans.append(start..<cursor.index)
            if cursor.peek == UInt8(ascii: ",") { cursor.index += 1; continue }
            cursor.index += 1  // `}`
            break
        }
        guard !sanitizer.coordinates.isIdentity, !latitudes.isEmpty || !longitudes.isEmpty else { return true }
        let moved = sanitizer.movedValues(latitudes: latitudes, longitudes: longitudes, headings: headings)
        guard !moved.isEmpty else { return true }
        changes.insert(.coordinates)
        for member in moved { replace(spans[member.index], with: .double(member.value)) }
        return true
    }

    /// `customerData`: a value of customer data under the extras policy.
    private mutating func customerData(depth: Int) -> Bool {
        switch sanitizer.extras {
        case .keep:
            return walk(depth: depth)
        case .hash:
            return hashed(depth: depth)
        case .drop:
            let start = cursor.index
            let emptied: JSONValue = cursor.peek == UInt8(ascii: "{") ? .object(JSONObject())
                : cursor.peek == UInt8(ascii: "[") ? .array([]) : .null
            guard cursor.skipValue(depth: depth) else { return false }
            changes.insert(.extras)
            replace(start..<cursor.index, with: emptied)
            return true
        }
    }

    /// `hashed`: keys kept, every scalar but null replaced by its keyed hash.
    private mutating func hashed(depth: Int) -> Bool {
        let start = cursor.index
        switch cursor.peek {
        case UInt8(ascii: "{"):
            cursor.index += 1
            if cursor.peek == UInt8(ascii: "}") { cursor.index += 1; return true }
            while true {
                guard let keyRange = cursor.scanKey() else { return false }
                // A sensitive member is fingerprinted by the redactor: left to the tree.
                if cursor.peek != UInt8(ascii: "{"), Redactor.isSensitiveKey(text(keyRange)) { return false }
                guard hashed(depth: depth + 1) else { return false }
                if cursor.peek == UInt8(ascii: ",") { cursor.index += 1; continue }
                cursor.index += 1  // `}`
                return true
            }
        case UInt8(ascii: "["):
            cursor.index += 1
            if cursor.peek == UInt8(ascii: "]") { cursor.index += 1; return true }
            while true {
                guard hashed(depth: depth + 1) else { return false }
                if cursor.peek == UInt8(ascii: ",") { cursor.index += 1; continue }
                cursor.index += 1  // `]`
                return true
            }
        case UInt8(ascii: "\""):
            guard cursor.skipString() else { return false }
            let content = (start + 1)..<(cursor.index - 1)
            guard !content.isEmpty else { return true }
            replace(start..<cursor.index, with: .string(sanitizer.hashed(string: text(content), &changes)))
            return true
        case UInt8(ascii: "n"):
            return cursor.skipLiteral("null")
        default:
            // In the writer's form a number's or boolean's literal is its JSON text.
            guard cursor.skipValue(depth: depth) else { return false }
            replace(start..<cursor.index, with: .string(sanitizer.hashed(literal: text(start..<cursor.index), &changes)))
            return true
        }
    }
}
