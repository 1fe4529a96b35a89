import Testing
@testable import BGeoReader
@testable import BGeoForensics

@Suite struct ResponseClassifierTests {
    /// Every status class of the BGeo table (HTTP upload guide, "Retry & failure handling").
    @Test(arguments: [
        (200, true, UploadOutcome.success), (201, false, .success), (204, false, .success), (299, false, .success),
        (400, false, .drop), (404, false, .drop), (410, false, .drop), (413, false, .drop), (422, false, .drop),
        (429, false, .retry), (429, true, .retry),
        (401, true, .refresh), (403, true, .refresh), (401, false, .retry), (403, false, .retry),
        (402, false, .retry), (405, false, .retry), (408, false, .retry), (418, false, .retry),
        (500, false, .retry), (502, true, .retry), (503, false, .retry), (599, false, .retry),
        (0, false, .retry), (0, true, .retry), (100, false, .retry), (301, false, .retry), (304, false, .retry),
    ])
    func bgeo(status: Int, authorized: Bool, expected: UploadOutcome) {
        #expect(ResponseClassifier.bgeo.classify(status: status, authorizationConfigured: authorized) == expected)
    }

    /// LongPing (queue guide, "Failures").
    @Test(arguments: [
        (200, true, UploadOutcome.success), (202, false, .success),
        (401, true, .refresh), (403, true, .refresh), (401, false, .retry),
        (413, false, .halveBatch), (408, false, .retry), (429, false, .retry),
        (500, false, .retry), (504, false, .retry), (0, false, .retry),
        (400, false, .countAttempt), (404, false, .countAttempt), (422, false, .countAttempt), (410, false, .countAttempt),
    ])
    func longping(status: Int, authorized: Bool, expected: UploadOutcome) {
        #expect(ResponseClassifier.longping.classify(status: status, authorizationConfigured: authorized) == expected)
    }

    @Test func poisonStatusesAreTheDocumentedOnes() {
        #expect(UploadPolicy.bgeo.poisonStatuses == [400, 404, 410, 413, 422])
        #expect(UploadPolicy.longping.poisonStatuses.isEmpty)
        #expect(UploadPolicy.forFormat(.longping) == .longping)
        #expect(UploadPolicy.forFormat(.bgeo) == .bgeo)
    }
}

@Suite struct BackoffScheduleTests {
    @Test func bgeoDoublesFromFiveCappedAtFiveMinutes() {
        let delays = (1...9).map { BackoffSchedule.bgeo.delay(afterFailures: $0) }
        #expect(delays == [5, 10, 20, 40, 80, 160, 300, 300, 300])
        #expect(BackoffSchedule.bgeo.delay(afterFailures: 0) == 0)
        #expect(BackoffSchedule.bgeo.delay(afterFailures: 10_000) == 300)
        #expect(BackoffSchedule.bgeo.jitter == 0)
        // No jitter: only rounding slack around the nominal value.
        #expect(BackoffSchedule.bgeo.acceptableRange(afterFailures: 3) == 19.5...20.5)
        // BGeo does not document Retry-After: the computed delay stands.
        #expect(BackoffSchedule.bgeo.nextDelay(afterFailures: 2, retryAfter: 120) == 10)
    }

    @Test func longpingTenToNineHundredWithJitter() {
        let delays = (1...9).map { BackoffSchedule.longping.delay(afterFailures: $0) }
        #expect(delays == [10, 20, 40, 80, 160, 320, 640, 900, 900])
        let band = BackoffSchedule.longping.acceptableRange(afterFailures: 2)
        #expect(band.contains(16) && band.contains(24) && !band.contains(15) && !band.contains(25))
        #expect(BackoffSchedule.longping.jitteredDelay(afterFailures: 1, unit: 0) == 8)
        #expect(abs(BackoffSchedule.longping.jitteredDelay(afterFailures: 1, unit: 1) - 12) < 1e-9)
        #expect(BackoffSchedule.longping.acceptableRange(afterFailures: 20).upperBound == 900 * 1.2 + 0.5)
    }

    @Test func retryAfterWinsForLongPing() {
        #expect(BackoffSchedule.longping.nextDelay(afterFailures: 1, retryAfter: 120) == 120)
        #expect(BackoffSchedule.longping.nextDelay(afterFailures: 1, retryAfter: nil, unit: 0.5) == 10)
    }

    @Test func scaledKeepsDoubling() {
        let fast = BackoffSchedule.bgeo.scaled(initial: 1, cap: 4)
        #expect((1...4).map { fast.delay(afterFailures: $0) } == [1, 2, 4, 4])
    }
}

