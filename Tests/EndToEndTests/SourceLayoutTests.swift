import Foundation
import Testing

/// Issue 24: a big type is split by concern into `Type+Concern.swift` files (as GRDB's
/// `Database+Statements.swift`), so no source file grows past 450 lines and a reader finds a
/// concern by its file name.
@Suite struct SourceLayoutTests {
    static let sources = ReportE2E.packageRoot + "/Sources"

    static func swiftFiles() -> [String] {
        let walker = FileManager.default.enumerator(atPath: sources)
        var files: [String] = []
        while let name = walker?.nextObject() as? String {
            if name.hasSuffix(".swift") { files.append(sources + "/" + name) }
        }
        return files.sorted()
    }

    @Test func noSourceFileIsOverFourHundredFiftyLines() throws {
        let files = Self.swiftFiles()
        #expect(files.count > 100, "found only \(files.count) source files under \(Self.sources)")
        for file in files {
            let lines = try String(contentsOfFile: file, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false).count - 1
            #expect(lines <= 450, "\(file.dropFirst(Self.sources.count + 1)) has \(lines) lines: split it by concern")
        }
    }

    /// Issue 24 item 5: Swift 6 checks every type that crosses threads. Shared state lives in a
    /// `Mutex` or a `ConditionState`; values that move to a worker thread are `sending` (a second
    /// connection goes to its worker and comes back through `Dump/ScanRunner`'s rules), so no
    /// type says `@unchecked Sendable`. `nonisolated(unsafe)` is left only to the signal handlers'
    /// C memory (`SignalCleanup`, `InterruptSignal`), which must not take a lock.
    @Test func swiftChecksEveryTypeThatCrossesThreads() throws {
        var unchecked: [String] = []
        var unsafeGlobals: [String] = []
        for file in Self.swiftFiles() {
            let text = try String(contentsOfFile: file, encoding: .utf8)
            let name = String(file.dropFirst(Self.sources.count + 1))
            for line in text.split(separator: "\n") where !line.trimmingCharacters(in: .whitespaces).hasPrefix("//") {
                if line.contains("@unchecked Sendable") { unchecked.append(name) }
                if line.contains("nonisolated(unsafe)"), !name.hasSuffix("Signal.swift"), !name.hasSuffix("SignalCleanup.swift") {
                    unsafeGlobals.append(name)
                }
            }
        }
        #expect(unchecked.isEmpty, "@unchecked Sendable in \(unchecked)")
        #expect(unsafeGlobals.isEmpty, "nonisolated(unsafe) outside the signal handlers: \(unsafeGlobals)")
    }

    /// Issue 24: SQL reading the dump's tables lives in the reader module (`BGeoReader`) alone. The
    /// only other places with SQL write and read their own files: copies (the `BGeoSanitize` module,
    /// `BGeoResync`'s working copy, `BGeoSimulation`'s `Simulate/` and `Fuzz/`) and the spill tables
    /// (`BGeoReader/Storage/`); `bgeo-bench` hands its baselines' SQL to the sqlite3 shell.
    @Test func onlyTheReaderQueriesTheDump() throws {
        let ownFiles = ["/BGeoReader/", "/BGeoSQLite/", "/BGeoSanitize/", "/BGeoResync/", "/BGeoSimulation/", "/bgeo-bench/"]
        var readers: [String] = []
        for file in Self.swiftFiles() where !ownFiles.contains(where: { file.contains($0) }) {
            let text = try String(contentsOfFile: file, encoding: .utf8)
            if text.contains("SELECT ") || text.contains(".prepare(") { readers.append(String(file.dropFirst(Self.sources.count + 1))) }
        }
        #expect(readers.isEmpty, "SQL outside the reader: \(readers)")
    }

    /// Issue 24 item 1: one column map per layout. Which queue columns a read selects, and where
    /// each field sits, is `Dump/QueueColumns` alone (the layout only lists the columns it found):
    /// no other file asks which queue columns exist or selects NULL for a missing one.
    @Test func oneColumnMapForTheQueue() throws {
        var mappers: [String] = []
        for file in Self.swiftFiles() where (file.contains("/BGeoForensics/") || file.contains("/BGeoReader/"))
            && !file.hasSuffix("/QueueColumns.swift") && !file.hasSuffix("/DumpLayout.swift") {
            let text = try String(contentsOfFile: file, encoding: .utf8)
            for marker in [": \"NULL\"", "queueColumns.contains("] where text.contains(marker) {
                mappers.append(String(file.dropFirst(Self.sources.count + 1)) + " (" + marker + ")")
            }
        }
        #expect(mappers.isEmpty, "queue columns mapped outside QueueColumns: \(mappers)")
    }

    /// Issue 24 item 1: one location-line parser. Every reader of a fix line's `data` (replay, the
    /// recorded trace, the timeline's coverage, the gap edges) goes through `Dump/FixLineFields`;
    /// no other file makes a field scanner for a line's top-level `latitude`.
    @Test func oneParserForFixLines() throws {
        var parsers: [String] = []
        for file in Self.swiftFiles() where !file.hasSuffix("/FixLineFields.swift") && !file.contains("/BGeoSimulation/") {
            let text = try String(contentsOfFile: file, encoding: .utf8)
            // Each scanner's path list, which may span lines, up to its closing bracket.
            for scanner in text.components(separatedBy: "FieldScanner(paths:").dropFirst() {
                let paths = scanner.components(separatedBy: "])").first ?? ""
                if paths.contains("\"latitude\"") { parsers.append(String(file.dropFirst(Self.sources.count + 1))) }
            }
        }
        #expect(parsers.isEmpty, "fix lines parsed outside FixLineFields: \(parsers)")
    }

