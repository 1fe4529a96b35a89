import Testing
@testable import BGeoReader
@testable import BGeoForensics
@testable import BGeoResync

@Suite struct ResyncTokenRefreshTests {
    let old = TokenRefresh.Tokens(accessToken: "old-a", refreshToken: "old-r")

    @Test func defaultPayloadAndHeaders() throws {
        let auth = AuthorizationSettings(["refreshUrl": "http://h/refresh", "refreshHeaders": ["X-Api-Key": "k"]])
        let request = try #require(TokenRefresh.request(auth, refreshToken: "r-1"))
        #expect(request.method == "POST" && request.url == "http://h/refresh")
        #expect(request.bodyText == #"{"refresh_token":"r-1"}"#)
        #expect(request.headers == [HTTPHeader("Content-Type", "application/json"), HTTPHeader("X-Api-Key", "k")])
        #expect(TokenRefresh.request(AuthorizationSettings([:]), refreshToken: "r") == nil)
    }

    @Test func customPayloadSubstitutesEveryLiteral() throws {
        let auth = AuthorizationSettings(["refreshUrl": "http://h/r",
                                          "refreshPayload": ["grant": "refresh", "token": "{refreshToken}", "nested": ["t": "x{refreshToken}"]]])
        let request = try #require(TokenRefresh.request(auth, refreshToken: "R\"q"))
        #expect(request.bodyText == #"{"grant":"refresh","token":"R\"q","nested":{"t":"xR\"q"}}"#)
    }

    @Test(arguments: [
        (#"{"access_token":"a2","refresh_token":"r2"}"#, "a2", "r2"),
        (#"{"accessToken":"a2"}"#, "a2", "old-r"),
        (#"{"token":"a2","refreshToken":""}"#, "a2", "old-r"),
        (#"{"data":{"accessToken":"a2","refreshToken":"r2"}}"#, "a2", "r2"),
        (#"{"data":{"token":"a2"},"status":"ok"}"#, "a2", "old-r"),
    ])
    func tolerantParsing(body: String, access: String, refresh: String) throws {
        let tokens = try #require(TokenRefresh.parseResponse(body, previous: old))
        #expect(tokens.accessToken == access)
        #expect(tokens.refreshToken == refresh)
    }

    @Test func noAccessTokenIsAFailedRefresh() {
        #expect(TokenRefresh.parseResponse(#"{"refresh_token":"r2"}"#, previous: old) == nil)
        #expect(TokenRefresh.parseResponse("<html>", previous: old) == nil)
        #expect(TokenRefresh.parseResponse(#"{"access_token":""}"#, previous: old) == nil)
    }

    @Test func tokenPriority() throws {
        let settings = try ResyncSettings(config: SDKConfig(["authorization": ["accessToken": "cfg-a", "refreshToken": "cfg-r"]]))
        let fromConfig = ResyncSetup.initialTokens(settings: settings, explicit: nil, stored: nil, stateAuth: nil)
        #expect(fromConfig == .init(accessToken: "cfg-a", refreshToken: "cfg-r"))
        let fromState = ResyncSetup.initialTokens(settings: settings, explicit: nil, stored: nil, stateAuth: ["accessToken": "st-a"])
        #expect(fromState == .init(accessToken: "st-a", refreshToken: "cfg-r"))
        let stored = ResyncSetup.initialTokens(settings: settings, explicit: nil, stored: .init(accessToken: "wc-a", refreshToken: "wc-r"),
                                               stateAuth: ["accessToken": "st-a"])
        #expect(stored == .init(accessToken: "wc-a", refreshToken: "wc-r"))
        let explicit = ResyncSetup.explicitTokens(sets: ["authorization.accessToken=cli-a", "url=x"])
        #expect(ResyncSetup.initialTokens(settings: settings, explicit: explicit, stored: .init(accessToken: "wc-a", refreshToken: "wc-r"),
                                          stateAuth: nil) == .init(accessToken: "cli-a", refreshToken: "wc-r"))
    }
}
