import Foundation
import PokeLocking
import PokeSyncCore
import Testing

/// `serve` follows the mirror: a version `sync` publishes is served from the next request
/// on, `prune` runs beside it, and SIGTERM finishes what is in flight.
@Suite("serve: versions, prune and SIGTERM", .serialized)
struct ServeVersionsTests {
    @Test func aVersionPublishedWhileServingIsServedAndPruneRunsBeside() async throws {
        try await withTemporaryDirectory { folder in
            let mirror = try await ServeMirror.make(folder, from: TestPaths.sample2025)
            let server = try await ServeProcess(mirror: mirror)
            let before = try server.get("/api/v2/pokemon/10263/")
            #expect(before.status == 200)
            #expect(try server.get("/api/v2/pokemon/10312/").status == 404)
            let firstTag = try #require(before.headers["x-pokeapi-hash"])

            // Clients keep asking while sync publishes and prune drops version 1.
            let stop = Locked(false)
            let failures = Locked([String]())
            let port = server.port
            let hammer = Thread {
                let paths = ["/api/v2/pokemon/25/", "/api/v2/pokemon-species/25/", "/api/v2/move/?limit=50", "/api/v2/", "/api/v2/type/10/"]
                var index = 0
                while !stop.withLock({ $0 }) {
                    index += 1
                    let path = paths[index % paths.count]
                    do {
                        let response = try ServeProcess.get(port: port, path)
                        if response.status != 200 || (try? JSONSerialization.jsonObject(with: Data(response.body))) == nil {
                            failures.withLock { $0.append("\(path): \(response.status)") }
                        }
                    } catch {
                        failures.withLock { $0.append("\(path): \(error)") }
                    }
                }
            }
            hammer.start()
            let cli = PokesyncCLI(mirror: mirror)
            let sync = try await cli.run(["sync", "--source", TestPaths.sample2026.path, "--sprites", "none"])
            #expect(sync.status == 0, "\(sync.stderr)")
            // From the next request on: no restart.
            let after = try server.get("/api/v2/pokemon/10312/")
            #expect(after.status == 200)
            #expect(try server.get("/api/v2/pokemon/10263/").status == 404)
            let secondTag = try #require(after.headers["x-pokeapi-hash"])
            #expect(secondTag != firstTag)
            let prune = try await cli.run(["prune", "--keep", "1"])
            #expect(prune.status == 0, "\(prune.stderr)")
            #expect(prune.stdout.contains("pruned versions 1"))
            #expect(!prune.stderr.contains("could not be compacted"), "\(prune.stderr)")
            stop.withLock { $0 = true }
            while !hammer.isFinished { usleep(10_000) }
            #expect(failures.withLock { $0 }.isEmpty, "\(failures.withLock { $0 }.prefix(5))")
            // Every document of the version is still served after the prune (cache or store).
            for path in ["/api/v2/pokemon/133/", "/api/v2/evolution-chain/67/", "/api/v2/language/9/", "/api/v2/pokedex/35/"] {
                #expect(try server.get(path).status == 200, "\(path)")
            }
            #expect(try server.get("/api/v2/pokemon/25/").headers["x-pokeapi-hash"] == secondTag)
            #expect(await server.stop().status == 0)
        }
    }

    @Test func sigtermFinishesTheRepliesInFlightAndExits0() async throws {
        try await withTemporaryDirectory { folder in
            let server = try await ServeProcess(mirror: try await ServeMirror.make(folder))
            let plain = try server.get("/api/v2/pokemon/25/").body
            // Ten pipelined 0.6 MB replies, not read yet: most of them wait in the server.
            let busy = try RawConnection(port: server.port)
            try busy.send(String(repeating: "GET /api/v2/pokemon/25/ HTTP/1.1\r\nHost: x\r\n\r\n", count: 10))
            let idle = try RawConnection(port: server.port)
            try idle.send("GET /api/v2/ HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(try idle.readResponse()?.status == 200)
            usleep(300_000)
            kill(server.child.process.processIdentifier, SIGTERM)
            usleep(300_000)
            // The idle keep-alive connection is closed; new connections are refused.
            #expect(idle.closes(within: 5))
            #expect((try? RawConnection(port: server.port)) == nil)
            for index in 0 ..< 10 {
                let response = try #require(try busy.readResponse(), "reply \(index)")
                #expect(response.status == 200 && response.body == plain, "reply \(index)")
            }
            #expect(busy.closes(within: 5))
            let result = await server.stop()
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stdout.contains("stopped"))
        }
    }
}
