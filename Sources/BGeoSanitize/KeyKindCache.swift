import Foundation

/// The kinds of member names already met, looked up by the names' bytes: the byte walks read a
/// dozen names per row, the same few names in every row, and should neither build a string nor
/// retain an array for each. One entry per slot of a hash of the bytes, replaced on a
/// collision; names longer than `maxName` are not kept. The storage is raw memory this object
/// owns (one per `JSONSanitizer`, which stays on one thread).
final class KeyKindCache {
    private static let slots = 256
    private static let maxName = 48
    private let names: UnsafeMutablePointer<UInt8>
    /// Per slot: the name's length, -1 when empty.
    private let lengths: UnsafeMutablePointer<Int>
    private let kinds: UnsafeMutablePointer<JSONSanitizer.KeyKind>

    init() {
        names = .allocate(capacity: Self.slots * Self.maxName)
        lengths = .allocate(capacity: Self.slots)
        lengths.initialize(repeating: -1, count: Self.slots)
        kinds = .allocate(capacity: Self.slots)
        kinds.initialize(repeating: .plain, count: Self.slots)
    }

    deinit {
        names.deallocate()
        lengths.deallocate()
        kinds.deinitialize(count: Self.slots)
        kinds.deallocate()
    }

    private static func slot(_ name: UnsafeBufferPointer<UInt8>) -> Int {
        var hash: UInt32 = 2_166_136_261
        for byte in name { hash = (hash ^ UInt32(byte)) &* 16_777_619 }
        return Int(hash) & (slots - 1)
    }

    /// The kind stored for `name`, nil when it is not kept.
    func kind(of name: UnsafeBufferPointer<UInt8>) -> JSONSanitizer.KeyKind? {
        guard name.count <= Self.maxName else { return nil }
        let slot = Self.slot(name)
        guard lengths[slot] == name.count,
              name.isEmpty || memcmp(names + slot * Self.maxName, name.baseAddress!, name.count) == 0 else { return nil }
        return kinds[slot]
    }

    func store(_ kind: JSONSanitizer.KeyKind, for name: UnsafeBufferPointer<UInt8>) {
        guard name.count <= Self.maxName else { return }
        let slot = Self.slot(name)
        if let base = name.baseAddress { (names + slot * Self.maxName).update(from: base, count: name.count) }
        lengths[slot] = name.count
        kinds[slot] = kind
    }
}
