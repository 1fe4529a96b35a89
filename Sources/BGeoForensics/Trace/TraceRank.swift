import BGeoReader

/// Where a fix stands in the order the in-memory trace builders append fixes: the queue's fixes
/// by row (segment 0), then the fixes the log adds, by log row (1), then — complete trace only —
/// filter.adjust lines that matched no accepted fix (2). The recorded trace breaks time ties by
/// it; the complete trace starts each tie group in it before ordering by `Fix.tieOrder`.
struct TraceRank: Comparable, Sendable {
    var segment: UInt8
    var id: Int64

    static func queue(_ rowId: Int64) -> TraceRank { TraceRank(segment: 0, id: rowId) }
    static func log(_ logId: Int64) -> TraceRank { TraceRank(segment: 1, id: logId) }
    static func lateAdjust(_ logId: Int64) -> TraceRank { TraceRank(segment: 2, id: logId) }

    static func < (a: TraceRank, b: TraceRank) -> Bool { a.segment != b.segment ? a.segment < b.segment : a.id < b.id }
}

/// A fix not yet placed in the trace (the assembler's waiting slot, for either trace's output): its time, its rank, and whether it is a filter.adjust
/// line that may still fold into the accepted fix of its millisecond.
struct Unplaced<Output> {
    var time: Double
    var rank: TraceRank
    var output: Output
    var isAdjustLine = false

    /// The millisecond an adjusted fix is matched by (as the in-memory merge rounds it).
    var millisecond: Int64 { Unplaced.millisecond(time) }

    @inline(__always) static func millisecond(_ time: Double) -> Int64 { Int64((time * 1000).rounded()) }

    @inline(__always) static func before(_ a: Unplaced, _ b: Unplaced) -> Bool {
        a.time != b.time ? a.time < b.time : a.rank < b.rank
    }

    /// Where the fix waits in the assembler's queue.
    var key: PendingKey { PendingKey(time: time, rank: rank) }
}

/// A pending fix's place: (time, rank), the order `Unplaced.before` gives.
struct PendingKey: Comparable {
    var time: Double
    var rank: TraceRank

    @inline(__always) static func < (a: PendingKey, b: PendingKey) -> Bool {
        a.time != b.time ? a.time < b.time : a.rank < b.rank
    }
}

extension Unplaced: SpoolRecord where Output: SpoolRecord {
    var spoolKey: SpoolKey { SpoolKey(time: time, sequence: rank.id) }

    func write(to sink: some TapeSink) {
        sink.put(time)
        sink.put(rank.segment)
        sink.put(rank.id)
        sink.put(UInt8(isAdjustLine ? 1 : 0))
        output.write(to: sink)
    }

    init(from record: inout TapeRecordReader) {
        time = record.double()
        rank = TraceRank(segment: record.uint8(), id: record.int64())
        isAdjustLine = record.uint8() == 1
        output = Output(from: &record)
    }

    /// Orders spilled fixes like `before`.
    var rankedKey: SpillKey {
        var key = SpillKey()
        key.append(time)
        key.append(UInt64(rank.segment))
        key.append(rank.id)
        return key
    }
}