    /// Issue 24 item 2: one runner spreads the reads. Only `Dump/ScanRunner` opens a second
    /// connection, sets how a connection meets damage, and moves warnings or damage from one
    /// connection's log to another's; every speculative read keeps its result by one of its rules.
    @Test func oneRunnerSpreadsTheReads() throws {
        let mechanics = ["parallelReader(", "warnings.place(", "moveWarnings(", "salvagesOnDamage =",
                         "scanInterrupted = true", "salvageAnnounced.insert", "SecondConnectionScan"]
        var spread: [String] = []
        for file in Self.swiftFiles() where !file.hasSuffix("/Dump/ScanRunner.swift") {
            let name = String(file.dropFirst(Self.sources.count + 1))
            let text = try String(contentsOfFile: file, encoding: .utf8)
            for line in text.split(separator: "\n") where !line.trimmingCharacters(in: .whitespaces).hasPrefix("//") {
                for mechanic in mechanics where line.contains(mechanic) && !line.contains("func ") && !line.contains("var ") {
                    // The reader's own scan marks its connection interrupted at damage.
                    if mechanic == "scanInterrupted = true", name.hasSuffix("Dump/Dump+Scan.swift") { continue }
                    spread.append("\(name): \(mechanic)")
                }
            }
        }
        #expect(spread.isEmpty, "reads spread outside ScanRunner: \(spread)")
    }

    /// Issue 24: the SQLite C API is wrapped in one module, `BGeoSQLite` (GRDB's shim model); the
    /// library reaches SQLite only through its `Database`, `Statement` and `SQLiteError` values.
    @Test func onlyTheSQLiteModuleTouchesTheCAPI() throws {
        var importers: [String] = []
        for file in Self.swiftFiles() where !file.contains("/BGeoSQLite/") {
            let text = try String(contentsOfFile: file, encoding: .utf8)
            if text.contains("import CSQLite") || text.contains("sqlite3_") { importers.append(String(file.dropFirst(Self.sources.count + 1))) }
        }
        #expect(importers.isEmpty, "the C API used outside BGeoSQLite: \(importers)")
        let manifest = try String(contentsOfFile: ReportE2E.packageRoot + "/Package.swift", encoding: .utf8)
        #expect(manifest.contains("name: \"BGeoSQLite\""))
    }

    /// Issue 24: the library is split into modules along the data flow, and a module imports only
    /// what Package.swift says it depends on. SwiftPM does not check this itself (a module built
    /// earlier in the same build folder can be imported without being declared), so without this
    /// test the core could quietly come to depend on fleet, re-sync, sanitize or the simulator.
    @Test func everyModuleImportsOnlyItsDeclaredDependencies() throws {
        let manifest = try String(contentsOfFile: ReportE2E.packageRoot + "/Package.swift", encoding: .utf8)
        let declared = Self.targetDependencies(manifest)
        let libraries = declared.keys.filter { $0.hasPrefix("BGeo") }
        #expect(libraries.count >= 5, "library modules: \(libraries.sorted())")
        // The reader sits below the core: it reads the dump and knows nothing of what is made of it.
        #expect(declared["BGeoReader"] == ["BGeoSQLite", "CCrypto"], "the reader depends on \(declared["BGeoReader"] ?? [])")
        #expect(declared["BGeoForensics"] == ["BGeoReader", "BGeoSQLite", "CLibXML2"], "the core depends on \(declared["BGeoForensics"] ?? [])")
        var strays: [String] = []
        for file in Self.swiftFiles() {
            let relative = file.dropFirst(Self.sources.count + 1)
            let target = String(relative.prefix { $0 != "/" })
            guard let allowed = declared[target] else { continue }
            // BGeoForensics re-exports BGeoSQLite and BGeoReader, so whoever may import the one may
            // import the others.
            let reachable = allowed.union(allowed.contains("BGeoForensics") ? ["BGeoSQLite", "BGeoReader"] : [])
            let text = try String(contentsOfFile: file, encoding: .utf8)
            for line in text.split(separator: "\n") where line.hasPrefix("import ") || line.hasPrefix("@testable import ") {
                let module = String(line.split(separator: " ").last ?? "")
                if (module.hasPrefix("BGeo") || module.hasPrefix("C")) && module != target && !reachable.contains(module) {
                    strays.append("\(relative) imports \(module)")
                }
            }
        }
        #expect(strays.isEmpty, "imports Package.swift does not declare: \(strays)")
    }

    /// `name: "X", dependencies: [...]` of every target in the manifest.
    static func targetDependencies(_ manifest: String) -> [String: Set<String>] {
        var out: [String: Set<String>] = [:]
        let parts = manifest.components(separatedBy: "name: \"").dropFirst()
        for part in parts {
            guard let nameEnd = part.firstIndex(of: "\"") else { continue }
            let name = String(part[..<nameEnd])
            let rest = part[nameEnd...]
            guard let open = rest.range(of: "dependencies: ["), let close = rest[open.upperBound...].firstIndex(of: "]"),
                  !rest[..<open.lowerBound].contains(")") else {
                if out[name] == nil, name.hasPrefix("C") == false { out[name] = [] }
                continue
            }
            let list = rest[open.upperBound..<close].split(separator: ",").map { $0.trimmingCharacters(in: .whitespacesAndNewlines).trimmingCharacters(in: CharacterSet(charactersIn: "\"")) }
            out[name] = Set(list.filter { !$0.isEmpty })
        }
        return out
    }
}
