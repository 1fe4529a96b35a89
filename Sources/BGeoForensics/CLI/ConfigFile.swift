import BGeoReader
import Foundation

/// A `--config FILE.json` the operator names (replay, resync): read, parsed and checked in one
/// place, so every command says the same sentence for the same mistake.
public enum ConfigFile {
    /// The file's JSON object. Every failure is one `--config` sentence naming the file and the
    /// reason: no such file, a folder, not readable, not JSON, not an object.
    public static func object(at path: String) throws(UsageError) -> JSONObject {
        var info = stat()
        guard stat(path, &info) == 0 else {
            let reason = errno == ENOENT ? "no such file" : String(cString: strerror(errno)).lowercased()
            throw UsageError(message: "--config \(TerminalText.prose(path)): \(reason)")
        }
        guard info.st_mode & S_IFMT == S_IFREG else {
            let kind = info.st_mode & S_IFMT == S_IFDIR ? "a folder" : "not a regular file"
            throw UsageError(message: "--config \(TerminalText.prose(path)): \(kind), not a JSON file")
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw UsageError(message: "--config \(TerminalText.prose(path)): cannot be read (permission denied?)")
        }
        let value: JSONValue
        do { value = try JSONParser.parse(String(decoding: data, as: UTF8.self)) } catch {
            throw UsageError(message: "--config \(TerminalText.prose(path)): not valid JSON (\(error))")
        }
        guard let object = value.objectValue else {
            throw UsageError(message: "--config \(TerminalText.prose(path)): must hold a JSON object")
        }
        return object
    }
}
