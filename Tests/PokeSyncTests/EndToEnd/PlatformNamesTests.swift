import Foundation
import Testing

/// The command line and the reader build on Linux and on macOS/iOS, and each compiler sees
/// only its own branch of an `#if`: `Tests/Support/check_platform_names.py` fails on a
/// glibc-only name (`st_mtim`, `epoll_wait`, `mallopt`, ...) outside a Linux branch, and on a
/// Darwin-only one (`st_mtimespec`, `kqueue`) outside a Darwin branch.
@Suite("Platform names")
struct PlatformNamesTests {
    static let checker = SourceChecker("check_platform_names.py", allWell: "no platform-only name outside its branch")

    @Test func noPlatformOnlyNameOutsideItsBranch() async throws {
        try await Self.checker.expectRepositoryKeepsTheRule()
    }

    /// The checker is not vacuous: in a tree of its own, an unguarded use of each platform's
    /// names is found, and the same names inside their branches (nested, or in the `#else`
    /// of the other platform's branch) and in comments are not.
    @Test func theCheckerFindsUnguardedNames() async throws {
        let code = """
            // st_mtim in a comment is not code
            let a = info.st_mtim.tv_sec
            #if os(Linux)
            let b = info.st_mtim.tv_sec
            #if DEBUG
            _ = mallopt(M_ARENA_MAX, 2)
            #endif
            #else
            let c = info.st_mtimespec.tv_sec
            #endif
            #if canImport(Darwin)
            let d = kqueue()
            #else
            let e = epoll_create1(0)
            #endif
            #if DEBUG
            let f = kqueue()
            #endif
            let g = send(s, p, n, Int32(MSG_NOSIGNAL))
            """
        let result = try await Self.checker.withTree(["Sources/Thing/Code.swift": code]) { try await Self.checker.run($0) }
        #expect(result.status == 1, "\(result.text)\n\(result.stderr)")
        let lines = result.text.split(separator: "\n").map(String.init)
        #expect(lines.filter { $0.hasPrefix("Sources/Thing/Code.swift:") }
                == ["Sources/Thing/Code.swift:2: st_mtim (glibc only) outside a #if os(Linux) branch",
                    "Sources/Thing/Code.swift:17: kqueue (Darwin only) outside a #if canImport(Darwin) branch",
                    "Sources/Thing/Code.swift:19: MSG_NOSIGNAL (glibc only) outside a #if os(Linux) branch"],
                "\(result.text)")
    }
}
