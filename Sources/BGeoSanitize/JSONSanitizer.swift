import BGeoForensics
import Foundation
/// Sanitises one JSON document (a record, a log line's data, a state value) member by member:
/// - values under sensitive keys (tokens, secrets, api keys, `authorization.*`) → fingerprints,
///   exactly as the redactor shows them;
/// - every value of a `headers` / `refreshHeaders` object (but a few content-negotiation
///   headers) → fingerprints;
/// - `extras`, `params`, `diagnosticExtras` → the extras policy (keyed hash, drop or keep);
/// - positions (`latitude`/`longitude`, `raw_…`, `adjusted_…`, `lat`/`lng`) → the coordinate
///   transform, with `heading` turned when the transform turns the globe;
/// - every other string → `TextSanitizer` (a string holding a JSON document, such as a response
///   body, is sanitised as JSON first).
/// The same walk, in `.measure` mode, only records the longitudes the transform would move, so
/// the first pass measures exactly what the second moves.
final class JSONSanitizer {
    let text: TextSanitizer
    let extras: ExtrasPolicy
    let coordinates: CoordinateTransform
    private var hasher: KeyedHasher
    /// Filled in `.measure` mode (by the tree's walk or `measure(bytes:)`).
    var extent = CoordinateExtent()
    /// By the names' bytes (`ExactText`): `secret` + U+0307 is sensitive, the equal `secre` + U+1E6B not.
    private var keyKinds: [ExactText: KeyKind] = [:]
    /// Short texts that scrub to themselves (`scrubText`), by their bytes (`ExactText`): the
    /// verdict is the byte search's, and another spelling of a clean word may be a secret.
    private var cleanWords: Set<ExactText> = []

    /// `kind(of:)` of member names met as bytes (`KeyKindCache`).
    private let kindsByBytes = KeyKindCache()

    enum Mode { case sanitize, measure }

    init(text: TextSanitizer, extras: ExtrasPolicy, coordinates: CoordinateTransform, hasher: KeyedHasher) {
        self.text = text
        self.extras = extras
        self.coordinates = coordinates
        self.hasher = hasher
    }

    /// Keys holding free-form customer data.
    static let extrasKeys: Set<String> = ["extras", "params", "diagnosticextras"]

    // MARK: entry points

    func sanitize(_ value: JSONValue, _ changes: inout CellChanges) -> JSONValue {
        walk(value, &changes, .sanitize)
    }

    /// Records the longitudes `sanitize` would move (first pass).
    func measure(_ value: JSONValue) {
        var ignored = CellChanges()
        _ = walk(value, &ignored, .measure)
    }

    /// A value of customer data under the extras policy (an app line's message or data).
    func customerData(_ value: JSONValue, _ changes: inout CellChanges, _ mode: Mode = .sanitize) -> JSONValue {
        switch extras {
        case .keep: return walk(value, &changes, mode)
        case .hash where mode == .sanitize: return hashed(value, &changes)
        case .drop where mode == .sanitize:
            changes.insert(.extras)
            switch value {
            case .object: return .object(JSONObject())
            case .array: return .array([])
            default: return .null
            }
        default: return value
        }
    }

    /// An app line's free-text message under the extras policy (nil = dropped).
    func customerText(_ message: String, _ changes: inout CellChanges) -> String? {
        switch extras {
        case .keep: return text.scrub(message, &changes)
        case .hash:
            guard !message.isEmpty else { return message }
            changes.insert(.extras)
            return hasher.replacement(for: message)
        case .drop:
            changes.insert(.extras)
            return nil
        }
    }