@Suite struct PolicyRuleTests {
    @Test func dropRule() {
        let bgeo = PolicyRules(policy: .bgeo)
        #expect(!bgeo.dropIsViolation(status: 400, authorizationConfigured: false))
        #expect(!bgeo.dropIsViolation(status: 422, authorizationConfigured: true))
        #expect(bgeo.dropIsViolation(status: 429, authorizationConfigured: false))
        #expect(bgeo.dropIsViolation(status: 503, authorizationConfigured: false))
        #expect(bgeo.dropIsViolation(status: 0, authorizationConfigured: false))
        #expect(bgeo.dropIsViolation(status: 401, authorizationConfigured: true))
        #expect(bgeo.dropIsViolation(status: 401, authorizationConfigured: false))
        #expect(!bgeo.dropIsViolation(status: nil, authorizationConfigured: false))
        #expect(bgeo.dropIsUnsplit(uuidCount: 2) && !bgeo.dropIsUnsplit(uuidCount: 1))
        let longping = PolicyRules(policy: .longping)
        #expect(!longping.dropIsViolation(status: 400, authorizationConfigured: false))  // after 3 counted attempts
        #expect(longping.dropIsViolation(status: 413, authorizationConfigured: false))
        #expect(longping.dropIsViolation(status: 408, authorizationConfigured: false))
        #expect(!longping.dropIsUnsplit(uuidCount: 5))
    }

    @Test func backoffRule() {
        let bgeo = PolicyRules(policy: .bgeo)
        #expect(bgeo.backoffIsAcceptable(failures: 3, delay: 20, retryAfter: nil, lastStatus: 503, authorizationConfigured: false))
        #expect(!bgeo.backoffIsAcceptable(failures: 3, delay: 40, retryAfter: nil, lastStatus: 503, authorizationConfigured: false))
        #expect(!bgeo.backoffIsAcceptable(failures: 1, delay: 60, retryAfter: 60, lastStatus: 429, authorizationConfigured: false))
        #expect(bgeo.backoffIsAcceptable(failures: 12, delay: 300, retryAfter: nil, lastStatus: 0, authorizationConfigured: false))
        #expect(bgeo.expectedDelayText(failures: 2) == "10 s")
        let longping = PolicyRules(policy: .longping)
        #expect(longping.backoffIsAcceptable(failures: 1, delay: 11.7, retryAfter: nil, lastStatus: 503, authorizationConfigured: false))
        #expect(!longping.backoffIsAcceptable(failures: 1, delay: 13, retryAfter: nil, lastStatus: 503, authorizationConfigured: false))
        #expect(longping.backoffIsAcceptable(failures: 1, delay: 60, retryAfter: 60, lastStatus: 429, authorizationConfigured: false))
        #expect(longping.backoffIsAcceptable(failures: 1, delay: 900, retryAfter: nil, lastStatus: 401, authorizationConfigured: false))
        #expect(longping.expectedDelayText(failures: 2) == "16 s–24 s")
    }
}

@Suite struct RefreshContractTests {
    @Test func configuredWhenAnAuthorizationObjectIsSet() {
        #expect(RefreshContract.isConfigured(SDKConfig(["authorization": ["refreshUrl": "https://a.example/r"]])))
        #expect(RefreshContract.isConfigured(SDKConfig(["Authorization": ["accessToken": "abc"]])))
        #expect(!RefreshContract.isConfigured(SDKConfig(["authorization": .null])))
        #expect(!RefreshContract.isConfigured(SDKConfig(["authorization": [:]])))
        #expect(!RefreshContract.isConfigured(SDKConfig()))
        #expect(RefreshContract.hasRefreshURL(SDKConfig(["authorization": ["refreshurl": "https://a.example/r"]])))
        #expect(!RefreshContract.hasRefreshURL(SDKConfig(["authorization": ["refreshUrl": "  "]])))
    }

    @Test func tokensReadTolerantly() {
        let contract = UploadPolicy.bgeo.refresh
        #expect(contract == .bgeo && UploadPolicy.longping.refresh == .longping)
        let flat = contract.tokens(fromResponse: ["token": "A1", "refreshToken": "R1"])
        #expect(flat.accessToken == "A1" && flat.refreshToken == "R1")
        let nested = contract.tokens(fromResponse: ["data": ["access_token": "A2", "accessToken": "X"]])
        #expect(nested.accessToken == "A2" && nested.refreshToken == nil)
        #expect(contract.defaultPayload == ["refresh_token": "{refreshToken}"])
        #expect(RefreshContract.longping.waitWithoutRefresh == 900 && RefreshContract.bgeo.waitWithoutRefresh == nil)
    }
}
