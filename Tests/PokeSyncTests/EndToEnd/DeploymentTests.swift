import Foundation
import Testing
@testable import pokesync

/// The production recipe's pieces, run: the systemd units in `cron/` pass
/// `systemd-analyze verify`, and nginx with the Deployment article's block serves a
/// mirror's bundles folder in place to `pokesync install --from`. Each is skipped with a
/// line when its program is missing.
@Suite("Deployment: service units and bundles served in place")
struct DeploymentTests {
    static let analyze: String? = ["/usr/bin/systemd-analyze", "/bin/systemd-analyze"]
        .first { FileManager.default.isExecutableFile(atPath: $0) }
    static let cron = TestPaths.packageRoot.appendingPathComponent("cron")
    static let article = TestPaths.packageRoot.appendingPathComponent("Sources/PokeSyncCore/PokeSyncCore.docc/Deployment.md")

    @Test(.enabled(if: analyze != nil, "needs systemd-analyze (apt-get install systemd)"))
    func theServiceUnitsVerify() async throws {
        try await withTemporaryDirectory { scratch in
            // verify needs each ExecStart program to exist: the units as shipped, with the
            // installed paths pointing at this build's binary and the checkout's script.
            let names = ["pokesync-serve.service", "pokesync-nightly.service", "pokesync-nightly.timer"]
            for name in names {
                let text = try String(contentsOf: Self.cron.appendingPathComponent(name), encoding: .utf8)
                let local = text
                    .replacingOccurrences(of: "/usr/local/bin/pokesync", with: PokesyncCLI.binary.path)
                    .replacingOccurrences(of: "/usr/local/lib/pokesync/pokesync-nightly.sh",
                                          with: Self.cron.appendingPathComponent("pokesync-nightly.sh").path)
                try local.write(to: scratch.appendingPathComponent(name), atomically: true, encoding: .utf8)
            }
            let result = try await runProgram(Self.analyze!, ["verify"] + names.map { scratch.appendingPathComponent($0).path },
                                        environment: ProcessInfo.processInfo.environment.merging(["SYSTEMD_LOG_LEVEL": "notice"]) { $1 })
            #expect(result.status == 0, "\(result.stderr)")
            // Unknown keys and other slips are warnings with status 0: none may be left.
            #expect(result.stderr.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty, "\(result.stderr)")

            let serve = try String(contentsOf: Self.cron.appendingPathComponent("pokesync-serve.service"), encoding: .utf8)
            for line in ["User=pokesync", "Restart=on-failure", "NoNewPrivileges=yes", "ProtectSystem=strict",
                         "ReadWritePaths=/srv/pokesync/Mirror", "--max-connections-per-address",
                         // The access log where the unit may write it, rotated by the shipped snippet with
                         // a reload (SIGHUP); the metrics on loopback only.
                         "LogsDirectory=pokesync", "--access-log /var/log/pokesync/access.log",
                         "--metrics-listen 127.0.0.1:", "ExecReload=/bin/kill -HUP $MAINPID"] {
                #expect(serve.contains(line), "pokesync-serve.service lacks \(line)")
            }
            // The flags it passes are serve's own.
            let execStart = try #require(serve.split(separator: "\n").first { $0.hasPrefix("ExecStart=") })
            for flag in execStart.split(separator: " ").filter({ $0.hasPrefix("--") }) {
                #expect(ServeCommand.spec.option(named: String(flag.dropFirst(2))) != nil, "serve takes no \(flag)")
            }
            let rotation = try String(contentsOf: Self.cron.appendingPathComponent("pokesync-serve.logrotate"), encoding: .utf8)
            for line in ["/var/log/pokesync/access.log {", "create ", "systemctl reload pokesync-serve.service", "delaycompress"] {
                #expect(rotation.contains(line), "pokesync-serve.logrotate lacks \(line)")
            }
            // Said why not in a comment, never a directive.
            #expect(!rotation.split(separator: "\n").contains { $0.trimmingCharacters(in: .whitespaces).hasPrefix("copytruncate") })
            let timer = try String(contentsOf: Self.cron.appendingPathComponent("pokesync-nightly.timer"), encoding: .utf8)
            #expect(timer.contains("OnCalendar=*-*-* 03:17:00 UTC"))
        }
    }

    @Test(.enabled(if: StaticHostingTests.nginx != nil, "needs nginx (apt-get install nginx-light)"))
    func nginxServesTheBundlesFolderInPlace() async throws {
        try await withTemporaryDirectory { scratch in
            chmod(scratch.path, 0o755)  // nginx's workers may run as another user when the tests run as root
            let cli = PokesyncCLI(mirror: scratch.appendingPathComponent("Mirror"))
            try #require(try await cli.run(["full", "--source", TestPaths.sample2025.path, "--sprites", "none"]).status == 0)
            let export = try await cli.run(["export", "--sprites", "none"])
            try #require(export.status == 0, "\(export.stderr)")
            let bundles = cli.mirror.appendingPathComponent("bundles")
            let server = try NginxProcess(serverBlock: try Self.recipe(), root: bundles, scratch: scratch)
            defer { server.stop() }

            let device = scratch.appendingPathComponent("device")
            let install = try await cli.run(["install", device.path, "--from", "http://127.0.0.1:\(server.port)/index.json"], addMirror: false)
            #expect(install.status == 0 && install.stdout.contains("installed version 1"), "\(install.stdout)\(install.stderr)")
            // The index is revalidated every time, bundles are cached for good, and export's
            // bookkeeping is not served.
            let index = try ServeProcess.get(port: server.port, "/index.json")
            #expect(index.status == 200 && index.headers["cache-control"] == "no-cache", "\(index.headers)")
            let bundle = try ServeProcess.get(port: server.port, "/pokedex-1.tar.gz")
            #expect(bundle.status == 200 && bundle.headers["cache-control"]?.contains("immutable") == true, "\(bundle.headers)")
            #expect(try ServeProcess.get(port: server.port, "/.pokesync-bundles").status == 404)
        }
    }

