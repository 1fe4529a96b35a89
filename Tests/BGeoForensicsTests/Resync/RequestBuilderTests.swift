import Testing
@testable import BGeoReader
@testable import BGeoForensics
@testable import BGeoResync

@Suite struct ResyncRequestBuilderTests {
    static let r1 = RequestBuilder.Record(uuid: "u1", json: #"{"uuid":"u1","timestamp":"2026-07-24T09:14:32.118Z","odometer":5.0,"coords":{"latitude":52.2297,"longitude":21.0122},"extras":{"fleetId":"own"}}"#)
    static let r2 = RequestBuilder.Record(uuid: "u2", json: #"{"uuid":"u2","coords":{"latitude":1,"longitude":2}}"#)

    func builder(_ config: JSONObject) throws -> RequestBuilder {
        RequestBuilder(settings: try ResyncSettings(config: SDKConfig(config)))
    }

    @Test func defaultSingleRecordNestsUnderLocationVerbatim() throws {
        let b = try builder(["url": "http://h/locs"])
        let request = b.locationRequest([Self.r1], accessToken: nil)
        #expect(request.method == "POST")
        #expect(request.url == "http://h/locs")
        #expect(request.bodyText == #"{"location":"# + Self.r1.json + "}")
        #expect(request.headers == [HTTPHeader("Content-Type", "application/json")])
    }

    @Test func batchIsAnArrayEvenForOneRecord() throws {
        let b = try builder(["batchSync": true])
        #expect(b.locationBody([Self.r1]) == #"{"location":["# + Self.r1.json + "]}")
        #expect(b.locationBody([Self.r1, Self.r2]) == #"{"location":["# + Self.r1.json + "," + Self.r2.json + "]}")
    }

    @Test func dotRootMergesOnlyASingleUnbatchedRecord() throws {
        let single = try builder(["httpRootProperty": ".", "params": ["deviceId": "dev-882", "uuid": "not-mine"]])
        #expect(single.locationBody([Self.r2]) == #"{"uuid":"u2","coords":{"latitude":1,"longitude":2},"deviceId":"dev-882"}"#)
        let batched = try builder(["httpRootProperty": ".", "batchSync": true])
        #expect(batched.locationBody([Self.r2]) == #"{"location":["# + Self.r2.json + "]}")
    }

    @Test func customRootParamsFirstAndExtrasMergedUnderRecordKeys() throws {
        let b = try builder(["httpRootProperty": "data", "params": ["deviceId": "dev-882", "apiVersion": 2],
                             "extras": ["fleetId": "north-42", "shift": "night"]])
        let body = b.locationBody([Self.r1])
        #expect(body == #"{"deviceId":"dev-882","apiVersion":2,"data":{"uuid":"u1","timestamp":"2026-07-24T09:14:32.118Z","odometer":5.0,"coords":{"latitude":52.2297,"longitude":21.0122},"extras":{"fleetId":"own","shift":"night"}}}"#)
        // A record without extras gets the config's.
        #expect(b.locationBody([Self.r2]).contains(#""extras":{"fleetId":"north-42","shift":"night"}"#))
    }

    @Test func headersMethodAndBearer() throws {
        let b = try builder(["method": "put", "headers": ["X-Api-Key": "k-123456", "Content-Type": "text/plain", "X-N": 5],
                             "authorization": ["accessToken": "a1"]])
        let request = b.locationRequest([Self.r2], accessToken: "a1")
        #expect(request.method == "PUT")
        #expect(request.headers == [HTTPHeader("Content-Type", "application/json"), HTTPHeader("X-Api-Key", "k-123456"),
                                    HTTPHeader("X-N", "5"), HTTPHeader("Authorization", "Bearer a1")])
        let shown = request.rendered(redactor: Redactor())
        #expect(!shown.contains("k-123456"))
        #expect(!shown.contains("Bearer a1"))
        #expect(shown.contains("Bearer ‹redacted sha256:"))
        #expect(request.rendered(redactor: .disabled).contains("Bearer a1"))
    }

    @Test func settingsDefaultsAndBatchLimits() throws {
        let defaults = try ResyncSettings(config: SDKConfig())
        #expect(defaults.method == "POST" && defaults.rootProperty == "location" && !defaults.batchSync)
        #expect(defaults.batchLimit == 1 && defaults.timeout == 30)
        #expect(try ResyncSettings(config: SDKConfig(["batchSync": true, "maxBatchSize": -1])).batchLimit == nil)
        #expect(try ResyncSettings(config: SDKConfig(["BATCHSYNC": "true", "maxbatchsize": 100])).batchLimit == 100)
        #expect(throws: ResyncSettings.Invalid.self) { try ResyncSettings(config: SDKConfig(["method": "DELETE"])) }
    }

    @Test func logBodyUsesLevelNamesAndOmitsAbsentFields() {
        let entries = [
            LogEntry(rowId: 1, tsText: "2026-07-24T11:24:03.512Z", time: 0, level: 3, src: "native", event: "motionchange",
                     message: "MOVING", dataText: #"{"confidence":82}"#, uploaded: false),
            LogEntry(rowId: 2, tsText: "2026-07-24T11:24:07.118Z", time: 0, level: 2, src: "js", event: "app",
                     message: nil, dataText: nil, uploaded: false),
        ]
        #expect(RequestBuilder.logBody(entries) == #"{"events":[{"ts":"2026-07-24T11:24:03.512Z","level":"info","src":"native","event":"motionchange","message":"MOVING","data":{"confidence":82}},{"ts":"2026-07-24T11:24:07.118Z","level":"warn","src":"js","event":"app"}]}"#)
    }
}
