import BGeoForensics
import Foundation

/// Turns a dump plus the operator's overrides into what a run needs: the effective config and
/// the token pair to start with. Pure apart from reading `--config FILE`.
public enum ResyncSetup {
    /// The dump's recorded config, then `--config FILE.json` merged over it, then each `--set
    /// KEY=VALUE` (dotted paths), then `--url` replacing `url`; and, as `named`, what the
    /// operator gave alone (file, sets and the two URL options, over an empty config): where a
    /// setting came from decides whether re-sync may use it without being told (`ResyncTargets`).
    /// Every key the operator gives is checked against `SDKConfigSchema`.
    public static func effectiveConfig(recorded: SDKConfig, configFile: String?, sets: [String], url: String?,
                                       logURL: String?) throws(ResyncSettings.Invalid) -> (effective: SDKConfig, named: SDKConfig) {
        var config = recorded
        var named = SDKConfig()
        if let configFile {
            let object: JSONObject
            do { object = try ConfigFile.object(at: configFile) } catch {
                throw ResyncSettings.Invalid(description: error.message)
            }
            try SDKConfigSchema.check(config: object, file: configFile)
            config.merge(object)
            named.merge(object)
        }
        for text in sets {
            guard let (key, value) = SDKConfig.parseOverride(text) else {
                throw ResyncSettings.Invalid(description: "--set takes KEY=VALUE, not '\(text)'")
            }
            try SDKConfigSchema.check(path: key, value: value, source: "--set")
            config.set(path: key, to: value)
            named.set(path: key, to: value)
        }
        for (key, value) in [("url", url), ("logUrl", logURL)] {
            guard let value else { continue }
            config.set(path: key, to: .string(value))
            named.set(path: key, to: .string(value))
        }
        return (config, named)
    }

    /// The starting pair: tokens given explicitly on this command line win, then the pair
    /// rotated by an earlier run (working copy), then `state.auth` (the device's possibly
    /// rotated pair), then the config's authorization.
    public static func initialTokens(settings: ResyncSettings, explicit: TokenRefresh.Tokens?, stored: TokenRefresh.Tokens?,
                                     stateAuth: JSONObject?) -> TokenRefresh.Tokens {
        let fromState = stateAuth.map { auth in
            TokenRefresh.Tokens(accessToken: auth.valueIgnoringCase("accessToken")?.stringValue.flatMap { $0.isEmpty ? nil : $0 },
                                refreshToken: auth.valueIgnoringCase("refreshToken")?.stringValue.flatMap { $0.isEmpty ? nil : $0 })
        }
        let fromConfig = TokenRefresh.Tokens(accessToken: settings.authorization?.accessToken,
                                             refreshToken: settings.authorization?.refreshToken)
        let chain = [explicit, stored, fromState, fromConfig].compactMap { $0 }
        return TokenRefresh.Tokens(accessToken: chain.lazy.compactMap(\.accessToken).first,
                                   refreshToken: chain.lazy.compactMap(\.refreshToken).first)
    }

    /// The working folder before the dump is opened, so the dump's private copy (it holds the
    /// customer's tokens) can live inside it rather than in `$TMPDIR`, where a killed run would
    /// leave it: `--work`, else `./<first 16 hex of the dump's sha256>.resync` (the name
    /// `WorkingCopy.defaultFolder` gives; the default costs one extra read of the dump to hash it).
    /// Created (mode 0700) when missing; `created` says so, for removing it again when it stays empty.
    public static func prepareWorkFolder(dump path: String, work: String?) throws -> (path: String, created: Bool) {
        let folder: String
        if let work {
            folder = work
        } else {
            folder = FileManager.default.currentDirectoryPath + "/" + String(try EvidenceCopy.sha256(ofFile: path).prefix(16)) + ".resync"
        }
        let created = !FileManager.default.fileExists(atPath: folder)
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
        return (folder, created)
    }

    /// Tokens named by `--set authorization.accessToken=…` / `--set authorization.refreshToken=…`.
    public static func explicitTokens(sets: [String]) -> TokenRefresh.Tokens? {
        var tokens = TokenRefresh.Tokens(accessToken: nil, refreshToken: nil)
        for text in sets {
            guard let (key, value) = SDKConfig.parseOverride(text), let s = value.stringValue, !s.isEmpty else { continue }
            switch key.lowercased() {
            case "authorization.accesstoken": tokens.accessToken = s
            case "authorization.refreshtoken": tokens.refreshToken = s
            default: break
            }
        }
        return tokens.accessToken == nil && tokens.refreshToken == nil ? nil : tokens
    }
}
