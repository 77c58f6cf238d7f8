// swift-tools-version: 6.0
//
// Quire — an embedded, offline-first object store for Swift.
// Layers (bottom to top): CLMDB (C seam) → LMDB (storage) → … → the `quire` tool.
// See docs/architecture.md.

import PackageDescription

let package = Package(
    name: "Quire",
    platforms: [
        // Linux first; Apple platforms are declared so the package resolves there.
        // `Mutex` (Synchronization) needs these minimums.
        .macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2),
    ],
    products: [
        .library(name: "LMDB", targets: ["LMDB"]),
        .library(name: "QuireCore", targets: ["QuireCore"]),
        .library(name: "Quire", targets: ["Quire"]),
        .executable(name: "quire", targets: ["quire"]),
    ],
    targets: [
        // The one C seam: the system liblmdb, from Debian's liblmdb-dev.
        .systemLibrary(
            name: "CLMDB",
            pkgConfig: "lmdb",
            providers: [.apt(["liblmdb-dev"]), .brew(["lmdb"])]
        ),

        // zlib, for gzip-compressed traces and deflated delta files.
        .systemLibrary(
            name: "CZlib",
            pkgConfig: "zlib",
            providers: [.apt(["zlib1g-dev"]), .brew(["zlib"])]
        ),

        // Storage layer: the only module that calls `mdb_*`.
        .target(name: "LMDB", dependencies: ["CLMDB"]),

        // Replication core: identities, clocks, version vectors, encodings and the CRDTs.
        // Pure Swift, no I/O, no LMDB — it is fuzzed and tested on its own.
        .target(name: "QuireCore"),

        // Object store: the replication core persisted through the storage layer.
        .target(name: "Quire", dependencies: ["LMDB", "QuireCore", "CZlib"]),

        // The two reference apps of the brief as Quire records: the writing app (projects,
        // folders, files) and the flash-card app (categories, notes, clues). The tool's
        // binder and cards commands, the demo and the store tests use them.
        .target(name: "QuireApps", dependencies: ["Quire"]),

        // The command-line tool: argument parsing and commands live in a library so
        // tests can drive them; `quire` is a three-line `main`.
        .target(name: "QuireTool", dependencies: ["LMDB", "QuireCore", "Quire", "QuireApps", "CZlib"]),
        .executableTarget(name: "quire", dependencies: ["QuireTool"]),

        // Shared by the test targets: temporary directories, locating built products,
        // running child processes, threads.
        .target(name: "QuireTestSupport", dependencies: ["QuireCore"], path: "Tests/QuireTestSupport"),
        .testTarget(
            name: "LMDBTests",
            dependencies: ["LMDB", "QuireCore", "QuireTestSupport", "lmdb-test-writer"]
        ),
        .testTarget(
            name: "QuireCoreTests",
            dependencies: ["QuireCore", "QuireTestSupport"]
        ),
        .testTarget(
            name: "QuireTests",
            dependencies: ["Quire", "QuireApps", "QuireTestSupport", "store-test-typist"],
            // Files of earlier formats, read through #filePath by the compatibility tests.
            exclude: ["Fixtures"]
        ),
        .testTarget(
            name: "QuireToolTests",
            dependencies: ["QuireTool", "Quire", "QuireApps", "QuireTestSupport", "quire"]
        ),

        // A second process for the multi-process tests: writes into an environment
        // that the test process has open.
        .executableTarget(
            name: "lmdb-test-writer",
            dependencies: ["LMDB"],
            path: "Tests/LMDBTestWriter"
        ),

        // A second process for the autosave kill test: types into a store, acknowledging
        // each durable keystroke, until the test kills it.
        .executableTarget(
            name: "store-test-typist",
            dependencies: ["Quire", "QuireCore"],
            path: "Tests/StoreTestTypist"
        ),
    ],
    swiftLanguageModes: [.v6]
)
