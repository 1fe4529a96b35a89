import BGeoReader

/// The tape form of the trace's values: every field, so a value read back equals the one written
/// (optionals keep their nil, strings their bytes).
extension Fix: SpoolRecord {
    /// A queued fix sorts by its time, then its queue row.
    var spoolKey: SpoolKey { SpoolKey(time: time, sequence: rowId ?? logId ?? 0) }

    private enum Flag {
        static let accuracy: UInt16 = 1, speed: UInt16 = 2, odometer: UInt16 = 4, rowId: UInt16 = 8, logId: UInt16 = 16
        static let reason: UInt16 = 32, movingKnown: UInt16 = 64, moving: UInt16 = 128, raw: UInt16 = 256
        static let emptyUUID: UInt16 = 512, loggedReason: UInt16 = 1024
    }

    func write(to sink: some TapeSink) {
        var flags: UInt16 = 0
        if accuracy != nil { flags |= Flag.accuracy }
        if speed != nil { flags |= Flag.speed }
        if recordedOdometer != nil { flags |= Flag.odometer }
        if rowId != nil { flags |= Flag.rowId }
        if logId != nil { flags |= Flag.logId }
        if recordedReason != nil { flags |= Flag.reason }
        if let isMoving { flags |= Flag.movingKnown | (isMoving ? Flag.moving : 0) }
        if isRaw { flags |= Flag.raw }
        if statesEmptyUUID { flags |= Flag.emptyUUID }
        if loggedReason != nil { flags |= Flag.loggedReason }
        sink.put(flags)
        sink.put(source.tapeCode)
        sink.put(recordedReason?.tapeCode ?? 0)
        sink.put(Int64(index))
        sink.put(time)
        sink.put(latitude)
        sink.put(longitude)
        sink.put(accuracy ?? 0)
        sink.put(speed ?? 0)
        sink.put(recordedOdometer ?? 0)
        sink.put(headingOrNaN)
        sink.put(altitudeOrNaN)
        sink.put(rowId ?? 0)
        sink.put(logId ?? 0)
        sink.put(uuid)
        sink.put(timestampText)
        // Last and only when set: replay's fixes never have one.
        if let loggedReason { sink.put(loggedReason) }
    }

    init(from record: inout TapeRecordReader) {
        let flags = record.uint16()
        let source = FixSource(tapeCode: record.uint8())
        let reason = RejectReason(tapeCode: record.uint8())
        let index = Int(record.int64())
        let time = record.double(), latitude = record.double(), longitude = record.double()
        let accuracy = record.double(), speed = record.double(), odometer = record.double()
        let heading = record.double(), altitude = record.double()
        let rowId = record.int64(), logId = record.int64()
        let uuid = record.string()
        let timestampText = record.string()
        self.init(index: index, time: time, latitude: latitude, longitude: longitude,
                  accuracy: flags & Flag.accuracy != 0 ? accuracy : nil, speed: flags & Flag.speed != 0 ? speed : nil,
                  recordedOdometer: flags & Flag.odometer != 0 ? odometer : nil, source: source,
                  rowId: flags & Flag.rowId != 0 ? rowId : nil, logId: flags & Flag.logId != 0 ? logId : nil,
                  uuid: uuid, timestampText: timestampText, recordedReason: flags & Flag.reason != 0 ? reason : nil,
                  isRaw: flags & Flag.raw != 0, isMoving: flags & Flag.movingKnown != 0 ? flags & Flag.moving != 0 : nil)
        // Set as stored: the initialiser's filters already ran when the value was first made.
        headingOrNaN = heading
        altitudeOrNaN = altitude
        statesEmptyUUID = flags & Flag.emptyUUID != 0
        if flags & Flag.loggedReason != 0 { loggedReason = record.string() }
    }
}

extension DecidedFix: SpoolRecord {
    /// A fix sorts by time, then by its row (queue rows and log rows are spooled apart).
    var spoolKey: SpoolKey { SpoolKey(time: fix.time, sequence: fix.rowId ?? fix.logId ?? 0) }

