/// A uuid in canonical text form (8-4-4-4-12 lowercase hex digits, what the SDK writes) as 16
/// bytes: two words to hash and compare instead of a string. Two canonical strings are equal
/// exactly when their keys are; any other text (uppercase, braces, empty, hostile) has no key and
/// is grouped by its string.
package struct UUIDKey: Equatable, Sendable {
    package let high: UInt64
    package let low: UInt64

    init(high: UInt64, low: UInt64) {
        self.high = high
        self.low = low
    }

    /// The key of a canonical uuid; nil for any other text.
    package init?(_ uuid: String) {
        guard let key = uuid.utf8.withContiguousStorageIfAvailable({ UUIDKey.parse(UnsafeRawBufferPointer($0)) }) ?? nil
        else { return nil }
        self = key
    }

    /// Parses 36 bytes `xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx` of lowercase hex digits, eight digits
    /// at a time. The key packs the digits' values (injective, which is all a key needs; it is not
    /// the RFC 4122 byte order).
    static func parse(_ bytes: UnsafeRawBufferPointer) -> UUIDKey? {
        guard bytes.count == 36, let base = bytes.baseAddress else { return nil }
        let dash = UInt8(ascii: "-")
        guard base.load(fromByteOffset: 8, as: UInt8.self) == dash, base.load(fromByteOffset: 13, as: UInt8.self) == dash,
              base.load(fromByteOffset: 18, as: UInt8.self) == dash, base.load(fromByteOffset: 23, as: UInt8.self) == dash
        else { return nil }
        func word(_ offset: Int) -> UInt64 { base.loadUnaligned(fromByteOffset: offset, as: UInt64.self) }
        func half(_ offset: Int) -> UInt64 { UInt64(base.loadUnaligned(fromByteOffset: offset, as: UInt32.self)) }
        guard let a = digits(word(0)), let b = digits(half(9) | half(14) << 32),
              let c = digits(half(19) | half(24) << 32), let d = digits(word(28)) else { return nil }
        return UUIDKey(high: a | b << 4, low: c | d << 4)
    }

    /// The canonical text the key was parsed from (`parse` packs every digit, so it is invertible).
    package var text: String {
        String(unsafeUninitializedCapacity: 36) { out in
            let digits: StaticString = "0123456789abcdef"
            func put(_ position: Int, _ value: UInt64) { out[position] = digits.utf8Start[Int(value & 0xF)] }
            for k in 0..<8 {
                let h = high >> (8 * UInt64(k)), l = low >> (8 * UInt64(k))
                // Byte k of `high`: digit k, and in its high nibble digit k of the 9-12, 14-17 run;
                // of `low`: digit k of the 19-22, 24-27 run, and in its high nibble digit 28 + k.
                put(k, h)
                put(k < 4 ? 9 + k : 10 + k, h >> 4)
                put(k < 4 ? 19 + k : 20 + k, l)
                put(28 + k, l >> 4)
            }
            for dash in [8, 13, 18, 23] { out[dash] = UInt8(ascii: "-") }
            return 36
        }
    }

    /// The values (0–15, one per byte) of eight lowercase hex digits, or nil if any byte is not one.
    @inline(__always) private static func digits(_ text: UInt64) -> UInt64? {
        let letters = (text & 0x4040_4040_4040_4040) >> 6  // 1 in each byte at or above 0x40
        let values = (text & 0x0F0F_0F0F_0F0F_0F0F) &+ letters &* 9
        // Each value must be 0–15, and writing it back as a lowercase digit must give the byte.
        guard values & 0xF0F0_F0F0_F0F0_F0F0 == 0 else { return nil }
        let tens = ((values &+ 0x0606_0606_0606_0606) & 0x1010_1010_1010_1010) >> 4  // 1 where value ≥ 10
        let canonical = 0x3030_3030_3030_3030 &+ values &+ tens &* 0x27
        return canonical == text ? values : nil
    }

    /// A well-mixed 64-bit hash (the table's bucket); keys come from a dump, so both words count.
    @inline(__always) var hash: UInt64 {
        var h = high &* 0x9E37_79B9_7F4A_7C15 ^ (low &+ 0x632B_E59B_D9B4_E019)
        h ^= h >> 32
        h = h &* 0xD6E8_FEB8_6659_FD93
        h ^= h >> 32
        return h
    }
}

/// A map from canonical uuid keys to small integers, open addressing with linear probing and
/// backward-shift deletion (no tombstones): one probe sequence of 24-byte slots per lookup.
package struct UUIDKeyTable {
    private struct Slot {
        var high: UInt64 = 0
        var low: UInt64 = 0
        var value = -1
    }

    private var slots: [Slot]
    private var mask: Int
    private(set) var count = 0

    package init(capacity: Int = 1024) {
        var size = 16
        while size < capacity * 2 { size <<= 1 }
        slots = [Slot](repeating: Slot(), count: size)
        mask = size - 1
    }

    package func value(for key: UUIDKey) -> Int? {
        var i = Int(truncatingIfNeeded: key.hash) & mask
        return slots.withUnsafeBufferPointer { slots in
            while true {
                let slot = slots[i]
                if slot.value < 0 { return nil }
                if slot.high == key.high && slot.low == key.low { return slot.value }
                i = (i + 1) & mask
            }
        }
    }

    /// Sets the value of a key that is not in the table.
    package mutating func insert(_ key: UUIDKey, value: Int) {
        if (count + 1) * 2 > slots.count { grow() }
        var i = Int(truncatingIfNeeded: key.hash) & mask
        while slots[i].value >= 0 { i = (i + 1) & mask }
        slots[i] = Slot(high: key.high, low: key.low, value: value)
        count += 1
    }

    /// Removes a key (if present).
    package mutating func remove(_ key: UUIDKey) {
        var i = Int(truncatingIfNeeded: key.hash) & mask
        while true {
            if slots[i].value < 0 { return }
            if slots[i].high == key.high && slots[i].low == key.low { break }
            i = (i + 1) & mask
        }
        count -= 1
        // Backward shift: move later members of the probe run into the hole when their home allows.
        var hole = i
        var j = i
        while true {
            j = (j + 1) & mask
            let slot = slots[j]
            if slot.value < 0 { break }
            let home = Int(truncatingIfNeeded: UUIDKey(high: slot.high, low: slot.low).hash) & mask
            // The slot may fill the hole unless its home lies cyclically in (hole, j].
            let homeAfterHole = hole <= j ? (home > hole && home <= j) : (home > hole || home <= j)
            if !homeAfterHole {
                slots[hole] = slot
                hole = j
            }
        }
        slots[hole] = Slot()
    }

    private mutating func grow() {
        let old = slots
        slots = [Slot](repeating: Slot(), count: old.count * 2)
        mask = slots.count - 1
        count = 0
        for slot in old where slot.value >= 0 { insert(UUIDKey(high: slot.high, low: slot.low), value: slot.value) }
    }
}
