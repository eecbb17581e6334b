import Foundation
import PokeArchive
import Testing

/// The static-hosting recipe (<doc:PokeSyncCore/ApiDataExport#Static-hosting>), run: nginx
/// serves an `export --format api-data --base-url URL --gzip` of the whole-API sample with
/// the article's own `server` block, and
/// answers ids, names, lists, the root and encounters by id and by name from the export
/// alone, gzip included. Skipped without nginx.
@Suite("Static hosting of an api-data export with nginx")
struct StaticHostingTests {
    static let nginx: String? = ["/usr/sbin/nginx", "/usr/local/sbin/nginx", "/usr/bin/nginx"]
        .first { FileManager.default.isExecutableFile(atPath: $0) }
    static let base = "https://pokeapi.example.org"

    @Test(.enabled(if: nginx != nil, "needs nginx (apt-get install nginx-light)"))
    func nginxServesTheExport() async throws {
        try await withTemporaryDirectory { scratch in
            // nginx's workers may run as another user when the tests run as root.
            chmod(scratch.path, 0o755)
            let cli = try await ApiDataAliasTests.mirror(scratch)
            let tree = scratch.appendingPathComponent("data")
            let export = try await cli.run(["export", "--format", "api-data", "--out", tree.path, "--base-url", Self.base, "--gzip"])
            try #require(export.status == 0, "\(export.stderr)")
            let server = try NginxProcess(serverBlock: try Self.recipe(), root: tree, scratch: scratch)
            defer { server.stop() }

            let encountersOf10196 = "api/v2/pokemon/10196/encounters/index.json"
            let name10196 = try ApiDataAliasTests.name(tree.appendingPathComponent("api/v2/pokemon/10196/index.json"))
            let cases: [(path: String, file: String)] = [
                ("/api/v2/", "api/v2/index.json"),
                ("/api/v2/pokemon/", "api/v2/pokemon/index.json"),
                ("/api/v2/item/", "api/v2/item/index.json"),
                ("/api/v2/pokemon/1/", "api/v2/pokemon/1/index.json"),
                ("/api/v2/pokemon/bulbasaur/", "api/v2/pokemon/1/index.json"),
                ("/api/v2/move-ailment/-1/", "api/v2/move-ailment/-1/index.json"),
                ("/api/v2/move-ailment/unknown/", "api/v2/move-ailment/-1/index.json"),
                ("/api/v2/item/roseli-berry/", "api/v2/item/2279/index.json"),
                ("/api/v2/meta/", "api/v2/meta/index.json"),
                ("/api/v2/pokemon/10196/encounters", encountersOf10196),
                ("/api/v2/pokemon/10196/encounters/", encountersOf10196),
                ("/api/v2/pokemon/\(name10196)/encounters/", encountersOf10196),
            ]
            for (path, file) in cases {
                let expected = [UInt8](try Data(contentsOf: tree.appendingPathComponent(file)))
                let plain = try ServeProcess.get(port: server.port, path)
                #expect(plain.status == 200 && plain.body == expected, "\(path): \(plain.status)")
                #expect(plain.headers["content-type"] == "application/json", "\(path)")
                #expect(plain.headers["content-encoding"] == nil, "\(path)")
                let packed = try ServeProcess.get(port: server.port, path, headers: ["Accept-Encoding: gzip"])
                #expect(packed.status == 200 && packed.headers["content-encoding"] == "gzip", "\(path): \(packed.headers)")
                #expect(try Zlib.decompress(packed.body, format: .gzip) == expected, "\(path)")
            }
            // The deploy's links point at the site.
            let bulbasaur = try JSONSerialization.jsonObject(with: Data(try ServeProcess.get(port: server.port, "/api/v2/pokemon/bulbasaur/").body))
            let species = (bulbasaur as? [String: Any])?["species"] as? [String: Any]
            #expect(species?["url"] as? String == "\(Self.base)/api/v2/pokemon-species/1/")
            #expect(try ServeProcess.get(port: server.port, "/api/v2/pokemon/pikachu/").status == 404)
        }
    }

    /// The ```nginx block after "## Static hosting" in the api-data export's article.
    static func recipe() throws -> String {
        let article = "Sources/PokeSyncCore/PokeSyncCore.docc/ApiDataExport.md"
        let text = try String(contentsOf: TestPaths.packageRoot.appendingPathComponent(article), encoding: .utf8)
        let section = try #require(text.range(of: "## Static hosting"))
        let start = try #require(text.range(of: "```nginx\n", range: section.upperBound..<text.endIndex))
        let end = try #require(text.range(of: "```", range: start.upperBound..<text.endIndex))
        return String(text[start.upperBound..<end.lowerBound])
    }
}

/// nginx in one process (`master_process off`, so a kill leaves no worker behind) on a
/// free port of 127.0.0.1, serving `root` with a `server` block whose `listen` and `root`
/// lines are replaced.
final class NginxProcess {
    let port: Int
    private let process: Process

    init(serverBlock: String, root: URL, scratch: URL) throws {
        let folder = scratch.appendingPathComponent("nginx")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        var attempt = 0
        while true {
            attempt += 1
            let port = try Self.freePort()
            let server = serverBlock.split(separator: "\n", omittingEmptySubsequences: false).map { line -> String in
                let trimmed = line.trimmingCharacters(in: .whitespaces)
                if trimmed.hasPrefix("listen ") { return "    listen 127.0.0.1:\(port);" }
                if trimmed.hasPrefix("root ") { return "    root \(root.path);" }
                return String(line)
            }.joined(separator: "\n")
            let temporary = ["client_body", "proxy", "fastcgi", "uwsgi", "scgi"].map { "\($0)_temp_path \(folder.path);" }
            let configuration = """
                master_process off;
                daemon off;
                pid \(folder.path)/nginx.pid;
                error_log \(folder.path)/error.log;
                events { worker_connections 64; }
                http {
                    access_log off;
                    \(temporary.joined(separator: "\n    "))
                \(server)
                }
                """
            let file = folder.appendingPathComponent("nginx.conf")
            try configuration.write(to: file, atomically: true, encoding: .utf8)
            let process = Process()
            process.executableURL = URL(fileURLWithPath: StaticHostingTests.nginx!)
            process.arguments = ["-e", folder.appendingPathComponent("error.log").path, "-p", folder.path, "-c", file.path]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            let deadline = Date().addingTimeInterval(10)
            while process.isRunning, Date() < deadline, (try? RawConnection(port: port)) == nil { usleep(20_000) }
            if process.isRunning, (try? RawConnection(port: port)) != nil {
                self.port = port
                self.process = process
                return
            }
            if process.isRunning { kill(process.processIdentifier, SIGKILL); process.waitUntilExit() }
            // Another program took the port between the probe and nginx's bind: again.
            guard attempt < 3 else {
                let log = (try? String(contentsOf: folder.appendingPathComponent("error.log"), encoding: .utf8)) ?? ""
                throw ServeTestError("nginx did not start: \(log)")
            }
        }
    }

    func stop() {
        guard process.isRunning else { return }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    deinit { stop() }

    /// A port nothing listens on now (bound, read back, closed).
    static func freePort() throws -> Int {
        #if canImport(Glibc)
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let descriptor = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, length) == 0 && getsockname(descriptor, $0, &length) == 0
            }
        }
        guard bound else { throw ServeTestError("no free port: \(errno)") }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