    /// The presence bits of a record (`ChartSample` reads two of them), then the fix's source and
    /// recorded reason, whose codes fit in the bits left (so the chart's read stays as it is).
    enum TapeFlag {
        static let uuid: UInt16 = 1, accuracy: UInt16 = 2, speed: UInt16 = 4, heading: UInt16 = 8, altitude: UInt16 = 16
        static let odometer: UInt16 = 32, movingKnown: UInt16 = 64, moving: UInt16 = 128, reason: UInt16 = 256, log: UInt16 = 512
        static let raw: UInt16 = 1 << 15
        /// Bits 10–11: `FixSource.tapeCode`; bits 12–13: `RejectReason.tapeCode` + 1 of `recordedReason` (0: none).
        static let sourceShift: UInt16 = 10, recordedReasonShift: UInt16 = 12
    }
    private typealias Flag = TapeFlag

    /// What the report and the exports read of a fix and its decision: the fix's observed fields,
    /// the verdict, its reason as printed and the output position. The replay's own bookkeeping
    /// (indexes, the fix's timestamp text, the decision's odometer and speeds) is not stored.
    func write(to sink: some TapeSink) {
        let reason = self.reason, uuid = fix.statedUUID
        var flags: UInt16 = 0
        if uuid != nil { flags |= Flag.uuid }
        if fix.accuracy != nil { flags |= Flag.accuracy }
        if fix.speed != nil { flags |= Flag.speed }
        if !fix.headingOrNaN.isNaN { flags |= Flag.heading }
        if !fix.altitudeOrNaN.isNaN { flags |= Flag.altitude }
        if !fix.recordedOdometerOrNaN.isNaN { flags |= Flag.odometer }
        if let isMoving = fix.isMoving { flags |= Flag.movingKnown | (isMoving ? Flag.moving : 0) }
        if reason != nil { flags |= Flag.reason }
        if fix.rowId == nil { flags |= Flag.log }
        if fix.isRaw { flags |= Flag.raw }
        flags |= UInt16(fix.source.tapeCode) << Flag.sourceShift
        flags |= UInt16(fix.recordedReason.map { $0.tapeCode + 1 } ?? 0) << Flag.recordedReasonShift
        sink.put(flags)
        sink.put(decision.decision.tapeCode)
        sink.put(fix.time)
        sink.put(fix.latitude)
        sink.put(fix.longitude)
        sink.put(decision.latitude)
        sink.put(decision.longitude)
        sink.put(fix.accuracy ?? 0)
        sink.put(fix.speed ?? 0)
        sink.put(fix.heading ?? 0)
        sink.put(fix.altitude ?? 0)
        sink.put(fix.recordedOdometer ?? 0)
        sink.put(fix.rowId ?? fix.logId ?? 0)
        sink.put(uuid ?? "")
        sink.put(reason ?? "")
    }

    init(from record: inout TapeRecordReader) {
        let flags = record.uint16()
        let decided = Decision(tapeCode: record.uint8())
        let time = record.double(), latitude = record.double(), longitude = record.double()
        let outputLatitude = record.double(), outputLongitude = record.double()
        let accuracy = record.double(), speed = record.double(), heading = record.double(), altitude = record.double()
        let odometer = record.double()
        let id = record.int64()
        let uuid = record.string()
        let reasonText = record.string()
        func present(_ flag: UInt16, _ value: Double) -> Double? { flags & flag != 0 ? value : nil }
        let isLog = flags & Flag.log != 0
        let recordedCode = UInt8((flags >> Flag.recordedReasonShift) & 3)
        var fix = Fix(time: time, latitude: latitude, longitude: longitude, accuracy: present(Flag.accuracy, accuracy),
                      speed: present(Flag.speed, speed), recordedOdometer: present(Flag.odometer, odometer),
                      source: FixSource(tapeCode: UInt8((flags >> Flag.sourceShift) & 3)), rowId: isLog ? nil : id,
                      logId: isLog ? id : nil, uuid: uuid,
                      recordedReason: recordedCode == 0 ? nil : RejectReason(tapeCode: recordedCode - 1), isRaw: flags & Flag.raw != 0,
                      isMoving: flags & Flag.movingKnown != 0 ? flags & Flag.moving != 0 : nil)
        // Set as stored: the recorded trace keeps them as its row gives them.
        fix.headingOrNaN = flags & Flag.heading != 0 ? heading : .nan
        fix.altitudeOrNaN = flags & Flag.altitude != 0 ? altitude : .nan
        fix.statesEmptyUUID = flags & Flag.uuid != 0 && uuid.isEmpty
        // A reason that is one of the replay's is the decision's; any other the engine logged is the fix's.
        let reason = flags & Flag.reason != 0 ? RejectReason(rawValue: reasonText) : nil
        if flags & Flag.reason != 0, reason == nil { fix.loggedReason = reasonText }
        self.init(fix: fix, decision: FixDecision(index: 0, decision: decided, reason: reason, latitude: outputLatitude,
                                                  longitude: outputLongitude, odometer: 0))
    }
}

