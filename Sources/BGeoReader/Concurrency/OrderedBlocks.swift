/// Output made of independent blocks (the elements of a long array in a JSON document), made two
/// at a time — the later one on a second thread while this one makes the earlier where it goes —
/// and written in order, so the bytes are those made one block after the other. The one place
/// output is made on two threads; one thread where `ScanThreading` allows no second (fleet's
/// analyses).
package enum OrderedBlocks {
    /// Makes the blocks of `0..<count`, `blockSize` items each, in order: `here` makes a block on
    /// this thread and writes it; `apart` makes one into bytes on the second thread, which `take`
    /// then writes. The second thread's block is always waited for, even when writing throws: no
    /// thread outlives the call.
    package static func make(count: Int, blockSize: Int, apart: @escaping @Sendable (Range<Int>) -> [UInt8],
                             here: (Range<Int>) throws -> Void, take: ([UInt8]) throws -> Void) throws {
        precondition(blockSize > 0)
        var start = 0
        while start < count {
            let first = start..<min(start + blockSize, count)
            let second = first.upperBound..<min(first.upperBound + blockSize, count)
            start = second.upperBound
            guard !second.isEmpty, ScanThreading.allowsSecondThread else {
                try here(first)
                if !second.isEmpty { try here(second) }
                continue
            }
            let later = BackgroundWork { apart(second) }
            do {
                try here(first)
            } catch {
                _ = later.take()
                throw error
            }
            try take(later.take())
        }
    }
}
