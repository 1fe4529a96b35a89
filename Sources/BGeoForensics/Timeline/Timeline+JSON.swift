import BGeoReader

/// The timeline as deterministic JSON (`timeline --json`): same dump, same bytes.
extension Timeline {
    public func json(findingsOnly: Bool = false) -> JSONValue {
        var root: JSONObject = [
            "dump": .string(dumpName),
            "inputs": .array(inputs.map { ["path": .string($0.path), "bytes": .int($0.bytes), "sha256": .string($0.sha256)] }),
            "format": .string(format.rawValue),
            "policy": .string(policy.rawValue),
            "authorizationConfigured": .bool(authorizationConfigured),
            "tokenRefresh": .string(tokenRefresh),
            "configSource": .string(configSource),
            "gapThresholdSeconds": .double(gapThreshold),
            "since": since.map { .string(Timestamp.format($0)) } ?? .null,
            "until": until.map { .string(Timestamp.format($0)) } ?? .null,
            "window": window.map { w in
                ["logRowsInside": .from(w.logRowsInside), "recordsInside": .from(w.recordsInside),
                 "dumpFirst": w.dumpFirst.map { .string(Timestamp.format($0)) } ?? .null,
                 "dumpLast": w.dumpLast.map { .string(Timestamp.format($0)) } ?? .null,
                 "empty": .bool(w.isEmpty)]
            } ?? .null,
            "history": ["complete": .bool(history.isComplete), "shortfalls": .array(history.shortfalls.map { .string($0) })],
            "logRows": .int(Int64(logRows)),
            "firstAt": firstAt.map { .string(Timestamp.format($0)) } ?? .null,
            "lastAt": lastAt.map { .string(Timestamp.format($0)) } ?? .null,
            "pendingRecords": .int(Int64(pendingRecords)),
            "findings": .array(findings.map(\.json)),
        ]
        if let sanitized { root["sanitized"] = .string(sanitized) }
        if !findingsOnly {
            root["attempts"] = .array(attempts.map(\.json))
            root["gaps"] = .array(gaps.map(\.json))
            root["events"] = .array(events.map(\.json))
            root["omitted"] = ["events": .int(Int64(omittedEvents)), "attempts": .int(Int64(omittedAttempts)),
                               "gaps": .int(Int64(omittedGaps))]
        }
        return .object(root)
    }

    /// `json(findingsOnly:)` as a document whose long arrays (attempts, gaps, events) are written
    /// element by element: the same bytes, without a tree of 20,000 attempts and their uuids in
    /// memory at once (issue 27: 134–183 MB on dumps with many kept attempts).
    public func streamedJSON(findingsOnly: Bool = false) -> (tree: JSONValue, arrays: [StreamedJSONDocument.Array]) {
        guard !findingsOnly, case .object(var root) = json(findingsOnly: true) else { return (json(findingsOnly: true), []) }
        // The timeline is redacted as it is built: nothing left for a redactor here.
        let style = StreamedJSONDocument.Style.pretty(.disabled)
        let attempts = attempts, gaps = gaps, events = events
        root["attempts"] = StreamedJSONDocument.placeholder(0)
        root["gaps"] = StreamedJSONDocument.placeholder(1)
        root["events"] = StreamedJSONDocument.placeholder(2)
        let arrays = [
            StreamedJSONDocument.Array(style, count: attempts.count) { attempts[$0].json },
            StreamedJSONDocument.Array(style, count: gaps.count) { gaps[$0].json },
            StreamedJSONDocument.Array(style, count: events.count) { events[$0].json },
        ]
        root["omitted"] = ["events": .int(Int64(omittedEvents)), "attempts": .int(Int64(omittedAttempts)),
                           "gaps": .int(Int64(omittedGaps))]
        return (.object(root), arrays)
    }
}

