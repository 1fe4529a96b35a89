import BGeoForensics
import Foundation

/// The simulated upload engine: autoSync, batches, the scripted server, refresh and backoff.
extension DeviceSimulation {
    // MARK: upload engine

    /// The autoSync decision after an insert or a network change; `force` is an explicit sync().
    func autoSync(force: Bool) {
        guard pendingCount > 0 else { return }
        if !force {
            func deferred(_ reason: String) {
                log("sync.deferred", level: 3, data: ["reason": .string(reason), "pending": .int(Int64(pendingCount))])
            }
            guard config["autoSync"]?.boolValue ?? true else { return }
            guard url != nil else { return deferred("no_url") }
            let threshold = config["autoSyncThreshold"]?.intValue ?? 0
            if threshold > 0, pendingCount < threshold {
                deferred("threshold")
                return tick(1)
            }
            if config["disableAutoSyncOnCellular"]?.boolValue ?? false, transport == "cellular" {
                deferred("cellular")
                return tick(1)
            }
        }
        // Inside the backoff window nothing is sent.
        if let next = nextAttemptAt, now < next { return }
        drain()
    }

    func batch() -> [Pending] {
        let batchSync = config["batchSync"]?.boolValue ?? false
        guard batchSync else { return [pending[head]] }
        let max = config["maxBatchSize"]?.intValue ?? -1
        let size = max > 0 ? min(max, pendingCount) : pendingCount
        return Array(pending[head..<(head + size)])
    }

    func drain() {
        while pendingCount > 0 {
            if upload(batch(), allowRefresh: true) == false { return }
        }
    }

    /// Sends `records` once and applies the policy. Returns false when draining must stop (backoff).
    func upload(_ records: [Pending], allowRefresh: Bool) -> Bool {
        let reply = send(records)
        switch policy.classifier.classify(status: reply.status, authorizationConfigured: hasAuthorization) {
        case .success:
            remove(records.count)
            uploaded += records.count
            if policy.successResetsBackoff {
                failures = 0
                nextAttemptAt = nil
            }
            return true
        case .drop:
            if records.count > 1, policy.splitDroppedBatch {
                // Re-send one record at a time so only the poison record is dropped.
                for record in records where upload([record], allowRefresh: true) == false { return false }
                return true
            }
            log("queue.drop", level: 2, data: ["uuids": .array(records.map { .string($0.uuid) }), "status": .int(Int64(reply.status))])
            tick(2)
            droppedUUIDs.append(contentsOf: records.map(\.uuid))
            remove(records.count)
            return true
        case .refresh where allowRefresh:
            if refresh() { return upload(records, allowRefresh: false) }
            backOff()
            return false
        default:
            backOff()
            return false
        }
    }

    func send(_ records: [Pending]) -> HTTPReply {
        requests += 1
        let first = records[0].uuid
        let attempt = (attemptsByUUID[first] ?? 0) + 1
        attemptsByUUID[first] = attempt
        let bytes = records.reduce(16) { $0 + $1.bytes + 1 }
        log("http.request", level: 3, data: [
            "url": .string(url ?? ""), "method": .string(config["method"]?.stringValue ?? "POST"),
            "count": .int(Int64(records.count)), "uuids": .array(records.map { .string($0.uuid) }),
            "bytes": .int(Int64(bytes)), "attempt": .int(Int64(attempt))])
        let reply: HTTPReply
        let ms: Int
        if transport == "none" {
            reply = HTTPReply(status: 0, response: "The Internet connection appears to be offline.")
            ms = rng.int(3...40)
        } else {
            reply = server(self, records)
            ms = rng.int(70...480) + records.count * 3
        }
        tick(ms)
        log("http.response", level: 3, data: [
            "status": .int(Int64(reply.status)), "count": .int(Int64(records.count)), "ms": .int(Int64(ms)),
            "response": .string(String(reply.response.prefix(1024)))])
        tick(2)
        return reply
    }

    func refresh() -> Bool {
        let auth = config["authorization"]?.objectValue
        log("auth.refresh", level: 3, data: ["url": .string(auth?["refreshUrl"]?.stringValue ?? "")])
        let reply = refreshServer(self)
        tick(rng.int(80...350))
        let success = (200...299).contains(reply.status)
        log("auth.refresh.result", level: success ? 3 : 1, data: ["success": .bool(success), "status": .int(Int64(reply.status))])
        tick(2)
        if success { rotate(self) }
        return success
    }

    func backOff() {
        failures += 1
        let delay = policy.backoff.delay(afterFailures: failures)
        let next = now + delay
        nextAttemptAt = next
        log("http.backoff", level: 3, data: [
            "failures": .int(Int64(failures)),
            "delay_s": delay.rounded() == delay ? .int(Int64(delay)) : .double(delay),
            "next_attempt_at": .string(Timestamp.format(next))])
        tick(1)
    }

    func remove(_ count: Int) {
        for index in head..<(head + count) {
            let record = pending[index]
            attemptsByUUID[record.uuid] = nil
            do {
                if deleteStatement == nil {
                    deleteStatement = try writer.database.prepare("DELETE FROM location_events WHERE id = ?")
                }
                try deleteStatement?.run([.integer(record.rowId)])
            } catch {
                pendingError = pendingError ?? error
            }
        }
        head += count
        if head > 4096, head * 2 > pending.count {
            pending.removeFirst(head)
            head = 0
        }
    }
}
