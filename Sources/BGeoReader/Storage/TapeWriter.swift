import Foundation

/// Appends length-prefixed binary records to a working file through a 1 MiB buffer: the
/// on-disk form of a stream too long to hold (a sorted run of fixes, the assembled trace).
/// Fields are written in the machine's byte order — a tape is read back by the process that
/// wrote it, never shipped. A write error is kept and thrown by `finish`, so the hot path has
/// no `throws`.
package final class TapeWriter: TapeSink {
    package let path: String
    private let descriptor: Int32
    // Used by the inlined writes (fields are put per record, from other modules).
    @exclusivity(unchecked) @usableFromInline var buffer: UnsafeMutableRawPointer
    @exclusivity(unchecked) @usableFromInline var capacity: Int
    @exclusivity(unchecked) @usableFromInline var used = 0
    @exclusivity(unchecked) @usableFromInline var recordStart = -1
    private var failure: WorkFileError?
    /// Records written so far.
    package private(set) var records = 0
    /// Bytes written so far (records and their length prefixes).
    package private(set) var bytes = 0
    /// Bytes gathered before a write (and a reader's buffer): a report has six tapes open at
    /// once and three read, so 1 MB was 15 MB of its peak (stop 51); 256 kB writes cost no more.
    package static let flushSize = 1 << 18
    /// Told how much of the tape is on disk after each flush (a live spool run's follower).
    package var feed: LiveFeed?

    package init(path: String) throws(WorkFileError) {
        self.path = path
        descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw .fromErrno(path) }
        capacity = TapeWriter.flushSize * 2
        buffer = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 16)
    }

    deinit {
        buffer.deallocate()
        if descriptor >= 0 { close(descriptor) }
    }

    /// Starts a record; end it with `endRecord()`.
    @inlinable @inline(__always) package func beginRecord() {
        reserve(4)
        recordStart = used
        used += 4
    }

    /// Ends the record: patches its length and flushes a full buffer.
    @inline(__always) package func endRecord() {
        let length = UInt32(used - recordStart - 4)
        buffer.storeBytes(of: length, toByteOffset: recordStart, as: UInt32.self)
        records += 1
        recordStart = -1
        if used >= TapeWriter.flushSize { flush() }
    }

    @inlinable @inline(__always) func reserve(_ count: Int) {
        if used + count > capacity { grow(used + count) }
    }

    @usableFromInline func grow(_ needed: Int) {
        var newCapacity = capacity
        while newCapacity < needed { newCapacity *= 2 }
        let bigger = UnsafeMutableRawPointer.allocate(byteCount: newCapacity, alignment: 16)
        bigger.copyMemory(from: buffer, byteCount: used)
        buffer.deallocate()
        buffer = bigger
        capacity = newCapacity
    }

    @inlinable @inline(__always) package func put(_ value: Double) {
        reserve(8)
        buffer.storeBytes(of: value.bitPattern, toByteOffset: used, as: UInt64.self)
        used += 8
    }

    @inlinable @inline(__always) package func put(_ value: Int64) {
        reserve(8)
        buffer.storeBytes(of: value, toByteOffset: used, as: Int64.self)
        used += 8
    }

    @inlinable @inline(__always) package func put(_ value: UInt8) {
        reserve(1)
        buffer.storeBytes(of: value, toByteOffset: used, as: UInt8.self)
        used += 1
    }

    @inlinable @inline(__always) package func put(_ value: UInt16) {
        reserve(2)
        buffer.storeBytes(of: value, toByteOffset: used, as: UInt16.self)
        used += 2
    }

    /// A byte string: its length (up to 4 GiB) then its bytes.
    @inlinable @inline(__always) package func put(bytes: UnsafeRawBufferPointer) {
        reserve(4 + bytes.count)
        buffer.storeBytes(of: UInt32(bytes.count), toByteOffset: used, as: UInt32.self)
        used += 4
        if let base = bytes.baseAddress, bytes.count > 0 {
            (buffer + used).copyMemory(from: base, byteCount: bytes.count)
        }
        used += bytes.count
    }

    /// Writes the complete records buffered so far to the file.
    private func flush() {
        let complete = recordStart >= 0 ? recordStart : used
        guard complete > 0 else { return }
        if failure == nil {
            var written = 0
            while written < complete {
                let n = write(descriptor, buffer + written, complete - written)
                if n < 0 {
                    if errno == EINTR { continue }
                    failure = .fromErrno(path)
                    break
                }
                written += n
            }
        }
        bytes += complete
        if failure == nil { feed?.publish(bytes) }
        let rest = used - complete
        if rest > 0 { buffer.copyMemory(from: buffer + complete, byteCount: rest) }
        used = rest
        if recordStart >= 0 { recordStart = 0 }
    }

    /// Flushes everything; throws the first write error of the tape's life.
    package func finish() throws(WorkFileError) {
        flush()
        if let failure { throw failure }
    }
}

/// Where records are encoded: a tape file, or bytes in memory (a spilled row's payload).
package protocol TapeSink: AnyObject {
    func put(_ value: Double)
    func put(_ value: Int64)
    func put(_ value: UInt8)
    func put(_ value: UInt16)
    func put(bytes: UnsafeRawBufferPointer)
}

extension TapeSink {
    /// A string as its UTF-8 bytes.
    @inlinable @inline(__always) package func put(_ text: String) {
        if text.utf8.withContiguousStorageIfAvailable({ put(bytes: UnsafeRawBufferPointer($0)) }) != nil { return }
        var text = text
        text.withUTF8 { put(bytes: UnsafeRawBufferPointer($0)) }
    }
}

/// Encodes one record into memory (for a spill table row).
package final class ByteSink: TapeSink {
    /// The record so far (set by the inlined writes only).
    @exclusivity(unchecked) @usableFromInline package internal(set) var bytes: [UInt8] = []

    package func reset() { bytes.removeAll(keepingCapacity: true) }
    @inlinable @inline(__always) package func put(_ value: Double) { withUnsafeBytes(of: value.bitPattern) { bytes.append(contentsOf: $0) } }
    @inlinable @inline(__always) package func put(_ value: Int64) { withUnsafeBytes(of: value) { bytes.append(contentsOf: $0) } }
    @inlinable @inline(__always) package func put(_ value: UInt8) { bytes.append(value) }
    @inlinable @inline(__always) package func put(_ value: UInt16) { withUnsafeBytes(of: value) { bytes.append(contentsOf: $0) } }
    @inline(__always) package func put(bytes raw: UnsafeRawBufferPointer) {
        withUnsafeBytes(of: UInt32(raw.count)) { bytes.append(contentsOf: $0) }
        bytes.append(contentsOf: raw)
    }
}