extension Finding {
    public var json: JSONValue {
        var object: JSONObject = ["code": .string(code), "severity": .string(severity.name), "summary": .string(summary),
                                  "evidence": .array(evidence.map(\.json))]
        if let rule { object["rule"] = .string(rule) }
        object["responsible"] = .string(responsible.rawValue)
        object["action"] = .string(action)
        if omittedEvidence > 0 { object["omittedEvidence"] = .int(Int64(omittedEvidence)) }
        object["historyComplete"] = .bool(historyComplete)
        object["span"] = ["from": firstAt.map { .string(Timestamp.format($0)) } ?? .null,
                          "to": lastAt.map { .string(Timestamp.format($0)) } ?? .null]
        return .object(object)
    }
}

extension Evidence {
    public var json: JSONValue {
        var object: JSONObject = ["logIds": .array(logIds.map { .int($0) }), "uuids": .array(uuids.map { .string($0) })]
        if let note { object["note"] = .string(note) }
        if omittedLogIds > 0 { object["omittedLogIds"] = .int(Int64(omittedLogIds)) }
        if omittedUuids > 0 { object["omittedUuids"] = .int(Int64(omittedUuids)) }
        return .object(object)
    }
}

extension UploadAttempt {
    /// `at, logId, count, status, outcome, uuids` always; the rest only when known, so a
    /// 20,000-attempt timeline stays small.
    public var json: JSONValue {
        var object: JSONObject = [
            "at": .string(Timestamp.format(at)),
            "logId": .int(logId),
            "count": .int(Int64(count)),
            "status": status.map { .int(Int64($0)) } ?? .null,
            "outcome": outcome.map { .string($0.rawValue) } ?? .null,
            "uuids": .array(uuids.map { .string($0) }),
        ]
        if uuidCount != uuids.count { object["uuidCount"] = .int(Int64(uuidCount)) }
        if let responseLogId { object["responseLogId"] = .int(responseLogId) }
        if let ms { object["ms"] = .double(ms) }
        if let backoffDelay { object["backoffDelay"] = .double(backoffDelay) }
        if let backoffFailures { object["backoffFailures"] = .int(Int64(backoffFailures)) }
        if let backoffLogId { object["backoffLogId"] = .int(backoffLogId) }
        if afterRefresh { object["afterRefresh"] = .bool(true) }
        if let dropLogId { object["dropLogId"] = .int(dropLogId) }
        if let refresh {
            object["refresh"] = [
                "requestLogId": refresh.requestLogId.map { .int($0) } ?? .null,
                "resultLogId": refresh.resultLogId.map { .int($0) } ?? .null,
                "success": refresh.success.map { .bool($0) } ?? .null,
                "status": refresh.status.map { .int(Int64($0)) } ?? .null,
            ]
        }
        if let url { object["url"] = .string(url) }
        if let response, !response.isEmpty { object["response"] = .string(response) }
        return .object(object)
    }
}

extension TrackingGap {
    public var json: JSONValue {
        [
            "start": .string(Timestamp.format(start)),
            "end": .string(Timestamp.format(end)),
            "seconds": .double(seconds),
            "movingAtStart": movingAtStart.map { .bool($0) } ?? .null,
            "distanceMeters": distanceMeters.map { .double(($0 * 10).rounded() / 10) } ?? .null,
            "expected": .bool(expected),
            "contextEvents": .array(contextEvents.map { event in
                [
                    "kind": .string(event.kind.rawValue),
                    "at": .string(Timestamp.format(event.at)),
                    "logId": .int(event.logId),
                    "detail": event.detail.map { .string($0) } ?? .null,
                    "position": .string(event.position.rawValue),
                ]
            }),
        ]
    }
}

extension TimelineEvent {
    public var json: JSONValue {
        [
            "kind": .string(kind.rawValue),
            "at": .string(Timestamp.format(at)),
            "logId": .int(logId),
            "summary": .string(summary),
            "count": .int(Int64(count)),
            "lastAt": .string(Timestamp.format(lastAt)),
            "lastLogId": .int(lastLogId),
        ]
    }
}
