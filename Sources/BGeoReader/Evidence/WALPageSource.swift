import Foundation

extension WALCheck {
    /// The database as the WAL would make it: each page from its newest committed frame, else from
    /// the main file (a page past the main file's end is unknown, not evidence of anything: the
    /// main file may be cut). Used only to judge whether the WAL's pages fit the main file's.
    struct PageSource {
        let wal: Int32
        let latest: [UInt32: Int64]
        let mainPath: String
        let pageSize: Int
        let databasePages: UInt32

        /// At most this many interior pages are checked, each with at most this many children.
        static let interiorLimit = 4096
        static let childLimit = 512

        /// Why the WAL does not fit the main file, or nil when nothing says so.
        func mismatch(main: DatabaseHeader) -> String? {
            let mainFD = open(mainPath, O_RDONLY | O_CLOEXEC)
            guard mainFD >= 0 else { return nil }
            defer { close(mainFD) }
            var info = stat()
            let mainPages = fstat(mainFD, &info) == 0 ? UInt32(clamping: Int64(info.st_size) / Int64(pageSize)) : 0
            func page(_ number: UInt32) -> [UInt8]? {
                guard number > 0, number <= databasePages else { return nil }
                var buffer = [UInt8](repeating: 0, count: pageSize)
                if let offset = latest[number] {
                    return WALCheck.read(wal, &buffer, offset, pageSize) ? buffer : nil
                }
                guard number <= mainPages else { return nil }
                return WALCheck.read(mainFD, &buffer, Int64(number - 1) * Int64(pageSize), pageSize) ? buffer : nil
            }
            if latest[1] != nil, let first = page(1), let reason = pageOneMismatch(first, main: main) { return reason }
            var checked = 0
            for number in latest.keys.sorted() {
                guard checked < PageSource.interiorLimit, let image = page(number) else { continue }
                let node = BTreePage(image, number: number)
                guard let type = node.type, type == 2 || type == 5 else { continue }
                checked += 1
                if let reason = childMismatch(node, page: page) { return reason }
            }
            return nil
        }

        /// Page 1 of another database: its stable header fields differ, or its schema is older.
        private func pageOneMismatch(_ image: [UInt8], main: DatabaseHeader) -> String? {
            if let range = main.stableMismatch(image) {
                return "its page 1 has another database's header (bytes \(range.lowerBound)–\(range.upperBound - 1) differ)"
            }
            let walCookie = DatabaseHeader.read32(image, 40), mainCookie = DatabaseHeader.read32(main.firstPage, 40)
            if walCookie < mainCookie {
                return "its schema (version \(walCookie)) is older than the main file's (\(mainCookie)), so it belongs to another database"
            }
            return nil
        }

        /// An interior page whose children are of the wrong kind, or hold row ids outside its keys.
        private func childMismatch(_ node: BTreePage, page: (UInt32) -> [UInt8]?) -> String? {
            guard let children = node.children() else {
                return "its page \(node.number) is not a readable b-tree page"
            }
            var lowerKey: Int64?  // keys of the child must be > lowerKey and ≤ upperKey
            for child in children.prefix(PageSource.childLimit) {
                defer { lowerKey = child.key ?? lowerKey }
                guard let image = page(child.page) else { continue }  // past the main file's end: unknown
                let sub = BTreePage(image, number: child.page)
                let expected: Set<UInt8> = node.type == 5 ? [5, 13] : [2, 10]
                guard let type = sub.type, expected.contains(type) else {
                    return "its page \(node.number) points at page \(child.page), which in the main file is not a page of that b-tree"
                }
                guard node.type == 5, let keys = sub.keyRange(), keys.count > 0 else { continue }
                let tooLow = lowerKey.map { keys.first <= $0 } ?? false
                let tooHigh = child.key.map { keys.last > $0 } ?? false
                if tooLow || tooHigh {
                    return "its page \(node.number) points at page \(child.page), whose rows (ids \(keys.first)…\(keys.last)) "
                        + "do not belong there, so its pages do not fit the main file's"
                }
            }
            return nil
        }
    }
}

/// Just enough of SQLite's b-tree page format (https://www.sqlite.org/fileformat2.html#b_tree_pages)
/// to follow an interior page to its children and read a table page's first and last row id.
/// Every read is bounds-checked: the bytes may be anything.
struct BTreePage {
    let bytes: [UInt8]
    let number: UInt32
    /// Page 1 starts its b-tree header after the 100-byte file header.
    var headerStart: Int { number == 1 ? 100 : 0 }

    init(_ bytes: [UInt8], number: UInt32) {
        self.bytes = bytes
        self.number = number
    }

    /// 2 / 5: index / table interior; 10 / 13: index / table leaf; nil for anything else.
    var type: UInt8? {
        guard headerStart < bytes.count else { return nil }
        let t = bytes[headerStart]
        return [2, 5, 10, 13].contains(t) ? t : nil
    }

    private func u16(_ offset: Int) -> Int? {
        guard offset >= 0, offset + 2 <= bytes.count else { return nil }
        return Int(bytes[offset]) << 8 | Int(bytes[offset + 1])
    }

    private func u32(_ offset: Int) -> UInt32? {
        guard offset >= 0, offset + 4 <= bytes.count else { return nil }
        return DatabaseHeader.read32(bytes, offset)
    }

    /// SQLite's variable-length integer at `offset` (1–9 bytes), with its length.
    private func varint(_ offset: Int) -> (value: Int64, length: Int)? {
        var value: UInt64 = 0
        for i in 0..<9 {
            guard offset + i < bytes.count else { return nil }
            let byte = bytes[offset + i]
            if i == 8 { return (Int64(bitPattern: value << 8 | UInt64(byte)), 9) }
            value = value << 7 | UInt64(byte & 0x7F)
            if byte & 0x80 == 0 { return (Int64(bitPattern: value), i + 1) }
        }
        return nil
    }

    /// Offsets of the cells, in key order.
    private func cellOffsets() -> [Int]? {
        guard let type, let count = u16(headerStart + 3) else { return nil }
        let arrayStart = headerStart + (type == 2 || type == 5 ? 12 : 8)
        var offsets: [Int] = []
        offsets.reserveCapacity(count)
        for i in 0..<count {
            guard let offset = u16(arrayStart + 2 * i), offset < bytes.count, offset >= arrayStart else { return nil }
            offsets.append(offset)
        }
        return offsets
    }

    /// An interior page's children in key order, each with the key that bounds it from above
    /// (table pages; nil for index pages and for the right-most child).
    func children() -> [(page: UInt32, key: Int64?)]? {
        guard let type, type == 2 || type == 5, let offsets = cellOffsets(), let right = u32(headerStart + 8) else { return nil }
        var out: [(page: UInt32, key: Int64?)] = []
        for offset in offsets {
            guard let child = u32(offset) else { return nil }
            var key: Int64?
            if type == 5 {
                guard let k = varint(offset + 4) else { return nil }
                key = k.value
            }
            out.append((child, key))
        }
        out.append((right, nil))
        return out
    }

    /// First and last row id of a table page (leaf: its rows; interior: its keys).
    func keyRange() -> (first: Int64, last: Int64, count: Int)? {
        guard let type, type == 5 || type == 13, let offsets = cellOffsets() else { return nil }
        guard let first = offsets.first, let last = offsets.last else { return (0, 0, 0) }
        func key(_ offset: Int) -> Int64? {
            if type == 5 { return varint(offset + 4)?.value }
            guard let payload = varint(offset) else { return nil }
            return varint(offset + payload.length)?.value
        }
        guard let a = key(first), let b = key(last) else { return nil }
        return (a, b, offsets.count)
    }
}
