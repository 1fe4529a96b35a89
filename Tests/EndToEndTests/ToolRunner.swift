import Foundation

/// Runs the built `bgeo-forensics` executable as a user would, capturing exit code and output.
struct ToolResult {
    let exitCode: Int32
    let stdout: String
    let stderr: String
}

enum ToolRunner {
    /// The products folder that holds both this test bundle and the executables.
    static var productsDirectory: URL {
        let bundle = Bundle.main.bundleURL
        // swift-corelibs: the test runner lives in .build/<config>/; xctest bundles sit beside the tools.
        for candidate in [bundle, bundle.deletingLastPathComponent()] {
            if FileManager.default.fileExists(atPath: candidate.appendingPathComponent("bgeo-forensics").path) {
                return candidate
            }
        }
        for bundle in Bundle.allBundles where bundle.bundlePath.hasSuffix(".xctest") {
            return bundle.bundleURL.deletingLastPathComponent()
        }
        return URL(fileURLWithPath: FileManager.default.currentDirectoryPath).appendingPathComponent(".build/debug")
    }

    static var executable: String { productsDirectory.appendingPathComponent("bgeo-forensics").path }

    /// Runs the tool; `stdin` is fed to its standard input (written concurrently, then closed), or
    /// when nil the standard input is empty. Output is read concurrently so large outputs cannot deadlock.
    /// `launcher`: a command that runs the tool for us (its words come first, then the tool's path
    /// and `arguments`), e.g. a private mount namespace that trusts a test CA.
    static func run(_ arguments: [String], currentDirectory: String? = nil, environment: [String: String]? = nil,
                    launcher: [String] = [], stdin: Data? = nil) throws -> ToolResult {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: launcher.first ?? executable)
        process.arguments = launcher.isEmpty ? arguments : Array(launcher.dropFirst()) + [executable] + arguments
        if let currentDirectory { process.currentDirectoryURL = URL(fileURLWithPath: currentDirectory) }
        if let environment { process.environment = environment }
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        let input = stdin.map { _ in Pipe() }
        // Our end must reach no other child (tests run in parallel): one that held it would keep
        // the tool's standard input open after we close it.
        if let input { _ = fcntl(input.fileHandleForWriting.fileDescriptor, F_SETFD, FD_CLOEXEC) }
        process.standardInput = input ?? FileHandle.nullDevice
        try process.run()
        if let input, let stdin {
            let writer = input.fileHandleForWriting
            // A tool that stops reading early must not leave this thread blocked: its error is ignored.
            signal(SIGPIPE, SIG_IGN)
            DispatchQueue.global().async {
                try? writer.write(contentsOf: stdin)
                try? writer.close()
            }
        }
        final class Box: @unchecked Sendable { var data = Data() }
        let outBox = Box()
        let group = DispatchGroup()
        group.enter()
        let reader = out.fileHandleForReading
        DispatchQueue.global().async {
            outBox.data = reader.readDataToEndOfFile()
            group.leave()
        }
        let errData = err.fileHandleForReading.readDataToEndOfFile()
        group.wait()
        process.waitUntilExit()
        return ToolResult(exitCode: process.terminationStatus, stdout: String(decoding: outBox.data, as: UTF8.self),
                          stderr: String(decoding: errData, as: UTF8.self))
    }
}

extension ToolRunner {
    /// Runs the tool on a real pseudo-terminal (Python's pty module), as a person at a terminal
    /// would: returns the exit code and everything the terminal showed (stdout and stderr mixed).
    /// `setting`: environment variables as `NAME=value` words for env(1).
    static func runOnTerminal(_ arguments: [String], setting: [String] = []) throws -> (exitCode: Int32, shown: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = setting + ["python3", "-c", "import pty, sys; sys.exit(pty.spawn(sys.argv[1:]) >> 8)", executable] + arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let shown = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, shown)
    }
}

/// A fresh folder under the system temp dir, removed when the value is released.
final class TestDirectory: @unchecked Sendable {
    let path: String

    init(_ label: String = "e2e") {
        path = FileManager.default.temporaryDirectory
            .appendingPathComponent("bgeo-e2e-\(label)-\(UUID().uuidString)").path
        try! FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    func file(_ name: String) -> String { path + "/" + name }

    deinit { try? FileManager.default.removeItem(atPath: path) }
}
