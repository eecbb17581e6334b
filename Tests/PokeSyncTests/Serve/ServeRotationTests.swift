import Foundation
import PokeLocking
import PokeSyncCore
import Testing

/// The shipped logrotate snippet (`cron/pokesync-serve.logrotate`: `create`, then a reload
/// that sends SIGHUP), run by real `logrotate` against a serve under load: every answer
/// has its line in one of the files, none lost, none cut (<doc:PokeServe/Serving>).
@Suite("serve: logrotate's create and SIGHUP lose no line", .serialized)
struct ServeRotationTests {
    static let logrotate: String? = ["/usr/sbin/logrotate", "/usr/bin/logrotate"].first {
        FileManager.default.isExecutableFile(atPath: $0)
    }
    static let snippet = TestPaths.packageRoot.appendingPathComponent("cron/pokesync-serve.logrotate")

    @Test(.enabled(if: logrotate != nil, "needs logrotate (apt-get install logrotate)"))
    func theShippedSnippetRotatesUnderLoadAndLosesNoLine() async throws {
        try await withTemporaryDirectory { folder in
            let logs = folder.appendingPathComponent("logs")
            try FileManager.default.createDirectory(at: logs, withIntermediateDirectories: true)
            let log = logs.appendingPathComponent("access.log")
            let server = try await ServeProcess(mirror: try await ServeMirror.make(folder),
                                          ["--access-log", log.path, "--metrics-listen", "127.0.0.1:0"])
            let metricsPort = try #require(server.metricsPort)
            // The snippet as shipped, its paths in this folder: the log, the user that owns
            // it (this test's), and SIGHUP sent straight to this serve rather than through
            // systemctl.
            let shipped = try String(contentsOf: Self.snippet, encoding: .utf8)
            #expect(shipped.contains("create 0640 pokesync pokesync") && shipped.contains("systemctl reload pokesync-serve.service")
                    
                    && !shipped.split(separator: "\n").contains { $0.trimmingCharacters(in: .whitespaces).hasPrefix("copytruncate") })
            let config = shipped
                .replacingOccurrences(of: "/var/log/pokesync/access.log", with: log.path)
                .replacingOccurrences(of: "create 0640 pokesync pokesync", with: "create 0640")
                .replacingOccurrences(of: "systemctl reload pokesync-serve.service", with: "kill -HUP \(server.child.process.processIdentifier)")
            let configFile = folder.appendingPathComponent("logrotate.conf"), state = folder.appendingPathComponent("logrotate.state")
            try config.write(to: configFile, atomically: true, encoding: .utf8)
            #expect(chmod(configFile.path, 0o644) == 0)

            // Four clients on keep-alive connections, each counting its answers, a fresh
            // connection every 200 requests (new connections' requests too).
            let stop = Locked(false), answers = Locked(0), failures = Locked([String]())
            let port = server.port
            let clients = (0 ..< 4).map { index in
                Thread {
                    var count = 0
                    do {
                        while !stop.withLock({ $0 }) {
                            let connection = try RawConnection(port: port)
                            for _ in 0 ..< 200 where !stop.withLock({ $0 }) {
                                try connection.send("GET /api/v2/stat/\(index + 1)/ HTTP/1.1\r\nHost: x\r\n\r\n")
                                guard try connection.readResponse()?.status == 200 else { throw ServeTestError("not 200") }
                                count += 1
                            }
                        }
                    } catch {
                        failures.withLock { $0.append("\(error)") }
                    }
                    answers.withLock { $0 += count }
                }
            }
            clients.forEach { $0.start() }
            for _ in 0 ..< 3 {
                usleep(400_000)
                let rotated = try await runProgram(Self.logrotate!, ["-f", "-s", state.path, configFile.path])
                #expect(rotated.status == 0, "\(rotated.text) \(rotated.stderr)")
            }
            usleep(400_000)
            stop.withLock { $0 = true }
            while clients.contains(where: { !$0.isFinished }) { usleep(10_000) }
            #expect(failures.withLock { $0 }.isEmpty, "\(failures.withLock { $0 })")
            let answered = answers.withLock { $0 }
            #expect(answered > 0)
            let metrics = try ServeOperationsTests.scrape(port: metricsPort) {
                ServeOperationsTests.value($0, #"pokesync_serve_requests_total{route="document",status="200"}"#) == Double(answered)
            }
            #expect(ServeOperationsTests.value(metrics, "pokesync_serve_access_log_dropped_lines_total") == 0)
            #expect(await server.stop().status == 0)

            // access.log, access.log.1 (delaycompress) and the older ones gzip'd.
            var lines: [Substring] = []
            for file in try FileManager.default.contentsOfDirectory(atPath: logs.path).sorted() {
                let path = logs.appendingPathComponent(file).path
                let text = file.hasSuffix(".gz") ? String(decoding: try await runProgram("/bin/gzip", ["-dc", path]).stdout, as: UTF8.self)
                    : try String(contentsOfFile: path, encoding: .utf8)
                #expect(text.isEmpty || text.hasSuffix("\n"), "\(file) ends in the middle of a line")
                lines += text.split(separator: "\n")
            }
            let files = try FileManager.default.contentsOfDirectory(atPath: logs.path)
            #expect(files.contains("access.log.1") && files.contains("access.log.2.gz"), "\(files)")
            #expect(lines.count == answered, "\(lines.count) lines for \(answered) answers")
            #expect(lines.allSatisfy { $0.range(of: ServeOperationsTests.combined, options: .regularExpression) != nil })
        }
    }
}
