// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "bgeo-forensics",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "bgeo-forensics", targets: ["bgeo-forensics"]),
        .executable(name: "bgeo-bench", targets: ["bgeo-bench"]),
        .library(name: "BGeoForensics", targets: ["BGeoForensics"]),
    ],
    targets: [
        // Tiny C shims, one per system library (GRDB style): nothing but headers and link flags.
        .systemLibrary(name: "CSQLite", providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "CLibXML2", pkgConfig: "libxml-2.0", providers: [.apt(["libxml2-dev"])]),
        .systemLibrary(name: "CCrypto", providers: [.apt(["libssl-dev"])]),
        // The SQLite connection and statement types: the one module that wraps the C API.
        .target(
            name: "BGeoSQLite",
            dependencies: ["CSQLite"],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        // The reader: the evidence copy, the one module that reads the dump's tables (cursors,
        // column maps, the fix-line parser, salvage, the scan runner), and what reading needs:
        // JSON, time, checked numbers, redaction and terminal escaping, threads.
        .target(
            name: "BGeoReader",
            dependencies: ["BGeoSQLite", "CCrypto"],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        // The core along the data flow after the reader: trace, replay, timeline and its finding
        // rules, the summary and listings, the report and the exports, the output boundary.
        .target(
            name: "BGeoForensics",
            dependencies: ["BGeoReader", "BGeoSQLite", "CLibXML2"],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        // Sanitize: the shareable copy of a dump, with its own raw-byte output check.
        .target(
            name: "BGeoSanitize",
            dependencies: ["BGeoForensics"],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        // Re-sync: the working copy of a stranded queue and the SDK's HTTP(S) contract.
        .target(
            name: "BGeoResync",
            dependencies: ["BGeoForensics", "CCrypto"],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        // Fleet: many dumps, each analysed in a child process, into a ledger or a pipe.
        .target(
            name: "BGeoFleet",
            dependencies: ["BGeoForensics"],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        // Realistic dumps (the simulator, the demo dump) and the fuzz campaign: what the tests,
        // the bench and the `simulate` / `fuzz` commands build their inputs with.
        .target(
            name: "BGeoSimulation",
            dependencies: ["BGeoForensics", "CLibXML2"],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        .executableTarget(
            name: "bgeo-forensics",
            dependencies: ["BGeoFleet", "BGeoForensics", "BGeoResync", "BGeoSanitize", "BGeoSimulation"],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        .executableTarget(
            name: "bgeo-bench",
            dependencies: ["BGeoForensics", "BGeoResync", "BGeoSimulation"],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        .testTarget(
            name: "BGeoForensicsTests",
            dependencies: ["BGeoFleet", "BGeoForensics", "BGeoResync", "BGeoSanitize", "BGeoSimulation"],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        .testTarget(
            name: "EndToEndTests",
            dependencies: ["BGeoFleet", "BGeoForensics", "BGeoResync", "BGeoSanitize", "BGeoSimulation"],
            // The programmable ingest server the re-sync tests start (Python, run as a real process).
            exclude: ["Fixtures"],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
    ]
)
