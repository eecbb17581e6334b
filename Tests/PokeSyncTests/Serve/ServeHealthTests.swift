import Foundation
import PokeSyncCore
import Testing

/// `/healthz` and the version metrics follow the mirror with no public request, count
/// every reopen of the store, and tell a store that cannot be read from one that is
/// missing (<doc:PokeServe/Serving>, "Running it").
@Suite("serve: health follows the mirror", .serialized)
struct ServeHealthTests {
    typealias Operations = ServeOperationsTests

    /// `/healthz` from the metrics address, asked again (for up to 10 s) until `until` holds.
    static func health(port: Int, until: (RawResponse) -> Bool) throws -> RawResponse {
        let deadline = Date().addingTimeInterval(10)
        while true {
            let response = try ServeProcess.get(port: port, "/healthz")
            if until(response) || Date() > deadline { return response }
            usleep(50_000)
        }
    }

    @Test func aVersionPublishedIsNamedWithoutAPublicRequest() async throws {
        try await withTemporaryDirectory { folder in
            let mirror = try await ServeMirror.make(folder, from: TestPaths.sample2025)
            let server = try await ServeProcess(mirror: mirror, ["--metrics-listen", "127.0.0.1:0"])
            let metricsPort = try #require(server.metricsPort)
            #expect(try ServeProcess.get(port: metricsPort, "/healthz").text == #"{"status":"ok","version":1}"#)
            let sync = try await PokesyncCLI(mirror: mirror).run(["sync", "--source", TestPaths.sample2026.path, "--sprites", "none"])
            #expect(sync.status == 0, "\(sync.stderr)")
            // Only the metrics address is asked: no public request loads the version.
            let healthy = try Self.health(port: metricsPort) { $0.text.contains("\"version\":2") }
            #expect(healthy.status == 200 && healthy.text == #"{"status":"ok","version":2}"#, "\(healthy.text)")
            let text = try Operations.scrape(port: metricsPort)
            #expect(Operations.value(text, "pokesync_serve_version") == 2)
            #expect(Operations.value(text, "pokesync_serve_requests_total{route=\"document\",status=\"200\"}") == nil, "\(text)")

            // A restore: another file renamed into place, the same version in it. The first
            // reopen is counted.
            let store = mirror.appendingPathComponent("store.sqlite"), copy = folder.appendingPathComponent("copy.sqlite")
            let backup = try await runProgram("/usr/bin/sqlite3", [store.path, ".backup '\(copy.path)'"])
            #expect(backup.status == 0, "\(backup.stderr)")
            try? FileManager.default.removeItem(at: mirror.appendingPathComponent("store.sqlite-wal"))
            try? FileManager.default.removeItem(at: mirror.appendingPathComponent("store.sqlite-shm"))
            #expect(rename(copy.path, store.path) == 0)
            let reopened = try Operations.scrape(port: metricsPort) { Operations.value($0, "pokesync_serve_store_reopens_total") == 1 }
            #expect(Operations.value(reopened, "pokesync_serve_store_reopens_total") == 1, "\(reopened)")
            #expect(try ServeProcess.get(port: metricsPort, "/healthz").text == #"{"status":"ok","version":2}"#)
            #expect(await server.stop().status == 0)
        }
    }

    /// A store, or its folder, that serve's user cannot read: 503 "cannot be read" (a
    /// restart or the next sync would fail), not "missing". serve runs as root without the
    /// capabilities that pass over file permissions, as an ordinary user would.
    @Test(.enabled(if: getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv"),
                   "needs root and setpriv (util-linux) to run serve without CAP_DAC_OVERRIDE"))
    func anUnreadableStoreIsNotHealthyAndNotMissing() async throws {
        try await withTemporaryDirectory { folder in
            let mirror = try await ServeMirror.make(folder)
            let child = PokesyncCLI(mirror: mirror).start(["serve", "--listen", "127.0.0.1:0", "--metrics-listen", "127.0.0.1:0"])
            child.process.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
            child.process.arguments = ["--bounding-set=-dac_override,-dac_read_search", PokesyncCLI.binary.path]
                + child.process.arguments!
            let server = try await ServeProcess(child: child)
            let metricsPort = try #require(server.metricsPort)
            #expect(try ServeProcess.get(port: metricsPort, "/healthz").status == 200)
            let store = mirror.appendingPathComponent("store.sqlite")
            for (target, restore) in [(store.path, 0o644), (mirror.path, 0o755)] {
                #expect(chmod(target, 0) == 0)
                let unreadable = try ServeProcess.get(port: metricsPort, "/healthz")
                #expect(unreadable.status == 503 && unreadable.text.contains("cannot be read: Permission denied")
                        && !unreadable.text.contains("missing"), "\(target): \(unreadable.text)")
                #expect(chmod(target, mode_t(restore)) == 0)
                #expect(try ServeProcess.get(port: metricsPort, "/healthz").status == 200)
            }
            let aside = folder.appendingPathComponent("aside.sqlite")
            try FileManager.default.moveItem(at: store, to: aside)
            let missing = try ServeProcess.get(port: metricsPort, "/healthz")
            #expect(missing.status == 503 && missing.text.contains("is missing"), "\(missing.text)")
            try FileManager.default.moveItem(at: aside, to: store)
            #expect(await server.stop().status == 0)
        }
    }
}