extension ChartSample {
    /// The chart's fields of a record `DecidedFix.write` wrote (the rest is not read).
    init(from record: inout TapeRecordReader) {
        let flags = record.uint16()
        let decision = Decision(tapeCode: record.uint8())
        let time = record.double()
        for _ in 0..<4 { _ = record.double() }  // raw and output positions
        let accuracy = record.double(), speed = record.double()
        self.init(time: time, rejected: decision == .rejected, speed: flags & DecidedFix.TapeFlag.speed != 0 ? speed : nil,
                  accuracy: flags & DecidedFix.TapeFlag.accuracy != 0 ? accuracy : nil)
    }
}

extension ReportGeofence: SpoolRecord {
    /// A geofence event sorts by time, then queue row (the order a stable sort by time gives).
    var spoolKey: SpoolKey {
        switch source {
        case .queue(let id), .log(let id): return SpoolKey(time: time, sequence: id)
        }
    }

    func write(to sink: some TapeSink) {
        switch source {
        case .queue(let id): sink.put(UInt8(0)); sink.put(id)
        case .log(let id): sink.put(UInt8(1)); sink.put(id)
        }
        sink.put(time)
        sink.put(latitude)
        sink.put(longitude)
        sink.put(uuid)
        sink.put(identifier)
        sink.put(action)
    }

    init(from record: inout TapeRecordReader) {
        let isLog = record.uint8() == 1
        let id = record.int64()
        let time = record.double(), latitude = record.double(), longitude = record.double()
        let uuid = record.string(), identifier = record.string(), action = record.string()
        self.init(time: time, uuid: uuid, identifier: identifier, action: action, latitude: latitude, longitude: longitude,
                  source: isLog ? .log(rowId: id) : .queue(rowId: id))
    }
}

// One byte per enum on a tape, by a switch (an `allCases` array per field would be allocated
// for every record written and read).
extension FixSource {
    var tapeCode: UInt8 {
        switch self {
        case .queue: return 0
        case .logLocation: return 1
        case .logReject: return 2
        case .logAdjust: return 3
        }
    }

    init(tapeCode: UInt8) {
        switch tapeCode {
        case 1: self = .logLocation
        case 2: self = .logReject
        case 3: self = .logAdjust
        default: self = .queue
        }
    }
}

extension RejectReason {
    var tapeCode: UInt8 {
        switch self {
        case .accuracy: return 0
        case .time: return 1
        case .teleport: return 2
        }
    }

    init(tapeCode: UInt8) {
        switch tapeCode {
        case 1: self = .time
        case 2: self = .teleport
        default: self = .accuracy
        }
    }
}

extension Decision {
    var tapeCode: UInt8 {
        switch self {
        case .accepted: return 0
        case .adjusted: return 1
        case .rejected: return 2
        }
    }

    init(tapeCode: UInt8) {
        switch tapeCode {
        case 1: self = .adjusted
        case 2: self = .rejected
        default: self = .accepted
        }
    }
}
