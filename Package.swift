// swift-tools-version:6.0
import PackageDescription

// pokesync: an offline mirror of the PokeAPI, and the library Pokedex apps read it
// with. No third-party packages: only Foundation, Dispatch, Swift concurrency and the
// system sqlite3, zlib and (for the command line's HTTP) libcurl.
//
// Targets by stage:
//   CSQLite, CZlib      the system libraries
//   CCurl               libcurl, the command line's HTTP transport (not the reader's)
//   CPoll               <sys/epoll.h> and <malloc.h> for serve (Linux)
//   CSHA256             SHA-256 blocks on the x86 SHA extensions (our own C; a stub elsewhere)
//   CProcessStart       the executable's first instructions: serve ignores SIGHUP (our own C)
//   PokeLocking         `Locked`, the package's one lock type (every target that locks takes it)
//   PokeSQLite          the SQLite layer (connections, statements, errors)
//   PokeArchive         zlib/gzip streams, SHA-256, tar: shared by writer and reader
//   PokedexReader       what apps import to read: the device schema, content_digest,
//                       queries. Depends on nothing but PokeLocking, PokeSQLite,
//                       PokeArchive and Foundation (so on Foundation, SQLite and zlib):
//                       never on URLSession, which an app that only reads must not load.
//   PokedexUpdater      what apps import to install and update: Updater, its URLSession
//                       transport (FoundationNetworking on Linux), downloads, deltas
//   PokeSyncCore        the mirror: source, crawl, store, diff, export, bundle writer; its API
//                       is `package` (the command line and the tests are its only users)
//   PokeHTTP            serve's HTTP/1.1 server: sockets, poller, workers, connections, head
//                       parsing, replies, access log. Knows nothing of the PokeAPI.
//   PokeServe           `pokesync serve`: a read-only PokeAPI over the latest version, on PokeHTTP
//   pokesync            the command line
//   pokedex-bench       `make bench`'s measure of the reader (not a product; no updater)
//   pokedex-update-bench  `make bench`'s measure of a cancelled update (not a product)
let package = Package(
    name: "pokesync",
    // PokedexReader's floor: the seed apps' minimum, and so the whole package's (SwiftPM has
    // no per-target floor). Nothing uses Synchronization (Mutex is macOS 15+): every target's
    // locks are `Locked` (an NSLock), and where the reader waits, an NSCondition.
    platforms: [.macOS(.v14), .iOS(.v17)],
    products: [
        .executable(name: "pokesync", targets: ["pokesync"]),
        .library(name: "PokedexReader", targets: ["PokedexReader"]),
        .library(name: "PokedexUpdater", targets: ["PokedexUpdater"]),
    ],
    targets: [
        .systemLibrary(name: "CSQLite", path: "Sources/CSQLite", pkgConfig: "sqlite3",
                       providers: [.apt(["libsqlite3-dev"]), .brew(["sqlite"])]),
        .systemLibrary(name: "CZlib", path: "Sources/CZlib", pkgConfig: "zlib",
                       providers: [.apt(["zlib1g-dev"]), .brew(["zlib"])]),
        // The command line (the crawler and `install`) talks HTTP through libcurl itself, not
        // URLSession, on Linux and macOS (which ships libcurl); Sources.md, "The HTTP
        // transport", says why. The updater (PokedexUpdater) keeps URLSession: apps need nothing else.
        .systemLibrary(name: "CCurl", path: "Sources/CCurl", pkgConfig: "libcurl",
                       providers: [.apt(["libcurl4-openssl-dev"])]),
        // The package's one lock type, below everything that locks.
        .target(name: "PokeLocking"),
        .target(name: "PokeSQLite", dependencies: ["CSQLite"]),
        // SHA-NI compression for PokeArchive's SHA256, chosen at run time; a stub off x86.
        .target(name: "CSHA256"),
        .target(name: "PokeArchive", dependencies: ["CZlib", "CSHA256"]),
        .target(name: "PokedexReader", dependencies: ["PokeLocking", "PokeSQLite", "PokeArchive"]),
        // The updater apart from the reader: URLSession (FoundationNetworking and libcurl on
        // Linux) is loaded only by an app that updates, never by one that only reads.
        .target(name: "PokedexUpdater", dependencies: ["PokedexReader", "PokeLocking", "PokeSQLite", "PokeArchive"]),
        .target(name: "PokeSyncCore", dependencies: ["PokedexReader", "PokedexUpdater", "PokeSQLite", "PokeArchive", "PokeLocking", "CSQLite", "CZlib",
                                                     .target(name: "CCurl", condition: .when(platforms: [.linux, .macOS]))]),
        // `pokesync serve`: the HTTP server on its own (PokeHTTP: sockets and HTTP only, none of
        // the mirror), and the PokeAPI routes over a version on top of it (PokeServe).
        .systemLibrary(name: "CPoll", path: "Sources/CPoll"),
        .target(name: "PokeHTTP", dependencies: ["CPoll", "PokeLocking"]),
        .target(name: "PokeServe", dependencies: ["PokeHTTP", "PokeSyncCore", "PokeSQLite", "PokeArchive", "PokeLocking", "CPoll"]),
        // SIGHUP ignored by `serve` before the libraries' initializers and Swift's main run.
        .target(name: "CProcessStart"),
        .executableTarget(name: "pokesync", dependencies: ["PokeSyncCore", "PokedexUpdater", "PokeServe", "PokeHTTP", "PokeLocking", "CProcessStart"]),
        // Benchmark tooling for `make bench`: the reader as an app uses it.
        .executableTarget(name: "pokedex-bench", dependencies: ["PokedexReader", "PokeSQLite"]),
        // `make bench`'s measure of the updater: how soon a cancelled update returns.
        .executableTarget(name: "pokedex-update-bench", dependencies: ["PokedexUpdater", "PokedexReader"]),
        // The reader on its own: no crawler, databases from Tests/Support/make_device_db.py.
        .testTarget(name: "PokedexReaderTests", dependencies: ["PokedexReader", "PokeSQLite"]),
        .testTarget(name: "PokeSyncTests", dependencies: ["PokeSyncCore", "PokeHTTP", "PokeServe", "PokedexReader", "PokedexUpdater", "PokeLocking", "pokesync"]),
    ],
    swiftLanguageModes: [.v6]
)
