import Foundation
import Testing
@testable import BGeoReader
@testable import BGeoForensics

/// The streamed trace's fast structures against the plain ones they stand for: uuid keys against
/// string equality, the key table against a Dictionary, the run queue and the spool's in-order
/// path against sorting.
@Suite struct AssemblyStorageTests {
    struct Generator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        mutating func below(_ n: Int) -> Int { Int(next() % UInt64(n)) }
    }

    /// What "canonical" means, spelled out byte by byte.
    static func isCanonical(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard bytes.count == 36 else { return false }
        for (i, byte) in bytes.enumerated() {
            if [8, 13, 18, 23].contains(i) {
                if byte != UInt8(ascii: "-") { return false }
            } else if !(UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) && !(UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte) {
                return false
            }
        }
        return true
    }

    @Test func uuidKeysExistExactlyForCanonicalTextAndMatchStringEquality() {
        var random = Generator(state: 7)
        let alphabet = Array("0123456789abcdef".utf8)
        // Bytes one step off a digit on either side, other cases, other scripts.
        let intruders: [String] = ["/", ":", "`", "g", "A", "F", "G", "-", " ", "é", "\u{0}", "\u{7F}", "ÿ", "@", "{"]
        var canonical: [String] = []
        for round in 0..<4000 {
            var chars = (0..<36).map { i -> String in
                [8, 13, 18, 23].contains(i) ? "-" : String(UnicodeScalar(alphabet[random.below(16)]))
            }
            if round % 2 == 1 { chars[random.below(36)] = intruders[random.below(intruders.count)] }
            if round % 7 == 3 { chars.removeLast() }
            let text = chars.joined()
            let key = UUIDKey(text)
            #expect((key != nil) == AssemblyStorageTests.isCanonical(text), "\(text)")
            if key != nil { canonical.append(text) }
        }
        #expect(UUIDKey("d57d3d0b-77b8-4557-ae77-7f2938d7549e") != nil)
        #expect(UUIDKey("D57D3D0B-77B8-4557-AE77-7F2938D7549E") == nil)
        #expect(UUIDKey("{d57d3d0b-77b8-4557-ae77-7f2938d7549}") == nil)
        #expect(UUIDKey("") == nil)
        // Texts that differ in one digit have different keys; equal texts equal keys.
        for text in canonical.prefix(500) {
            var bytes = Array(text.utf8)
            let i = [0, 7, 9, 12, 14, 17, 19, 22, 24, 35][random.below(10)]
            bytes[i] = bytes[i] == UInt8(ascii: "0") ? UInt8(ascii: "f") : UInt8(ascii: "0")
            let other = String(decoding: bytes, as: UTF8.self)
            #expect(UUIDKey(text) != UUIDKey(other), "\(text) vs \(other)")
            #expect(UUIDKey(text) == UUIDKey(String(text.utf8.map { Character(UnicodeScalar($0)) })))
        }
        let keys = canonical.map { UUIDKey($0)! }
        #expect(Set(keys.map { "\($0.high)-\($0.low)" }).count == Set(canonical).count)
    }

    @Test func keyTableAgreesWithADictionary() {
        var random = Generator(state: 11)
        var table = UUIDKeyTable(capacity: 4)
        var reference: [String: Int] = [:]
        // A small pool so that probe runs collide, wrap around and shift back on removal.
        let pool = (0..<300).map { _ in UUIDKey(high: random.next() & 0xFFFF_0000_0000_00FF, low: random.next() % 7) }
        func name(_ k: UUIDKey) -> String { "\(k.high)-\(k.low)" }
        for step in 0..<60_000 {
            let key = pool[random.below(pool.count)]
            switch random.below(3) {
            case 0:
                if reference[name(key)] == nil {
                    table.insert(key, value: step)
                    reference[name(key)] = step
                }
            case 1:
                table.remove(key)
                reference[name(key)] = nil
            default:
                #expect(table.value(for: key) == reference[name(key)])
            }
            #expect(table.count == reference.count)
        }
        for key in pool { #expect(table.value(for: key) == reference[name(key)]) }
    }

    @Test(arguments: [0, 1, 5, 50] as [Int])
    func runQueuePopsInKeyOrder(disorderPercent: Int) {
        var random = Generator(state: UInt64(disorderPercent) + 3)
        var queue = RunQueue<SpoolKey, String>(capacity: 2)
        var held: [SpoolKey] = []
        var popped: [SpoolKey] = []
        var next: Int64 = 0
        for step in 0..<20_000 {
            next += 1
            let time = random.below(100) < disorderPercent ? Double(Int(next) - random.below(500)) : Double(next)
            let key = SpoolKey(time: time, sequence: Int64(step))
            queue.push("\(step)", key: key)
            held.append(key)
            if random.below(3) == 0 || queue.count > 300 {
                let smallest = held.min()!
                #expect(queue.minKey == smallest)
                let top = queue.pop()
                #expect(top.key == smallest && top.value == "\(top.key.sequence)")
                held.remove(at: held.firstIndex(of: smallest)!)
                popped.append(top.key)
            }
        }
        while !queue.isEmpty { popped.append(queue.pop().key) }
        #expect(popped.count == 20_000)
        #expect(queue.minKey == nil)
    }

    /// In order, reversed and shuffled input through a small window: the spool reads back sorted
    /// with every field, whether the records took the in-order run, the heap or the spill.
    @Test(arguments: ["in order", "reversed", "shuffled", "nearly in order"])
    func spoolReadsBackSortedWhateverTheOrder(order: String) throws {
        let dir = TestDirectory("spool-\(order.replacingOccurrences(of: " ", with: "-"))")
        var random = Generator(state: 5)
        var fixes: [Fix] = []
        for i in 0..<3000 {
            let time: Double = 1_700_000_000 + Double(i / 3)
            fixes.append(Fix(time: time, latitude: Double(i), longitude: -Double(i), source: .queue,
                             rowId: Int64(i), uuid: "uuid-\(i)", timestampText: "t\(i)", isRaw: false))
        }
        switch order {
        case "reversed": fixes.reverse()
        case "shuffled": fixes.shuffle(using: &random)
        case "nearly in order":
            for _ in 0..<200 { fixes.swapAt(random.below(fixes.count), random.below(fixes.count)) }
        default: break
        }
        let spool = SortedSpool<Fix>(folder: WorkFolder(path: dir.path), stem: "test", window: 16)
        for fix in fixes { spool.add(fix) }
        let source = try spool.finish()
        if order == "in order" { #expect(spool.spilled == 0) } else { #expect(spool.spilled > 0) }
        let reader = try source.reader()
        var out: [Fix] = []
        while let fix = reader.next() { out.append(fix) }
        #expect(reader.failure == nil)
        #expect(out.map(\.rowId) == (0..<3000).map { Int64($0) })
        for fix in out {
            let row = fix.rowId ?? -1
            #expect(fix.uuid == "uuid-\(row)" && fix.timestampText == "t\(row)")
            let time: Double = 1_700_000_000 + Double(row / 3)
            #expect(fix.latitude == Double(row) && fix.time == time)
        }
    }

    /// A finished spool with a spill is read by two threads at once (the report's map and charts
    /// walk one stored trace together): each pass opens the run and the spill for itself, so both
    /// read every record in order; the files go when the last holder lets go.
    @Test func aSpilledSourceIsReadOnTwoThreadsAtOnce() throws {
        let dir = TestDirectory("spool-two-threads")
        var fixes: [Fix] = (0..<4000).map { i in
            Fix(time: 1_700_000_000 + Double(i), latitude: Double(i), longitude: 0, source: .queue,
                rowId: Int64(i), uuid: "uuid-\(i)", timestampText: "t\(i)", isRaw: false)
        }
        fixes.reverse()
        let spool = SortedSpool<Fix>(folder: WorkFolder(path: dir.path), stem: "two", window: 16)
        for fix in fixes { spool.add(fix) }
        let source = try spool.finish()
        #expect(spool.spilled > 0)
        @Sendable func rowIds() -> [Int64] {
            guard let reader = try? source.reader() else { return [] }
            var ids: [Int64] = []
            while let fix = reader.next() { ids.append(fix.rowId ?? -1) }
            return reader.failure == nil ? ids : []
        }
        let other = BackgroundWork { rowIds() }
        let here = rowIds()
        let expected = (0..<4000).map { Int64($0) }
        #expect(here == expected)
        #expect(other.take() == expected)
    }

    /// A fix with its decision reads back from a tape as the report and the exports read it:
    /// a reason the engine logged that is none of the replay's, an empty uuid the dump states, an
    /// absent one, heading and altitude as recorded, the fix's source and row; the charts' partial
    /// read gives the same sample.
    @Test func decidedFixReadsBackAsWritten() throws {
        let dir = TestDirectory("spool-decided")
        func decided(_ i: Int, _ source: FixSource, reason: RejectReason? = nil, logged: String? = nil, uuid: String? = nil,
                     output: Double) -> DecidedFix {
            var fix = Fix(time: 1_700_000_000 + Double(i), latitude: Double(i), longitude: -Double(i), accuracy: i == 2 ? nil : 5,
                          speed: i == 3 ? nil : 2.5, recordedOdometer: i == 1 ? 1234.5 : nil, source: source,
                          rowId: source == .queue ? Int64(i) : nil, logId: source == .queue ? nil : Int64(100 + i),
                          uuid: uuid ?? "", recordedReason: reason, isRaw: source != .queue, isMoving: i == 1 ? true : nil)
            fix.headingOrNaN = i == 1 ? 370 : .nan
            fix.altitudeOrNaN = i == 1 ? -.infinity : .nan
            fix.statesEmptyUUID = uuid?.isEmpty == true
            fix.loggedReason = logged
            return DecidedFix(recorded: fix, outputLatitude: Double(i) + output, outputLongitude: -Double(i) - output)
        }
        let written = [
            decided(0, .queue, uuid: "", output: 0), decided(1, .logLocation, uuid: "a", output: 0.5),
            decided(2, .logReject, reason: .teleport, output: 0), decided(3, .logReject, logged: "<odd & \"text\">", uuid: "b", output: 0),
            decided(4, .logReject, logged: "", output: 0), decided(5, .logAdjust, output: 0.25),
            DecidedFix(replayed: Fix(time: 1_700_000_006, latitude: 6, longitude: -6, source: .logReject, logId: 106, uuid: "",
                                     recordedReason: .accuracy, heading: 10, altitude: 20),
                       decision: FixDecision(index: 0, decision: .rejected, reason: .time, latitude: 6, longitude: -6, odometer: 0)),
        ]
        let spool = SortedSpool<DecidedFix>(folder: WorkFolder(path: dir.path), stem: "decided", window: 16)
        for fix in written { spool.add(fix) }
        let reader = try spool.finish().reader()
        var read: [DecidedFix] = []
        while let fix = reader.next() { read.append(fix) }
        #expect(reader.failure == nil && read.count == written.count)
        for (a, b) in zip(read, written) {
            #expect(a.decision == b.decision && a.reason == b.reason && a.fix.statedUUID == b.fix.statedUUID)
            #expect(a.fix.evidence == b.fix.evidence && a.fix.source == b.fix.source && a.fix.recordedReason == b.fix.recordedReason)
            #expect(a.fix.time == b.fix.time && a.fix.latitude == b.fix.latitude && a.fix.longitude == b.fix.longitude)
            #expect(a.fix.accuracy == b.fix.accuracy && a.fix.speed == b.fix.speed && a.fix.recordedOdometer == b.fix.recordedOdometer)
            #expect(a.fix.heading == b.fix.heading && a.fix.altitude == b.fix.altitude && a.fix.isMoving == b.fix.isMoving)
            #expect(a.fix.isRaw == b.fix.isRaw && a.fix.loggedReason == b.fix.loggedReason)
        }
        #expect(read.map(\.reason) == [nil, nil, "teleport", "<odd & \"text\">", "", nil, "time"])
        #expect(read.map(\.fix.statedUUID) == ["", "a", nil, "b", nil, nil, nil])
        #expect(read[6].fix.heading == nil && read[6].fix.altitude == nil)

        let tape = dir.file("decided.tape")
        let writer = try TapeWriter(path: tape)
        for fix in written { writer.beginRecord(); fix.write(to: writer); writer.endRecord() }
        try writer.finish()
        let stored = StoredTrace<DecidedFix>(tape: tape, count: written.count, geofences: nil, geofenceCount: 0)
        var samples: [ChartSample] = []
        try stored.forEachRecord { samples.append(ChartSample(from: &$0)) }
        let expected = written.map { ChartSample($0) }
        #expect(samples.map(\.time) == expected.map(\.time) && samples.map(\.rejected) == expected.map(\.rejected))
        #expect(samples.map(\.speed) == expected.map(\.speed) && samples.map(\.accuracy) == expected.map(\.accuracy))
    }

    /// Replay holds a fix and a decision per fix of the trace, and the streamed traces hold
    /// windows of them: the recorded trace's text and flag (`loggedReason`, `statesEmptyUUID`)
    /// fit in room the layout had (168 bytes), and a decision lost its padding (80 bytes before).
    @Test func aFixAndItsDecisionTakeNoMoreRoomThanBefore() {
        #expect(MemoryLayout<Fix>.stride <= 168)
        #expect(MemoryLayout<FixDecision>.stride <= 72)
    }
}

extension AssemblyStorageTests.Generator: RandomNumberGenerator {}
