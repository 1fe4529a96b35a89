import BGeoReader

extension ReportTrace {
    /// The trace as a replay decided it: every fix of the complete trace with the replay's
    /// decision, reason and output position; evidence points at the queue row, else the log row.
    public init(replay: ReplayResult, geofences: [QueueRecord], queueHeadUUID: String?) {
        var fixes: [DecidedFix] = []
        fixes.reserveCapacity(replay.fixes.count)
        for i in replay.fixes.indices { fixes.append(DecidedFix(replayed: replay.fixes[i], decision: replay.decisions[i])) }
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
