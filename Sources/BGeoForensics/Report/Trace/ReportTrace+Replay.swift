extension ReportTrace {
    /// The trace as a replay decided it: every fix of the complete trace with the replay's
    /// decision, reason and output position; evidence points at the queue row, else the log row.
    public init(replay: ReplayResult, geofences: [QueueRecord], queueHeadUUID: String?) {
        var fixes: [ReportFix] = []
        fixes.reserveCapacity(replay.fixes.count)
        for (i, fix) in replay.fixes.enumerated() {
            let d = replay.decisions[i]
            let source: EvidenceRef = fix.rowId.map { .queue(rowId: $0) } ?? .log(rowId: fix.logId ?? 0)
            let decision: ReportDecision
            switch d.decision {
            case .accepted: decision = .accepted
            case .adjusted: decision = .adjusted
            case .rejected: decision = .rejected
            }
            fixes.append(ReportFix(time: fix.time, uuid: fix.uuid.isEmpty ? nil : fix.uuid, latitude: fix.latitude,
                                   longitude: fix.longitude, outputLatitude: d.latitude, outputLongitude: d.longitude,
                                   accuracy: fix.accuracy, speed: fix.speed, decision: decision, reason: d.reason?.rawValue,
                                   source: source))
        }
        let marks = geofences.map(ReportGeofence.init(record:)).sorted { $0.time < $1.time }
        self.init(fixes: fixes, geofences: marks, queueHeadUUID: queueHeadUUID)
    }
}

extension ReportGeofence {
    /// A queued geofence record as a map/GPX event.
    public init(record g: QueueRecord) {
        self.init(time: g.time, uuid: g.uuid, identifier: g.geofence?.identifier ?? "", action: g.geofence?.action ?? "",
                  latitude: g.latitude, longitude: g.longitude, source: .queue(rowId: g.rowId))
    }
}
