import Foundation
import PokeLocking
import PokeSyncCore
import Testing

/// "Growing past one machine"'s load-balancer recipe, run as written: nginx with the
/// article's `upstream` block in front of two `serve` replicas; one replica is killed
/// (`kill`: SIGTERM, as systemd or a deploy stops it) while clients keep asking, and no
/// request fails. Skipped without nginx. (SIGKILL can cut the one body a replica is
/// writing at that instant, which no balancer can retry once its head went out: the
/// article says so.)
@Suite("serve: replicas behind nginx", .serialized)
struct ServeLoadBalancerTests {
    @Test(.enabled(if: StaticHostingTests.nginx != nil, "needs nginx (apt-get install nginx-light)"))
    func oneReplicaKilledUnderLoadFailsNoRequest() async throws {
        try await withTemporaryDirectory { folder in
            chmod(folder.path, 0o755)  // nginx's workers may run as another user when the tests run as root
            // Replicas would each hold their own mirror; one folder serves the same content here.
            let mirror = try await ServeMirror.make(folder)
            let flags = ["--max-connections-per-address", "1024"]
            let doomed = try await ServeProcess(mirror: mirror, flags), survivor = try await ServeProcess(mirror: mirror, flags)
            let recipe = try Self.recipe()
                .replacingOccurrences(of: "127.0.0.1:8081", with: "127.0.0.1:\(doomed.port)")
                .replacingOccurrences(of: "127.0.0.1:8082", with: "127.0.0.1:\(survivor.port)")
            let balancer = try NginxProcess(serverBlock: recipe, root: folder, scratch: folder)
            defer { balancer.stop() }
            #expect(try ServeProcess.get(port: balancer.port, "/api/v2/pokemon/25/").status == 200)

            let paths = ["/api/v2/pokemon/25/", "/api/v2/", "/api/v2/type/10/", "/api/v2/move/?limit=5", "/api/v2/stat/1/",
                         "/api/v2/pokemon/133/", "/api/v2/pokemon-species/25/"]
            let stop = Locked(false), answered = Locked(0), failures = Locked([String]())
            let port = balancer.port
            let group = DispatchGroup()
            for client in 0 ..< 4 {
                group.enter()
                Thread {
                    defer { group.leave() }
                    var connection: RawConnection?
                    var index = client
                    while !stop.withLock({ $0 }) {
                        let path = paths[index % paths.count]
                        index += 1
                        do {
                            if connection == nil { connection = try RawConnection(port: port) }
                            try connection!.send("GET \(path) HTTP/1.1\r\nHost: pokeapi.example.org\r\n\r\n")
                            guard let response = try connection!.readResponse() else {
                                failures.withLock { $0.append("\(path): no answer") }
                                connection = nil
                                continue
                            }
                            if response.status == 200 {
                                answered.withLock { $0 += 1 }
                            } else {
                                failures.withLock { $0.append("\(path): \(response.status) \(response.text)") }
                            }
                            if response.headers["connection"] == "close" { connection = nil }
                        } catch {
                            failures.withLock { $0.append("\(path): \(error)") }
                            connection = nil
                        }
                    }
                }.start()
            }
            usleep(1_000_000)
            let before = answered.withLock { $0 }
            kill(doomed.child.process.processIdentifier, SIGTERM)
            usleep(2_000_000)
            stop.withLock { $0 = true }
            group.wait()
            let total = answered.withLock { $0 }
            #expect(failures.withLock { $0 }.isEmpty, "\(failures.withLock { $0 }.prefix(5))")
            #expect(before > 0 && total > before, "answered \(before) before the kill, \(total) in all")
            doomed.child.process.waitUntilExit()
            #expect(await survivor.stop().status == 0)
        }
    }

    /// The ```nginx block after "## Replicas behind a load balancer" in the article.
    static func recipe() throws -> String {
        let article = try String(contentsOf: TestPaths.packageRoot
            .appendingPathComponent("Sources/PokeServe/PokeServe.docc/GrowingPastOneMachine.md"), encoding: .utf8)
        let section = try #require(article.range(of: "## Replicas behind a load balancer"))
        let start = try #require(article.range(of: "```nginx\n", range: section.upperBound..<article.endIndex))
        let end = try #require(article.range(of: "```", range: start.upperBound..<article.endIndex))
        return String(article[start.upperBound..<end.lowerBound])
    }
}
