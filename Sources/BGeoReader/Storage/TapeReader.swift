import Foundation

/// Reads back a `TapeWriter`'s records in order, through a 1 MiB buffer. Each record is handed
/// over as a `TapeRecordReader` valid until the next one is read.
package final class TapeReader {
    package let path: String
    private let descriptor: Int32
    // Used by the inlined `next` (records are read one by one, from other modules).
    @exclusivity(unchecked) @usableFromInline var buffer: UnsafeMutableRawPointer
    private var capacity: Int
    @exclusivity(unchecked) @usableFromInline var start = 0
    @exclusivity(unchecked) @usableFromInline var end = 0
    private var atEnd = false
    /// Bytes read from the file so far.
    private var offset = 0
    /// The feed of a tape still being written: at the end of what is there, wait for more.
    private let follow: LiveFeed?
    package private(set) var failure: WorkFileError?

    package init(path: String, follow: LiveFeed? = nil) throws(WorkFileError) {
        self.path = path
        self.follow = follow
        descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw .fromErrno(path) }
        capacity = TapeWriter.flushSize
        buffer = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 16)
        #if os(Linux)
        _ = posix_fadvise(descriptor, 0, 0, Int32(POSIX_FADV_SEQUENTIAL))
        #endif
    }

    deinit {
        buffer.deallocate()
        close(descriptor)
    }

    /// The next record, or nil at the end of the tape (or at a read error, kept in `failure`).
    @inlinable @inline(__always) package func next() -> TapeRecordReader? {
        if end - start < 4 || end - start < 4 + Int(buffer.loadUnaligned(fromByteOffset: start, as: UInt32.self)) {
            guard refill() else { return nil }
        }
        let length = Int(buffer.loadUnaligned(fromByteOffset: start, as: UInt32.self))
        let record = TapeRecordReader(base: UnsafeRawPointer(buffer + start + 4), count: length)
        start += 4 + length
        return record
    }

    /// Moves the unread bytes to the front and reads more until a whole record is buffered.
    @usableFromInline func refill() -> Bool {
        while true {
            let available = end - start
            if available >= 4 {
                let needed = 4 + Int(buffer.loadUnaligned(fromByteOffset: start, as: UInt32.self))
                if available >= needed { return true }
                if needed > capacity { grow(needed) }
            }
            if atEnd { return false }
            if start > 0 {
                if available > 0 { buffer.copyMemory(from: buffer + start, byteCount: available) }
                start = 0
                end = available
            }
            let n = read(descriptor, buffer + end, capacity - end)
            if n < 0 {
                if errno == EINTR { continue }
                failure = .fromErrno(path)
                atEnd = true
                return false
            }
            if n > 0 {
                end += n
                offset += n
            } else if let follow, follow.waitForMore(than: offset) {
                continue
            } else {
                atEnd = true
            }
        }
    }

    private func grow(_ needed: Int) {
        var newCapacity = capacity
        while newCapacity < needed { newCapacity *= 2 }
        let bigger = UnsafeMutableRawPointer.allocate(byteCount: newCapacity, alignment: 16)
        bigger.copyMemory(from: buffer + start, byteCount: end - start)
        buffer.deallocate()
        buffer = bigger
        capacity = newCapacity
        end -= start
        start = 0
    }
}

/// The fields of one tape record, read in the order they were written.
package struct TapeRecordReader {
    package let base: UnsafeRawPointer
    package let count: Int
    @usableFromInline var offset = 0

    @inlinable @inline(__always) package init(base: UnsafeRawPointer, count: Int) {
        self.base = base
        self.count = count
    }

    @inlinable @inline(__always) package mutating func double() -> Double {
        defer { offset += 8 }
        return Double(bitPattern: base.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
    }

    @inlinable @inline(__always) package mutating func int64() -> Int64 {
        defer { offset += 8 }
        return base.loadUnaligned(fromByteOffset: offset, as: Int64.self)
    }

    @inlinable @inline(__always) package mutating func uint8() -> UInt8 {
        defer { offset += 1 }
        return base.load(fromByteOffset: offset, as: UInt8.self)
    }

    @inlinable @inline(__always) package mutating func uint16() -> UInt16 {
        defer { offset += 2 }
        return base.loadUnaligned(fromByteOffset: offset, as: UInt16.self)
    }

    /// A byte string, valid while the record is.
    @inlinable @inline(__always) package mutating func bytes() -> UnsafeRawBufferPointer {
        let length = Int(base.loadUnaligned(fromByteOffset: offset, as: UInt32.self))
        defer { offset += 4 + length }
        return UnsafeRawBufferPointer(start: base + offset + 4, count: length)
    }

    /// A string written with `TapeWriter.put(_: String)` (valid UTF-8 by construction).
    @inlinable @inline(__always) package mutating func string() -> String {
        let raw = bytes()
        guard raw.count > 0 else { return "" }
        return String(decoding: raw.bindMemory(to: UInt8.self), as: UTF8.self)
    }

    /// Skips a byte string.
    @inlinable @inline(__always) package mutating func skipBytes() {
        let length = Int(base.loadUnaligned(fromByteOffset: offset, as: UInt32.self))
        offset += 4 + length
    }
}
