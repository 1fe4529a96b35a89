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

/// An insertion-ordered JSON object. Lookups are linear: SDK objects are small.
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