    /// True when a text of these bytes needs nothing, known without making it a string
    /// (`TextSanitizer.leavesAsIs`: a plain token).
    func leavesAsIs(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool { text.leavesAsIs(bytes) }

    /// `TextSanitizer.scrub`, remembering short texts that need nothing: the same few words
    /// fill plain columns (`src`, `event`, `kind`) and values (`"walking"`, `"wifi"`) row after
    /// row, and the verdict depends only on the text (the redactor's secrets are fixed while
    /// rows are written). Up to 4,096 texts of 32 bytes or less.
    func scrubText(_ value: String, _ changes: inout CellChanges) -> String {
        var bytes = value
        if bytes.withUTF8({ leavesAsIs($0) }) { return value }
        let short = value.utf8.count <= 32
        if short, cleanWords.contains(ExactText(value)) { return value }
        var local = CellChanges()
        let scrubbed = text.scrub(value, &local)
        guard local.isEmpty else {
            changes.formUnion(local)
            return scrubbed
        }
        if short, cleanWords.count < 4_096 { cleanWords.insert(ExactText(value)) }
        return value
    }

    // MARK: the walk

    enum KeyKind {
        case plain, sensitive, headers, extras, heading
        case latitude(prefix: String)
        case longitude(prefix: String)
    }

    func kind(of key: String) -> KeyKind {
        if let known = keyKinds[ExactText(key)] { return known }
        let lowered = key.lowercased()
        let kind: KeyKind
        if Redactor.isSensitiveKey(key) {
            kind = .sensitive
        } else if SecretRules.isHeadersKey(key) {
            kind = .headers
        } else if JSONSanitizer.extrasKeys.contains(lowered) {
            kind = .extras
        } else if lowered == "heading" {
            kind = .heading
        } else if lowered == "lat" {
            kind = .latitude(prefix: "")
        } else if lowered == "lon" || lowered == "lng" {
            kind = .longitude(prefix: "")
        } else if lowered.hasSuffix("latitude") {
            kind = .latitude(prefix: String(lowered.dropLast("latitude".count)))
        } else if lowered.hasSuffix("longitude") {
            kind = .longitude(prefix: String(lowered.dropLast("longitude".count)))
        } else {
            kind = .plain
        }
        if keyKinds.count < 10_000 { keyKinds[ExactText(key)] = kind }
        return kind
    }

    /// `kind(of:)` of a member name read from a document's bytes (ASCII, no escape).
    func kind(of name: UnsafeBufferPointer<UInt8>) -> KeyKind {
        if let known = kindsByBytes.kind(of: name) { return known }
        let kind = kind(of: String(decoding: name, as: UTF8.self))
        kindsByBytes.store(kind, for: name)
        return kind
    }

    private func walk(_ value: JSONValue, _ changes: inout CellChanges, _ mode: Mode) -> JSONValue {
        switch value {
        case .object(let object): return .object(walkObject(object, &changes, mode))
        case .array(let elements): return .array(elements.map { walk($0, &changes, mode) })
        case .string(let s): return .string(walkString(s, &changes, mode))
        default: return value
        }
    }

    private func walkString(_ s: String, _ changes: inout CellChanges, _ mode: Mode) -> String {
        if let first = s.utf8.first, first == UInt8(ascii: "{") || first == UInt8(ascii: "["),
           let nested = try? JSONParser.parse(s) {
            var inner = CellChanges()
            let result = walk(nested, &inner, mode)
            guard mode == .sanitize, !inner.isEmpty else { return s }
            changes.formUnion(inner)
            return result.jsonText
        }
        return mode == .sanitize ? scrubText(s, &changes) : s
    }

    private func walkObject(_ object: JSONObject, _ changes: inout CellChanges, _ mode: Mode) -> JSONObject {
        var members: [(key: String, value: JSONValue)] = []
        members.reserveCapacity(object.count)
        var latitudes: [Position] = []
        var longitudes: [Position] = []
        var headings: [(index: Int, value: Double)] = []
        for member in object {
            var value = member.value
            switch kind(of: member.key) {
            case .sensitive where value.objectValue == nil:
                if mode == .sanitize { value = fingerprinted(member.key, value, &changes) }
            case .headers:
                if case .object(let headers) = value { value = .object(walkHeaders(headers, &changes, mode)) } else {
                    value = walk(value, &changes, mode)
                }
            case .extras:
                value = customerData(value, &changes, mode)
            case .latitude(let prefix) where value.doubleValue != nil:
                // Out-of-range values are not positions (the reader warns about them): left as they are.
                if let d = value.doubleValue, (-90.0...90.0).contains(d) { latitudes.append(Position(index: members.count, prefix: prefix, value: d)) }
            case .longitude(let prefix) where value.doubleValue != nil:
                if let d = value.doubleValue, (-180.0...180.0).contains(d) { longitudes.append(Position(index: members.count, prefix: prefix, value: d)) }
            case .heading where value.doubleValue != nil:
                if let d = value.doubleValue { headings.append((members.count, d)) }
            default:
                value = walk(value, &changes, mode)
            }
            members.append((member.key, value))
        }
        if mode == .measure {
            for longitude in longitudes { extent.add(longitude: longitude.value) }
        } else if !coordinates.isIdentity, !latitudes.isEmpty || !longitudes.isEmpty {
            moveCoordinates(&members, latitudes: latitudes, longitudes: longitudes, headings: headings, &changes)
        }
        return JSONObject(members)
    }

    /// A position member of an object: its index, its key's prefix (`raw_`, `adjusted_`…), its value.
    struct Position {
        let index: Int
        let prefix: String
        let value: Double
    }

    private func moveCoordinates(_ members: inout [(key: String, value: JSONValue)], latitudes: [Position],
                                 longitudes: [Position], headings: [(index: Int, value: Double)],
                                 _ changes: inout CellChanges) {
        let moved = movedValues(latitudes: latitudes, longitudes: longitudes, headings: headings)
        guard !moved.isEmpty else { return }
        changes.insert(.coordinates)
        for member in moved { members[member.index].value = .double(member.value) }
    }

    /// The values the transform gives an object's positions and headings, by member index: a
    /// longitude moves with the latitude of its prefix; headings turn only when a position moved.
    /// Empty when nothing moves. The tree's walk and the byte walk both apply these.
    func movedValues(latitudes: [Position], longitudes: [Position],
                     headings: [(index: Int, value: Double)]) -> [(index: Int, value: Double)] {
        var moved: [(index: Int, value: Double)] = []
        for longitude in longitudes {
            let pair = latitudes.first { $0.prefix == longitude.prefix }?.value
            let new = coordinates.longitude(longitude.value, latitude: pair)
            if new != longitude.value { moved.append((longitude.index, new)) }
        }
        for latitude in latitudes {
            let new = coordinates.latitude(latitude.value)
            if new != latitude.value { moved.append((latitude.index, new)) }
        }
        guard !moved.isEmpty else { return [] }
        for heading in headings {
            let turned = coordinates.heading(heading.value)
            if turned != heading.value { moved.append((heading.index, turned)) }
        }
        return moved
    }

    private func walkHeaders(_ headers: JSONObject, _ changes: inout CellChanges, _ mode: Mode) -> JSONObject {
        var members: [(key: String, value: JSONValue)] = []
        for header in headers {
            if mode == .sanitize, SecretRules.isSecretHeader(header.key), case .string(let s) = header.value,
               !s.isEmpty, !Redactor.isTemplate(s), !Redactor.isFingerprint(s) {
                changes.insert(.secrets)
                members.append((header.key, .string(Redactor.fingerprint(s))))
            } else if SecretRules.isSecretHeader(header.key), header.value.stringValue != nil {
                members.append(header)
            } else {
                members.append((header.key, walk(header.value, &changes, mode)))
            }
        }
        return JSONObject(members)
    }

    /// A sensitive member's value, fingerprinted by the redactor itself.
    private func fingerprinted(_ key: String, _ value: JSONValue, _ changes: inout CellChanges) -> JSONValue {
        let redacted = text.redactor.redact(.object(JSONObject([(key, value)])))[key] ?? value
        if redacted != value { changes.insert(.secrets) }
        return redacted
    }

    /// Keys kept, every value replaced by its keyed hash (a learned secret by its fingerprint).
    private func hashed(_ value: JSONValue, _ changes: inout CellChanges) -> JSONValue {
        switch value {
        case .null: return value
        case .object(let object):
            var members: [(key: String, value: JSONValue)] = []
            for member in object {
                if Redactor.isSensitiveKey(member.key), member.value.objectValue == nil {
                    members.append((member.key, fingerprinted(member.key, member.value, &changes)))
                } else {
                    members.append((member.key, hashed(member.value, &changes)))
                }
            }
            return .object(JSONObject(members))
        case .array(let elements): return .array(elements.map { hashed($0, &changes) })
        case .string(let s):
            if s.isEmpty { return value }
            return .string(hashed(string: s, &changes))
        default:
            return .string(hashed(literal: value.jsonText, &changes))
        }
    }

    /// A non-empty string of customer data under `hash`: a learned secret by its fingerprint,
    /// anything else by its keyed hash.
    func hashed(string s: String, _ changes: inout CellChanges) -> String {
        if text.isKnownSecret(s) {
            changes.insert(.secrets)
            return Redactor.fingerprint(s)
        }
        changes.insert(.extras)
        return hasher.replacement(for: s)
    }

    /// A number or boolean of customer data under `hash`, by the keyed hash of its JSON text.
    func hashed(literal jsonText: String, _ changes: inout CellChanges) -> String {
        changes.insert(.extras)
        return hasher.replacement(for: jsonText)
    }
}
