import BGeoForensics
import BGeoSQLite
/// Sanitises one row of any table by its `TableRule`, counting what changed per column.
/// - queue record: the JSON walk (`JSONSanitizer`);
/// - log `message` / `data`: app lines (`src` js) under the extras policy, native lines scrubbed
///   and walked (config lines, http.* and auth.* data, response bodies…);
/// - state `value`: `auth` entirely fingerprinted, every other key walked;
/// - every other text cell: `TextSanitizer`; blobs: learned secrets replaced byte for byte.
/// A JSON cell that does not parse cannot be sanitised field by field: unless the options keep
/// customer data, it is replaced by a placeholder that says so (and still does not parse, so the
/// readers warn about the same row).
final class RowSanitizer {
    let json: JSONSanitizer
    let options: SanitizeOptions
    /// The text rules, held here (not read through `json` for every cell: a copy of the rules
    /// retained and released the redactor's tables each time).
    private let text: TextSanitizer

    init(json: JSONSanitizer, options: SanitizeOptions) {
        self.json = json
        self.options = options
        text = json.text
    }

    /// Sanitises `cells` in place; `changes` (as many) tells what changed, per cell.
    func sanitize(_ cells: inout [CellValue], rule: TableRule, changes: inout [CellChanges]) {
        let app = rule.isAppLine(cells)
        let tag = rule.tag(cells)
        for index in cells.indices {
            changes[index] = []
            cells[index] = sanitize(cells[index], at: index, rule: rule, app: app, tag: tag, &changes[index])
        }
    }

    private func sanitize(_ cell: CellValue, at index: Int, rule: TableRule, app: Bool, tag: String?,
                          _ changes: inout CellChanges) -> CellValue {
        switch cell {
        case .null, .integer, .real: return cell
        case .blob(let bytes): return .blob(scrub(blob: bytes, &changes))
        case .text(let value):
            switch rule {
            case .queue(let record) where index == record:
                return document(value, withholdUnparseable: !options.keepsCustomerData, &changes)
            case .log(_, _, let message, _) where index == message && app:
                return json.customerText(value, &changes).map(CellValue.text) ?? .null
            case .log(_, _, _, let data) where index == data:
                if app { return appData(value, &changes) }
                return document(value, withholdUnparseable: !options.keepsCustomerData
                                && (tag == "config" || tag == "geofence" || mentionsPosition(value)), &changes)
            case .state(_, let valueIndex) where index == valueIndex:
                if tag == "auth" { return auth(value, &changes) }
                return document(value, withholdUnparseable: tag == "config" && !options.keepsCustomerData, &changes)
            case .generic(let secretColumns) where secretColumns.contains(index):
                guard !value.isEmpty, !Redactor.isTemplate(value), !Redactor.isFingerprint(value) else { return cell }
                changes.insert(.secrets)
                return .text(Redactor.fingerprint(value))
            case .generic:
                if let first = value.utf8.first, first == UInt8(ascii: "{") || first == UInt8(ascii: "["),
                   (try? JSONParser.parse(value)) != nil {
                    return document(value, withholdUnparseable: false, &changes)
                }
                return .text(text.scrub(value, &changes))
            default:
                return .text(json.scrubText(value, &changes))
            }
        }
    }

    /// A JSON document cell; unparseable text is scrubbed, or withheld when it may hide data
    /// the options remove.
    private func document(_ value: String, withholdUnparseable: @autoclosure () -> Bool, _ changes: inout CellChanges) -> CellValue {
        // Most cells are in the writer's form and change in a few values: rewritten from their bytes.
        var bytes = value
        switch bytes.withUTF8({ json.sanitize(bytes: $0, &changes) }) {
        case .unchanged: return .text(value)
        case .rewritten(let text): return .text(text)
        case .needsTree: break
        }
        guard let parsed = try? JSONParser.parse(value) else {
            if withholdUnparseable() { return withheld(value, &changes) }
            return .text(text.scrub(value, &changes))
        }
        var local = CellChanges()
        let result = json.sanitize(parsed, &local)
        guard !local.isEmpty else { return .text(value) }
        changes.formUnion(local)
        return .text(result.jsonText)
    }

    /// An app line's data under the extras policy.
    private func appData(_ value: String, _ changes: inout CellChanges) -> CellValue {
        guard let parsed = try? JSONParser.parse(value) else {
            return json.customerText(value, &changes).map(CellValue.text) ?? .null
        }
        var local = CellChanges()
        let result = json.customerData(parsed, &local)
        guard !local.isEmpty else { return .text(value) }
        changes.formUnion(local)
        if options.extras == .drop { return .null }
        return .text(result.jsonText)
    }

    /// `state.auth`: every string is a secret, whatever its key.
    private func auth(_ value: String, _ changes: inout CellChanges) -> CellValue {
        guard let parsed = try? JSONParser.parse(value), let object = parsed.objectValue else {
            return document(value, withholdUnparseable: true, &changes)
        }
        var members: [(key: String, value: JSONValue)] = []
        var local = CellChanges()
        for member in object {
            if case .string(let s) = member.value, !s.isEmpty, !Redactor.isTemplate(s), !Redactor.isFingerprint(s) {
                local.insert(.secrets)
                members.append((member.key, .string(Redactor.fingerprint(s))))
            } else {
                members.append((member.key, json.sanitize(member.value, &local)))
            }
        }
        guard !local.isEmpty else { return .text(value) }
        changes.formUnion(local)
        return .text(JSONValue.object(JSONObject(members)).jsonText)
    }

    private func withheld(_ value: String, _ changes: inout CellChanges) -> CellValue {
        changes.insert(.withheld)
        return .text(RowSanitizer.placeholder(bytes: value.utf8.count))
    }

    /// What replaces unparseable content: plain words, and not JSON (readers still warn).
    static func placeholder(bytes: Int) -> String {
        "withheld by sanitize: \(bytes) bytes that are not valid JSON"
    }

    /// "lat", "lon", "lng" in any case: a broken document that may hold a position.
    private func mentionsPosition(_ value: String) -> Bool {
        let lowered = value.lowercased()
        return lowered.contains("lat") || lowered.contains("lon") || lowered.contains("lng")
    }

    /// Bytes with every learned secret (in any form) and every JWT replaced by its fingerprint.
    private func scrub(blob bytes: [UInt8], _ changes: inout CellChanges) -> [UInt8] {
        let search = text.search
        var out = bytes.withUnsafeBufferPointer { search.fingerprintingHits(in: $0) } ?? bytes
        if Redactor.contains(bytes: out, "eyJ") { out = Redactor.scrubJWTs(bytes: out) }
        if out != bytes { changes.insert(.secrets) }
        return out
    }
}
