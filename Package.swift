// swift-tools-version:6.0
import PackageDescription

// pokesync: an offline mirror of the PokeAPI. No third-party packages: only
// Foundation, Dispatch, Swift concurrency and the system sqlite3 and zlib.
let package = Package(
    name: "pokesync",
    products: [
        .executable(name: "pokesync", targets: ["pokesync"]),
        .library(name: "PokeSyncCore", targets: ["PokeSyncCore"]),
    ],
    targets: [
        .systemLibrary(name: "CSQLite", path: "Sources/CSQLite", pkgConfig: "sqlite3",
                       providers: [.apt(["libsqlite3-dev"]), .brew(["sqlite"])]),
        .systemLibrary(name: "CZlib", path: "Sources/CZlib", pkgConfig: "zlib",
                       providers: [.apt(["zlib1g-dev"]), .brew(["zlib"])]),
        .target(name: "PokeSyncCore", dependencies: ["CSQLite", "CZlib"]),
        .executableTarget(name: "pokesync", dependencies: ["PokeSyncCore"]),
        .testTarget(name: "PokeSyncTests", dependencies: ["PokeSyncCore", "pokesync"]),
    ],
    swiftLanguageModes: [.v6]
)
