import Testing
@testable import BGeoReader
@testable import BGeoForensics
@testable import BGeoResync

/// The keep-alive rule on its own: a connection is kept only after a clean 2xx and reused only
/// while nothing waits on it.
@Suite struct ConnectionReuseTests {
    @Test func onlyACleanlyFramed2xxKeepsTheConnection() {
        #expect(ConnectionReuse.keepAfterResponse(status: 200, closeSignalled: false, bodyCut: false, unreadBytes: 0))
        #expect(ConnectionReuse.keepAfterResponse(status: 204, closeSignalled: false, bodyCut: false, unreadBytes: 0))
        for status in [301, 307, 401, 403, 413, 422, 429, 500, 503] {
            #expect(!ConnectionReuse.keepAfterResponse(status: status, closeSignalled: false, bodyCut: false, unreadBytes: 0),
                    "status \(status)")
        }
        #expect(!ConnectionReuse.keepAfterResponse(status: 200, closeSignalled: false, bodyCut: false, unreadBytes: 1))
        #expect(!ConnectionReuse.keepAfterResponse(status: 200, closeSignalled: true, bodyCut: false, unreadBytes: 0))
        #expect(!ConnectionReuse.keepAfterResponse(status: 200, closeSignalled: false, bodyCut: true, unreadBytes: 0))
    }

    @Test func aKeptConnectionIsReusedOnlyWhenNothingWaitsOnIt() {
        #expect(ConnectionReuse.reuseBeforeRequest(sameOrigin: true, idleSeconds: 0.1, maxIdle: 2, pending: .nothing))
        #expect(!ConnectionReuse.reuseBeforeRequest(sameOrigin: true, idleSeconds: 0.1, maxIdle: 2, pending: .bytes))
        #expect(!ConnectionReuse.reuseBeforeRequest(sameOrigin: true, idleSeconds: 0.1, maxIdle: 2, pending: .closed))
        #expect(!ConnectionReuse.reuseBeforeRequest(sameOrigin: false, idleSeconds: 0.1, maxIdle: 2, pending: .nothing))
        #expect(!ConnectionReuse.reuseBeforeRequest(sameOrigin: true, idleSeconds: 2.5, maxIdle: 2, pending: .nothing))
    }
}
