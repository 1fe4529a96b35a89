import Testing
@testable import BGeoReader
@testable import BGeoForensics
@testable import BGeoResync

@Suite struct ResyncStateMachineTests {
    let bgeo = ResyncStateMachine(policy: .bgeo, authorizationConfigured: true)
    let bgeoNoAuth = ResyncStateMachine(policy: .bgeo, authorizationConfigured: false)
    let longping = ResyncStateMachine(policy: .longping, authorizationConfigured: true)

    @Test(arguments: [200, 201, 204, 299])
    func twoHundredsDeliver(status: Int) {
        #expect(bgeo.decide(.init(status: status, batchCount: 5)) == .deliver)
        #expect(longping.decide(.init(status: status, batchCount: 5)) == .deliver)
    }

    @Test(arguments: [400, 404, 410, 413, 422])
    func bgeoPoisonSplitsBatchesThenQuarantines(status: Int) {
        #expect(bgeo.decide(.init(status: status, batchCount: 3)) == .split)
        #expect(bgeo.decide(.init(status: status, batchCount: 1)) == .quarantine)
    }

    @Test(arguments: [0, 408, 429, 500, 502, 503, 418, 302])
    func bgeoRetriesWithDoublingBackoffCappedAt300(status: Int) {
        #expect(bgeo.decide(.init(status: status, batchCount: 2, failures: 0)) == .retry(delay: 5))
        #expect(bgeo.decide(.init(status: status, batchCount: 2, failures: 2)) == .retry(delay: 20))
        #expect(bgeo.decide(.init(status: status, batchCount: 2, failures: 20)) == .retry(delay: 300))
    }

    @Test func bgeoIgnoresRetryAfterLongPingHonoursIt() {
        #expect(bgeo.decide(.init(status: 429, batchCount: 1, retryAfter: 42)) == .retry(delay: 5))
        #expect(longping.decide(.init(status: 429, batchCount: 1, retryAfter: 42)) == .retry(delay: 42))
        // LongPing without Retry-After: 10·2ⁿ within ±20 %.
        #expect(longping.decide(.init(status: 503, batchCount: 1, failures: 1, jitterUnit: 0)) == .retry(delay: 16))
        if case .retry(let high) = longping.decide(.init(status: 503, batchCount: 1, failures: 1, jitterUnit: 1)) {
            #expect(abs(high - 24) < 1e-9)
        } else {
            Issue.record("503 should retry")
        }
        #expect(longping.decide(.init(status: 503, batchCount: 1, failures: 9, jitterUnit: 0.5)) == .retry(delay: 900))
    }

    @Test(arguments: [401, 403])
    func authStatusesRefreshOnceThenRetry(status: Int) {
        #expect(bgeo.decide(.init(status: status, batchCount: 4)) == .refresh)
        #expect(bgeo.decide(.init(status: status, batchCount: 4, alreadyRefreshed: true)) == .retry(delay: 5))
        #expect(bgeoNoAuth.decide(.init(status: status, batchCount: 4)) == .retry(delay: 5))
    }

    @Test func longPing413HalvesAndOther4xxCountsAttempts() {
        #expect(longping.decide(.init(status: 413, batchCount: 9)) == .halve(limit: 4))
        #expect(longping.decide(.init(status: 413, batchCount: 2)) == .halve(limit: 1))
        let counted = longping.decide(.init(status: 400, batchCount: 3, attempts: [0, 1, 2], jitterUnit: 0.5))
        #expect(counted == .countAttempts(newAttempts: [1, 2, 3], dropIndices: [2], delay: 10))
        // A lone record answered 413 cannot be halved: it is counted so it cannot wedge the queue.
        if case .countAttempts(_, let drop, _) = longping.decide(.init(status: 413, batchCount: 1, attempts: [2])) {
            #expect(drop == [0])
        } else {
            Issue.record("413 on one record should count an attempt")
        }
    }

    @Test func scaledBackoffForTests() {
        var policy = UploadPolicy.bgeo
        policy.backoff = policy.backoff.scaled(initial: 0.01, cap: 0.05)
        let machine = ResyncStateMachine(policy: policy, authorizationConfigured: false)
        #expect(machine.decide(.init(status: 500, batchCount: 1, failures: 1)) == .retry(delay: 0.02))
        #expect(machine.decide(.init(status: 500, batchCount: 1, failures: 10)) == .retry(delay: 0.05))
    }

    @Test func logLane() {
        #expect(bgeo.decideLog(.init(status: 200, batchCount: 100)) == .markUploaded)
        #expect(bgeo.decideLog(.init(status: 400, batchCount: 100)) == .markUploaded)
        #expect(bgeo.decideLog(.init(status: 404, batchCount: 100)) == .markUploaded)
        #expect(bgeo.decideLog(.init(status: 429, batchCount: 100)) == .retry(delay: 5))
        #expect(bgeo.decideLog(.init(status: 503, batchCount: 100)) == .retry(delay: 5))
        #expect(bgeo.decideLog(.init(status: 0, batchCount: 100)) == .retry(delay: 5))
        #expect(bgeo.decideLog(.init(status: 401, batchCount: 100)) == .refresh)
        #expect(bgeo.decideLog(.init(status: 401, batchCount: 100, alreadyRefreshed: true)) == .retry(delay: 5))
        #expect(bgeoNoAuth.decideLog(.init(status: 401, batchCount: 100)) == .markUploaded)
    }
}
