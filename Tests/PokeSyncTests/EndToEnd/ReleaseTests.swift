import Foundation
import Testing
@testable import PokeSyncCore

/// Which build runs: `pokesync --version` and `status --json` name the release and the
/// commit it was built from, so that an upgrade is visible; the Makefile writes the
/// checkout's commit into the build (once per change; `swiftc` compiles it as the Makefile's
/// flag does and the program names it), and says none outside git; the
/// package lines the README and PokedexReader's article show name this release.
@Suite("Release: the version and the commit a binary names")
struct ReleaseTests {
    static let tools = ["/usr/bin/make", "/usr/bin/git"]

    @Test func versionAndStatusNameTheReleaseAndTheCommit() async throws {
        #expect(PokeSync.version == "0.3.0")
        let commit = PokeSync.commit.map { "commit \($0)" } ?? "unknown commit"
        let version = try await runProgram(PokesyncCLI.binary.path, ["--version"])
        #expect(version.status == 0 && version.text == "pokesync \(PokeSync.version) (\(commit))", "\(version.text)")
        try await withTemporaryDirectory { scratch in
            let cli = PokesyncCLI(mirror: scratch.appendingPathComponent("Mirror"))
            try #require(try await cli.run(["full", "--source", TestPaths.sample2025.path, "--sprites", "none"]).status == 0)
            let status = try await cli.run(["status", "--json"])
            let object = try #require(try JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [String: Any])
            let build = try #require(object["pokesync"] as? [String: Any], "\(status.stdout)")
            #expect(build["version"] as? String == PokeSync.version)
            // null when the build does not know it, never left out.
            #expect(build.keys.contains("commit") && (build["commit"] as? String) == PokeSync.commit, "\(build)")
        }
    }

    @Test(.enabled(if: tools.allSatisfy { FileManager.default.isExecutableFile(atPath: $0) }, "needs make and git"))
    func theMakefileWritesTheCheckoutsCommitOnlyWhenItChanges() async throws {
        try await withTemporaryDirectory { scratch in
            let file = scratch.appendingPathComponent("BuildCommit.generated.swift")
            let make = ["-s", "-C", TestPaths.packageRoot.path, "build-commit", "BUILD_COMMIT_FILE=\(file.path)"]
            let first = try await runProgram("/usr/bin/make", make)
            try #require(first.status == 0, "\(first.stderr)")
            let describe = try await runProgram("/usr/bin/git", ["-C", TestPaths.packageRoot.path, "describe", "--always", "--dirty", "--abbrev=12"])
            try #require(describe.status == 0 && !describe.text.isEmpty, "\(describe.stderr)")
            let text = try String(contentsOf: file, encoding: .utf8)
            #expect(text.contains("let buildCommit: String? = \"\(describe.text)\"\n"), "\(text)")
            // Compiled as the Makefile's builds compile it (its BUILD_COMMIT_FLAG), the release
            // and that commit are what the binary says.
            let makefile = try String(contentsOf: TestPaths.packageRoot.appendingPathComponent("Makefile"), encoding: .utf8)
            let flag = try #require(makefile.split(separator: "\n").first { $0.hasPrefix("BUILD_COMMIT_FLAG =") })
            let defines = flag.split(separator: " ").filter { $0.hasPrefix("-D") }.map(String.init)
            #expect(defines == ["-DPOKESYNC_BUILD_COMMIT"], "\(flag)")
            let main = scratch.appendingPathComponent("main.swift"), program = scratch.appendingPathComponent("says")
            try "print(PokeSync.versionLine)\n".write(to: main, atomically: true, encoding: .utf8)
            let source = TestPaths.packageRoot.appendingPathComponent("Sources/PokeSyncCore/Support/PokeSync.swift")
            let compile = try await runProgram("swiftc", ["-swift-version", "6", "-package-name", "pokesync"] + defines
                                               + [source.path, file.path, main.path, "-o", program.path], heavy: true)
            try #require(compile.status == 0, "\(compile.stderr)")
            #expect(try await runProgram(program.path, []).text == "\(PokeSync.version) (commit \(describe.text))")

            // An unchanged checkout leaves the file as it is: nothing rebuilds.
            let before = try FileManager.default.attributesOfItem(atPath: file.path)[.modificationDate] as? Date
            #expect(try await runProgram("/usr/bin/make", make).status == 0)
            #expect(try FileManager.default.attributesOfItem(atPath: file.path)[.modificationDate] as? Date == before)

            // A tarball's build (no git around it) says it does not know.
            let tarball = scratch.appendingPathComponent("tarball")
            try FileManager.default.createDirectory(at: tarball, withIntermediateDirectories: false)
            try FileManager.default.copyItem(at: TestPaths.packageRoot.appendingPathComponent("Makefile"),
                                             to: tarball.appendingPathComponent("Makefile"))
            let outside = tarball.appendingPathComponent("commit.swift")
            let none = try await runProgram("/usr/bin/make", ["-s", "-C", tarball.path, "build-commit", "BUILD_COMMIT_FILE=\(outside.path)"],
                                            environment: ProcessInfo.processInfo.environment.merging(["GIT_CEILING_DIRECTORIES": scratch.path]) { $1 })
            #expect(none.status == 0, "\(none.stderr)")
            #expect(try String(contentsOf: outside, encoding: .utf8).contains("let buildCommit: String? = nil\n"))
        }
    }

    @Test func thePackageLinesNameThisRelease() throws {
        let readme = try String(contentsOf: TestPaths.packageRoot.appendingPathComponent("README.md"), encoding: .utf8)
        let reader = try String(contentsOf: TestPaths.packageRoot.appendingPathComponent(
            "Sources/PokedexReader/PokedexReader.docc/PokedexReader.md"), encoding: .utf8)
        for (name, text) in [("README.md", readme), ("PokedexReader.md", reader)] {
            #expect(text.contains(".package(url: \"https://example.org/pokesync.git\", from: \"\(PokeSync.version)\")"), "\(name)")
        }
        #expect(readme.contains("User-Agent: pokesync/\(PokeSync.version) ("))
    }
}
