import Testing
@testable import BGeoForensics

@Suite struct RedactorTests {
    @Test func redactsSensitiveKeysStructurally() {
        let redactor = Redactor()
        let out = redactor.redact(Fixtures.config).jsonText
        #expect(!out.contains(Fixtures.accessToken))
        #expect(!out.contains(Fixtures.refreshToken))
        #expect(!out.contains(Fixtures.apiKey))
        #expect(out.contains("https://ingest.example/refresh"))
        #expect(out.contains(Redactor.fingerprint(Fixtures.apiKey)))
    }

    @Test func redactsKnownSecretsJWTsAndBearerInFreeText() {
        var redactor = Redactor()
        redactor.learnSecrets(in: Fixtures.config)
        let text = "key=\(Fixtures.apiKey) rt=\(Fixtures.refreshToken) Authorization: Bearer abcdef123456 jwt=eyJhbGciOiJub25lIn0.eyJleHAiOjF9.sig"
        let out = redactor.redact(text: text)
        #expect(!out.contains(Fixtures.apiKey))
        #expect(!out.contains(Fixtures.refreshToken))
        #expect(!out.contains("abcdef123456"))
        #expect(!out.contains("eyJhbGciOiJub25lIn0"))
    }

    @Test func templatesAndDisabledRedactorPassThrough() {
        let payload: JSONValue = ["refreshPayload": ["refresh_token": "{refreshToken}"]]
        #expect(Redactor().redact(payload) == payload)
        #expect(Redactor.disabled.redact(Fixtures.config) == Fixtures.config)
    }

    @Test func jwtExpiryIsDecoded() {
        #expect(JWT.expiry(Fixtures.accessToken) == 1_784_880_000)
        #expect(JWT.expiry("not-a-jwt") == nil)
    }
}
