import Foundation

/// A fresh folder under the system temp dir, removed when the value is released.
final class TestDirectory: @unchecked Sendable {
    let path: String

    init(_ label: String = "test") {
        path = FileManager.default.temporaryDirectory
            .appendingPathComponent("bgeo-tests-\(label)-\(UUID().uuidString)").path
        try! FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    func file(_ name: String) -> String { path + "/" + name }

    deinit { try? FileManager.default.removeItem(atPath: path) }
}
