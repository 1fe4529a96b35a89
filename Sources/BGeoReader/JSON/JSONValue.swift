/// A JSON value that keeps object key order, integer-vs-real distinction and every key,
/// so records can be re-serialised exactly as the SDK would upload them.
public enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    case int(Int64)
    case double(Double)
    case string(String)
    case array([JSONValue])
    case object(JSONObject)

    /// Member lookup on objects; nil for anything else or a missing key.
    public subscript(key: String) -> JSONValue? {
        if case .object(let object) = self { return object[key] }
        return nil
    }

    /// Follows a dotted path (`coords.latitude`).
    public func value(atPath path: String) -> JSONValue? {
        var current: JSONValue? = self
        for part in path.split(separator: ".") { current = current?[String(part)] }
        return current
    }

    public var stringValue: String? {
        if case .string(let s) = self { return s }
        return nil
    }

    /// Numbers as Double (ints widened); nil for non-numbers.
    public var doubleValue: Double? {
        switch self {
        case .int(let v): return Double(v)
        case .double(let v): return v
        default: return nil
        }
    }

    /// Integral numbers (a real with no fraction counts); nil otherwise.
    public var intValue: Int? {
        switch self {
        case .int(let v): return Int(v)
        case .double(let v) where v.rounded() == v && abs(v) < 9e15: return Int(v)
        default: return nil
        }
    }

    public var boolValue: Bool? {
        if case .bool(let b) = self { return b }
        return nil
    }

    public var objectValue: JSONObject? {
        if case .object(let o) = self { return o }
        return nil
    }

    public var arrayValue: [JSONValue]? {
        if case .array(let a) = self { return a }
        return nil
    }

    public var isNull: Bool { self == .null }
}

/// An insertion-ordered JSON object. Lookups by key are linear (SDK objects are small); copying
/// one member by member goes through `assign`, linear in the members whatever their number.
public struct JSONObject: Sendable, Equatable, Sequence {
    public private(set) var members: [(key: String, value: JSONValue)]

    public init(_ members: [(key: String, value: JSONValue)] = []) { self.members = members }

    public static func == (lhs: JSONObject, rhs: JSONObject) -> Bool {
        lhs.members.count == rhs.members.count
            && zip(lhs.members, rhs.members).allSatisfy { $0.key == $1.key && $0.value == $1.value }
    }

    public var keys: [String] { members.map(\.key) }
    public var count: Int { members.count }
    public var isEmpty: Bool { members.isEmpty }

    /// Get or set a member; setting an existing key keeps its position, nil removes it.
    public subscript(key: String) -> JSONValue? {
        get { members.first(where: { $0.key == key })?.value }
        set {
            if let index = members.firstIndex(where: { $0.key == key }) {
                if let newValue { members[index].value = newValue } else { members.remove(at: index) }
            } else if let newValue {
                members.append((key, newValue))
            }
        }
    }

    /// Sets each of `newMembers` in order as the subscript does (a key already here keeps its
    /// place and takes the new value), in time linear in the members: a dump's object may hold
    /// 100,000 keys, and a look-up along the members for each would make copying it quadratic.
    public mutating func assign(contentsOf newMembers: some Sequence<(key: String, value: JSONValue)>) {
        var places = KeyPlaces()
        for member in newMembers { set(member, places: &places) }
    }

    /// The members with their values transformed, each where it stands: a name written twice
    /// stays twice, so a copy (the redactor's) says what the object says — its readers, the
    /// subscript and `json_extract`, read the first. Collapsing a repeated name to its first
    /// place and last value made a redacted `{"status":500,…,"status":200}` read 200 (stop 51).
    public func mappingValues(_ transform: (_ key: String, _ value: JSONValue) -> JSONValue) -> JSONObject {
        JSONObject(members.map { (key: $0.key, value: transform($0.key, $0.value)) })
    }

    /// Where `assign` finds the keys already set: small objects (nearly all) look along their
    /// members, as the subscript does; past `linearLookupLimit`, a table holds each key's first
    /// place (where the subscript finds a key written twice), filled as members are added.
    private struct KeyPlaces {
        static let linearLookupLimit = 32
        var places: [String: Int] = [:]
        /// The members before this index are in `places`.
        var placed = 0
    }

    private mutating func set(_ member: (key: String, value: JSONValue), places table: inout KeyPlaces) {
        if members.count < KeyPlaces.linearLookupLimit {
            if let index = members.firstIndex(where: { $0.key == member.key }) {
                members[index].value = member.value
            } else {
                members.append(member)
            }
            return
        }
        while table.placed < members.count {
            let key = members[table.placed].key
            if table.places[key] == nil { table.places[key] = table.placed }
            table.placed += 1
        }
        if let index = table.places[member.key] {
            members[index].value = member.value
        } else {
            table.places[member.key] = members.count
            members.append(member)
            table.placed = members.count
        }
    }

    /// Case-insensitive lookup (SDK config keys arrive in varying case from old apps).
    public func valueIgnoringCase(_ key: String) -> JSONValue? {
        let lowered = key.lowercased()
        return members.first(where: { $0.key.lowercased() == lowered })?.value
    }

    public func makeIterator() -> IndexingIterator<[(key: String, value: JSONValue)]> {
        members.makeIterator()
    }
}

extension JSONValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral,
    ExpressibleByBooleanLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral, ExpressibleByNilLiteral
{
    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int64) { self = .int(value) }
    public init(floatLiteral value: Double) { self = .double(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(JSONObject(elements.map { (key: $0.0, value: $0.1) }))
    }
    public init(nilLiteral: ()) { self = .null }
}

extension JSONValue {
    /// Convenience for optional numbers/strings in output trees.
    public static func from(_ value: Double?) -> JSONValue { value.map { .double($0) } ?? .null }
    public static func from(_ value: Int?) -> JSONValue { value.map { .int(Int64($0)) } ?? .null }
    public static func from(_ value: String?) -> JSONValue { value.map { .string($0) } ?? .null }
    public static func from(_ value: Bool?) -> JSONValue { value.map { .bool($0) } ?? .null }
}

extension JSONObject: ExpressibleByDictionaryLiteral {
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self.init(elements.map { (key: $0.0, value: $0.1) })
    }
}
