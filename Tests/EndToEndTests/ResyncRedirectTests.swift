import Foundation
import Testing
@testable import BGeoReader
@testable import BGeoForensics

/// "No redirect is ever followed": a 302/307/308 from the ingest server (or the refresh
/// endpoint) is a failed attempt. Nothing reaches the other origin — not the records, not the
/// bearer token, not the api key — nothing is counted delivered, no token from elsewhere is
/// adopted, and the operator gets one sentence saying where the server points and how to go
/// there on purpose. Over https (a test CA trusted in a private mount namespace) and http.
@Suite(.serialized) struct ResyncRedirectTests {
    static let cases: [(status: Int, targetScheme: String)] = [302, 307, 308].flatMap { [($0, "https"), ($0, "http")] }

    /// Journal lines of `lane`: status, outcome, location.
    static func journal(_ dir: TestDirectory, lane: String) throws -> [(status: Int, outcome: String, location: String?)] {
        let db = try Database(path: dir.file("work/work.db"), mode: .readWriteCreate)
        let stmt = try db.prepare("SELECT status, outcome, location FROM journal WHERE lane = '\(lane)' ORDER BY id")
        var rows: [(Int, String, String?)] = []
        while try stmt.step() { rows.append((stmt.int(0), stmt.text(1) ?? "", stmt.text(2))) }
        return rows
    }

    @Test(arguments: cases)
    func uploadRedirectIsAFailedAttemptAndNothingReachesTheOtherOrigin(status: Int, targetScheme: String) throws {
        if let reason = TestCertificateAuthority.unavailable { Issue.record(Comment(rawValue: reason)); return }
        let dir = TestDirectory("resync-redirect-\(status)-\(targetScheme)")
        let ca = try TestCertificateAuthority()
        let elsewhere = try ResyncIngestServer(dir, tlsCertificate: targetScheme == "https" ? ca.serverPEM : nil)
        let target = elsewhere.url("/stolen")
        let server = try ResyncIngestServer(dir, behaviour: ["redirects": ["/locs": ["status": .int(Int64(status)), "location": .string(target)]]],
                                            tlsCertificate: ca.serverPEM)
        let access = "redirect-access-token-81"
        let dump = try ResyncEndToEndTests.makeDump(dir, count: 3, config: [
            "batchSync": true, "headers": ["X-Api-Key": .string(ResyncEndToEndTests.apiKey)],
            "authorization": ["accessToken": .string(access)]])
        let result = try ca.run(["resync", dump, "--work", dir.file("work"), "--url", server.url("/locs"), "--max-attempts", "2",
                                 "--backoff-initial", "0.01s", "--json"])
        #expect(result.exitCode == 3, "\(result.stderr)")
        #expect(elsewhere.requests().isEmpty, "a request reached the redirect target")
        let seen = server.requests()
        #expect(seen.map(\.status) == [status, status])
        #expect(seen.allSatisfy { $0.method == "POST" && $0.header("Authorization") == "Bearer \(access)" })
        let summary = try ResyncEndToEndTests.summary(result)
        #expect(summary["delivered"] == .int(0) && summary["remaining"] == .int(3))
        #expect(summary["lastFailure"]?["reason"] == "redirect")
        #expect(summary["lastFailure"]?["location"] == .string(target))
        #expect(result.stderr.contains("the server redirects to \(target); if that is the right endpoint, run again with --url \(target)"))
        #expect(try Self.journal(dir, lane: "locations").map { "\($0.status) \($0.outcome) \($0.location ?? "-")" }
                == ["\(status) retry \(target)", "\(status) retry \(target)"])
    }

    @Test(arguments: cases)
    func refreshRedirectAdoptsNoTokenAndSendsNothingElsewhere(status: Int, targetScheme: String) throws {
        if let reason = TestCertificateAuthority.unavailable { Issue.record(Comment(rawValue: reason)); return }
        let dir = TestDirectory("resync-refresh-redirect-\(status)-\(targetScheme)")
        let ca = try TestCertificateAuthority()
        // The other origin would happily issue a token: it must never be asked.
        let elsewhere = try ResyncIngestServer(dir, behaviour: ["refresh": ["path": "/refresh", "issue": ["foreign-token-99"]]],
                                               tlsCertificate: targetScheme == "https" ? ca.serverPEM : nil)
        let target = elsewhere.url("/refresh")
        let server = try ResyncIngestServer(dir, behaviour: [
            "auth": ["paths": ["/locs"], "valid": []],
            "redirects": ["/refresh": ["status": .int(Int64(status)), "location": .string(target)]]], tlsCertificate: ca.serverPEM)
        let dump = try ResyncEndToEndTests.makeDump(dir, count: 2, config: [
            "headers": ["X-Api-Key": .string(ResyncEndToEndTests.apiKey)],
            "authorization": ["accessToken": "expired-access-1", "refreshToken": "refresh-token-secret-1",
                              "refreshHeaders": ["X-Api-Key": .string(ResyncEndToEndTests.apiKey)]]])
        let result = try ca.run(["resync", dump, "--work", dir.file("work"), "--url", server.url("/locs"),
                                 "--set", "authorization.refreshUrl=\(server.url("/refresh"))", "--max-attempts", "2",
                                 "--backoff-initial", "0.01s", "--json"])
        #expect(result.exitCode == 3, "\(result.stderr)")
        #expect(elsewhere.requests().isEmpty, "the refresh request (refresh token, api key) reached the redirect target")
        let seen = server.requests()
        #expect(seen.map(\.path) == ["/locs", "/refresh", "/locs", "/refresh"])
        #expect(seen.filter { $0.path == "/locs" }.allSatisfy { $0.header("Authorization") == "Bearer expired-access-1" })
        let summary = try ResyncEndToEndTests.summary(result)
        #expect(summary["delivered"] == .int(0) && summary["failedRefreshes"] == .int(2))
        #expect(summary["auth"]?["accessToken"] == .string(TokenFingerprint("expired-access-1").fingerprint))
        #expect(result.stderr.contains("the server redirects to \(target); if that is the right token refresh endpoint, "
                                       + "run again with --set authorization.refreshUrl=\(target)"))
        #expect(try Self.journal(dir, lane: "refresh").map { "\($0.status) \($0.outcome) \($0.location ?? "-")" }
                == ["\(status) refresh-failed \(target)", "\(status) refresh-failed \(target)"])
    }

    @Test func logUploadRedirectIsNotFollowed() throws {
        let dir = TestDirectory("resync-log-redirect")
        let elsewhere = try ResyncIngestServer(dir)
        let target = elsewhere.url("/logs-elsewhere")
        let server = try ResyncIngestServer(dir, behaviour: ["redirects": ["/logs": ["status": 308, "location": .string(target)]]])
        let dump = try ResyncEndToEndTests.makeDump(dir, count: 1, config: [:], logs: 20)
        let result = try ResyncEndToEndTests.resync(dump, dir, ["--logs", "--log-url", server.url("/logs"), "--max-attempts", "2", "--json"])
        #expect(result.exitCode == 3, "\(result.stderr)")
        #expect(elsewhere.requests().isEmpty)
        #expect(server.requests().map(\.status) == [308, 308])
        #expect(try ResyncEndToEndTests.summary(result)["logsPending"] == .int(20))
        #expect(result.stderr.contains("run again with --log-url \(target)"))
    }
}
