import Foundation
import BGeoSQLite

extension BTreePage {
    /// The rows of a table leaf page (type 13): each cell's row id and its record's values, the
    /// payload followed into its overflow pages (https://www.sqlite.org/fileformat2.html#record_format).
    /// A cell that cannot be decoded is left out; `page` reads another page of the file.
    func tableLeafRows(usableSize: Int, page: (UInt32) -> [UInt8]?) -> [(rowid: Int64, values: [SQLValue])] {
        guard type == 13, let offsets = cellOffsetsForRecords() else { return [] }
        var rows: [(rowid: Int64, values: [SQLValue])] = []
        for offset in offsets {
            guard let size = varintAt(offset), size.value >= 0, size.value < 1 << 30,
                  let rowid = varintAt(offset + size.length) else { continue }
            let payloadStart = offset + size.length + rowid.length
            guard let payload = BTreePage.payload(of: bytes, at: payloadStart, size: Int(size.value), usableSize: usableSize, page: page),
                  let values = BTreePage.record(payload) else { continue }
            rows.append((rowid.value, values))
        }
        return rows
    }

    private func cellOffsetsForRecords() -> [Int]? {
        guard let count = u16At(headerStart + 3) else { return nil }
        let arrayStart = headerStart + 8
        var offsets: [Int] = []
        for i in 0..<count {
            guard let offset = u16At(arrayStart + 2 * i), offset >= arrayStart, offset < bytes.count else { return nil }
            offsets.append(offset)
        }
        return offsets
    }

    private func u16At(_ offset: Int) -> Int? {
        guard offset >= 0, offset + 2 <= bytes.count else { return nil }
        return Int(bytes[offset]) << 8 | Int(bytes[offset + 1])
    }

    private func varintAt(_ offset: Int) -> (value: Int64, length: Int)? { BTreePage.varint(bytes, offset) }

    /// SQLite's variable-length integer in `bytes` at `offset` (1–9 bytes), with its length.
    static func varint(_ bytes: [UInt8], _ offset: Int) -> (value: Int64, length: Int)? {
        var value: UInt64 = 0
        for i in 0..<9 {
            guard offset + i >= 0, offset + i < bytes.count else { return nil }
            let byte = bytes[offset + i]
            if i == 8 { return (Int64(bitPattern: value << 8 | UInt64(byte)), 9) }
            value = value << 7 | UInt64(byte & 0x7F)
            if byte & 0x80 == 0 { return (Int64(bitPattern: value), i + 1) }
        }
        return nil
    }

    /// A table-leaf cell's whole payload: what the page holds, then the overflow chain.
    static func payload(of bytes: [UInt8], at start: Int, size: Int, usableSize: Int,
                        page: (UInt32) -> [UInt8]?) -> [UInt8]? {
        let maxLocal = usableSize - 35
        let minLocal = (usableSize - 12) * 32 / 255 - 23
        var local = size
        if size > maxLocal {
            let k = minLocal + (size - minLocal) % (usableSize - 4)
            local = k <= maxLocal ? k : minLocal
        }
        guard local >= 0, start + local <= bytes.count else { return nil }
        var payload = Array(bytes[start..<(start + local)])
        guard local < size else { return payload }
        guard start + local + 4 <= bytes.count else { return nil }
        var next = DatabaseHeader.read32(bytes, start + local)
        var hops = 0
        while payload.count < size {
            hops += 1
            guard next != 0, hops <= size / max(1, usableSize - 4) + 2, let overflow = page(next), overflow.count >= 4 else { return nil }
            let take = min(size - payload.count, min(usableSize, overflow.count) - 4)
            guard take > 0 else { return nil }
            payload += overflow[4..<(4 + take)]
            next = DatabaseHeader.read32(overflow, 0)
        }
        return payload
    }

    /// The values of a record (header of serial types, then the values); nil when malformed.
    static func record(_ payload: [UInt8]) -> [SQLValue]? {
        guard let header = varint(payload, 0), header.value >= Int64(header.length), header.value <= Int64(payload.count) else { return nil }
        var types: [Int64] = []
        var at = header.length
        while at < Int(header.value) {
            guard let type = varint(payload, at) else { return nil }
            types.append(type.value)
            at += type.length
        }
        var body = Int(header.value)
        var values: [SQLValue] = []
        for type in types {
            func integer(_ count: Int) -> SQLValue? {
                guard body + count <= payload.count else { return nil }
                var v = Int64(Int8(bitPattern: payload[body]))
                for i in 1..<count { v = v << 8 | Int64(payload[body + i]) }
                body += count
                return .integer(v)
            }
            switch type {
            case 0: values.append(.null)
            case 1: guard let v = integer(1) else { return nil }; values.append(v)
            case 2: guard let v = integer(2) else { return nil }; values.append(v)
            case 3: guard let v = integer(3) else { return nil }; values.append(v)
            case 4: guard let v = integer(4) else { return nil }; values.append(v)
            case 5: guard let v = integer(6) else { return nil }; values.append(v)
            case 6: guard let v = integer(8) else { return nil }; values.append(v)
            case 7:
                guard case .integer(let bits)? = integer(8) else { return nil }
                values.append(.real(Double(bitPattern: UInt64(bitPattern: bits))))
            case 8: values.append(.integer(0))
            case 9: values.append(.integer(1))
            case 10, 11: return nil
            default:
                guard type >= 12, type < 1 << 31 else { return nil }
                let length = Int((type - (type % 2 == 0 ? 12 : 13)) / 2)
                guard length >= 0, body + length <= payload.count else { return nil }
                let slice = Array(payload[body..<(body + length)])
                body += length
                // Blobs are kept as text too: the readers only ever ask for text.
                values.append(.text(String(decoding: slice, as: UTF8.self)))
            }
        }
        return values
    }
}