    /// "Removing it" undoes what the article puts in place: every `cp` of an installed file
    /// into `/etc` (units, the logrotate snippet), run in a scratch root against a real
    /// `make install-files`, is gone again after the removal block's `rm` lines; the crontab
    /// it loads is removed and every unit it enables disabled; and it says what stays and
    /// how to remove each.
    @Test(.enabled(if: InstallTests.tools.allSatisfy { FileManager.default.isExecutableFile(atPath: $0) }, "needs make and binutils"))
    func theRemovalStepsRemoveWhatTheArticlePuts() async throws {
        let text = try String(contentsOf: Self.article, encoding: .utf8)
        let removalStart = try #require(text.range(of: "## Removing it"))
        let setup = Self.shellLines(String(text[..<removalStart.lowerBound]))
        let removalText = String(text[removalStart.upperBound...])
        let removal = Self.shellLines(removalText)
        try await withTemporaryDirectory { scratch in
            let prefix = scratch.appendingPathComponent("prefix"), etc = scratch.appendingPathComponent("etc")
            let install = try await runProgram("/usr/bin/make", ["-s", "-C", TestPaths.packageRoot.path, "install-files",
                                                                 "PREFIX=\(prefix.path)", "BIN=\(PokesyncCLI.binary.path)"])
            try #require(install.status == 0, "\(install.stderr)")
            for folder in ["systemd/system", "logrotate.d"] {
                try FileManager.default.createDirectory(at: etc.appendingPathComponent(folder), withIntermediateDirectories: true)
            }
            func local(_ line: String) -> String {
                line.replacingOccurrences(of: "/usr/local/", with: prefix.path + "/").replacingOccurrences(of: "/etc/", with: etc.path + "/")
            }
            func files() -> [String] {
                (FileManager.default.enumerator(atPath: etc.path)?.compactMap { $0 as? String } ?? [])
                    .filter { !["systemd", "systemd/system", "logrotate.d"].contains($0) }.sorted()
            }
            for line in setup where line.hasPrefix("cp ") && line.contains(" /etc/") {
                let copy = try await runProgram("/bin/sh", ["-c", local(line)])
                #expect(copy.status == 0, "\(line): \(copy.stderr)")
            }
            #expect(files() == ["logrotate.d/pokesync-serve", "systemd/system/pokesync-nightly.service",
                                "systemd/system/pokesync-nightly.timer", "systemd/system/pokesync-serve.service"], "\(files())")
            for line in removal where line.hasPrefix("rm ") {
                let remove = try await runProgram("/bin/sh", ["-c", local(line)])
                #expect(remove.status == 0, "\(line): \(remove.stderr)")
            }
            #expect(files().isEmpty, "left in /etc: \(files())")
        }
        if setup.contains(where: { $0.hasPrefix("crontab -u pokesync /") }) {
            #expect(removal.contains { $0.hasPrefix("crontab -u pokesync -r") })
        }
        for line in setup {
            guard let enable = line.range(of: "systemctl enable --now ") else { continue }
            let units = line[enable.upperBound...].split(separator: " ").prefix { $0 != "&&" }
            for unit in units {
                #expect(removal.contains { $0.hasPrefix("systemctl disable --now ") && $0.split(separator: " ").contains(unit) },
                        "\(unit) is enabled but never disabled")
            }
        }
        // What stays, each with the way to remove it.
        let said = removalText.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        for words in ["rm -r /srv/pokesync/Mirror", "rm -r /var/backups/pokesync", "rm -r /var/log/pokesync", "userdel pokesync",
                      "rm -r /srv/pokesync", "/srv/pokesync/.ssh", "authorized_keys", "rm -f /var/mail/pokesync", "reload nginx"] {
            #expect(said.contains(words), "Removing it does not say \(words)")
        }
    }

    /// The lines of the article's ```sh blocks, each without its comment.
    static func shellLines(_ text: String) -> [String] {
        var lines: [String] = [], inBlock = false
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("```") { inBlock = line == "```sh" ? !inBlock : false; continue }
            guard inBlock else { continue }
            let code = line.range(of: " #").map { line[..<$0.lowerBound] } ?? line[...]
            lines.append(code.trimmingCharacters(in: .whitespaces))
        }
        return lines
    }

    /// The Deployment article's ```nginx block for the bundles folder.
    static func recipe() throws -> String {
        let text = try String(contentsOf: article, encoding: .utf8)
        let section = try #require(text.range(of: "## Bundles on a static host"))
        let start = try #require(text.range(of: "```nginx\n", range: section.upperBound..<text.endIndex))
        let end = try #require(text.range(of: "```", range: start.upperBound..<text.endIndex))
        return String(text[start.upperBound..<end.lowerBound])
    }
}
