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
        .target(
            name: "BGeoForensics",
            dependencies: ["BGeoSQLite", "CLibXML2", "CCrypto"],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        .executableTarget(
            name: "bgeo-forensics",
            dependencies: ["BGeoForensics"],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        .executableTarget(
            name: "bgeo-bench",
            dependencies: ["BGeoForensics"],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        .testTarget(
            name: "BGeoForensicsTests",
            dependencies: ["BGeoForensics"],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        .testTarget(
            name: "EndToEndTests",
            dependencies: ["BGeoForensics"],
            // The programmable ingest server the re-sync tests start (Python, run as a real process).
            exclude: ["Fixtures"],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
    ]
)
