import Foundation
import Testing
@testable import BGeoReader
@testable import BGeoForensics

/// Issue 11 item 1, from the exact reproduced cases: numbers that do not fit never trap (the old
/// build died with SIGILL, exit 132); each is a located warning and is shown as the number it is.
@Suite struct NumericSafetyTests {
    @Test func backoffDelayOf1e19DoesNotTrapTimelineOrReport() throws {
        let dir = TestDirectory("delay-1e19")
        let dump = try Hostile.dump(at: dir.file("bgeo.db")) { w in
            try w.insertLog(ts: "2026-07-24T09:00:00.000Z", level: 3, event: "http.response",
                            data: ["status": 500, "count": 1, "ms": 100, "response": "{}"])
            try w.insertLog(ts: "2026-07-24T09:00:01.000Z", level: 3, event: "http.backoff",
                            data: "{\"failures\":1,\"delay_s\":1e19,\"next_attempt_at\":\"2026-07-24T09:00:06.000Z\"}")
        }
        let timeline = try Hostile.run(["timeline", dump])
        #expect(timeline.exitCode == 0, "\(timeline.stderr)")
        #expect(timeline.stdout.contains("1e+19 s"), "the delay is shown as the number it is")
        #expect(timeline.stderr.contains("log_entries row 2: http.backoff delay_s 1e+19 s is out of range"), "\(timeline.stderr)")
        let json = try Hostile.run(["timeline", dump, "--json"])
        #expect(json.exitCode == 0)
        #expect((try? JSONParser.parse(json.stdout)) != nil)
        let report = try Hostile.run(["report", dump, "-o", dir.file("r.html")])
        #expect(report.exitCode == 0, "\(report.stderr)")
    }

    @Test(arguments: ["1e16", "-1e308"])
    func jwtExpThatIsNotATimeInStateAuth(exp: String) throws {
        let dir = TestDirectory("jwt-exp")
        let dump = try Hostile.dump(at: dir.file("bgeo.db")) { w in
            try w.setState("auth", ["accessToken": .string(Hostile.jwt(exp: exp)), "refreshToken": "rt-1"])
        }
        let shown = NumberText.describe(Double(exp)!)
        let inspect = try Hostile.run(["inspect", dump])
        #expect(inspect.exitCode == 0, "\(inspect.stderr)")
        #expect(inspect.stdout.contains("JWT exp \(shown) (not a time)"), "\(inspect.stdout)")
        #expect(inspect.stdout.contains("state: key 'auth': accessToken: exp \(shown) is not a time"))
        let json = try Hostile.run(["inspect", dump, "--json"])
        #expect(json.exitCode == 0)
        let parsed = try JSONParser.parse(json.stdout)
        #expect(parsed["state"]?["auth"]?["accessToken"]?["exp"]?.stringValue == "\(shown) (not a time)")
        let timeline = try Hostile.run(["timeline", dump])
        #expect(timeline.exitCode == 0, "\(timeline.stderr)")
        #expect(timeline.stderr.contains("exp \(shown) is not a time"), "the timeline's warnings name the token's exp")
        let report = try Hostile.run(["report", dump, "-o", dir.file("r.html")])
        #expect(report.exitCode == 0, "\(report.stderr)")
        #expect(try String(contentsOfFile: dir.file("r.html"), encoding: .utf8).contains("exp \(shown) is not a time"),
                "the report's warnings name the token's exp")
    }

    @Test func jwtExpOf1e16InALegacyDumpsConfigLogLine() throws {
        let dir = TestDirectory("jwt-legacy")
        let dump = try Hostile.dump(at: dir.file("bgeo.db"), layout: .legacy(withState: false)) { w in
            try w.insertLog(ts: "2026-07-24T09:00:00.000Z", level: 3, event: "config",
                            data: ["url": "https://ingest.example/l",
                                   "authorization": ["strategy": "JWT", "accessToken": .string(Hostile.jwt(exp: "1e16"))]])
        }
        for command in [["inspect", dump], ["timeline", dump], ["report", dump, "-o", dir.file("r.html")]] {
            let result = try Hostile.run(command)
            #expect(result.exitCode == 0, "\(command[0]): \(result.stderr)")
            let text = result.stdout + result.stderr + (command[0] == "report" ? try String(contentsOfFile: dir.file("r.html"), encoding: .utf8) : "")
            #expect(text.contains("config line authorization.accessToken: exp 1e+16 is not a time"), "\(command[0]): \(text.suffix(400))")
            if command[0] == "inspect" { #expect(text.contains("log_entries row 1: config line"), "located at the log row") }
        }
    }

    /// Found while widening the fuzz suite's config mutations: a recorded `httpTimeoutMs` of 1e12
    /// trapped resync's socket layer (milliseconds → Int32 for poll).
    @Test func recordedHTTPTimeoutOf1e12DoesNotTrapResync() throws {
        let dir = TestDirectory("timeout-1e12")
        let dump = try Hostile.dump(at: dir.file("bgeo.db")) { w in
            try w.setState("config", raw: "{\"url\":\"http://127.0.0.1:1/x\",\"httpTimeoutMs\":1e12}")
        }
        let result = try Hostile.run(["resync", dump, "--url", "http://127.0.0.1:1/x", "--work", dir.file("work"),
                                      "--max-attempts", "1", "--backoff-initial", "0"])
        #expect(result.exitCode == 3, "records remain after one refused attempt: \(result.stderr.suffix(300))")
    }

    @Test func odometerOf1e308InTextInspect() throws {
        let dir = TestDirectory("odometer")
        let dump = try Hostile.dump(at: dir.file("bgeo.db")) { w in try w.setState("odometer", raw: "1e308") }
        let inspect = try Hostile.run(["inspect", dump])
        #expect(inspect.exitCode == 0, "\(inspect.stderr)")
        #expect(inspect.stdout.contains("odometer: 1e+308 m"))
        #expect(inspect.stdout.contains("state: key 'odometer': 1e+308 m is out of range"))
    }
}
