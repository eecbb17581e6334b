import Foundation
import Testing
@testable import PokeSyncCore

/// A file host that answers every file with other valid bytes: a placeholder (the same
/// bytes for every path) is refused as such and its host given up; a night that would
/// change more than a fifth of the held files' bytes publishes them only with
/// `--allow-mass-change`, one deliberate command.
@Suite("Linked files: a host that lies", .serialized)
struct FileHostLiesTests {
    typealias Night = FileHostFailureTests

    static func warnings(_ output: String) -> [String] {
        output.split(separator: "\n").map(String.init).filter { $0.hasPrefix("warning: ") }
    }

    /// The sprite host answers one valid image for every path: those files are refused as
    /// a placeholder and carried with their bytes, the host is given up (one line), the run
    /// exits 2 with one warning line naming the host, and the tree is as it was; the next
    /// night with the host back publishes nothing new and warns of nothing. (Sprites only:
    /// the stand-in serves cries from the same host, whose files would be carried with them,
    /// a line for that tree.)
    @Test func aPlaceholderIsRefusedAndItsHostGivenUp() async throws {
        try await withTemporaryDirectory { scratch in
            var port = 0
            var cli: PokesyncCLI!
            try await Night.withBadNight(scratch, fault: "placeholder", tree: "sprites", firstCries: "none") { runner, server in
                cli = runner
                port = server.port
                let folder = cli.mirror.appendingPathComponent("sprites")
                let held = SpriteMirrorTests.tree(folder)
                #expect(held.count >= FileHostLimits.placeholderFiles, "\(held.count) sprites")
                let sync = try await cli.run(Night.arguments("sync", server, cries: "none"))
                #expect(sync.status == 2, "\(sync.stdout) \(sync.stderr)")
                #expect(sync.stdout.contains("no changes since version 1"), "\(sync.stdout)")
                let host = "127.0.0.1:\(server.port)"
                let warnings = Self.warnings(sync.stdout)
                #expect(warnings.count == 1, "\(sync.stdout)")
                #expect(warnings.first?.hasPrefix("warning: sprites: \(held.count) carried from the version before: \(host) failed") == true,
                        "\(sync.stdout)")
                #expect(warnings.first?.contains("(a placeholder)") == true, "\(sync.stdout)")
                let givingUp = sync.stderr.split(separator: "\n").filter { $0.contains("giving up on \(host)") }
                #expect(givingUp.count == 1 && givingUp.first?.contains("files that held other bytes (a placeholder)") == true,
                        "\(sync.stderr)")
                #expect(SpriteMirrorTests.tree(folder) == held)
                #expect(try await cli.run(["verify", cli.mirror.path], addMirror: false).status == 0)
            }
            // The host is back: nothing changed upstream, nothing is said.
            var options = StandInOptions(root: Night.sample)
            options.port = port
            try await withStandInServer(options) { server in
                let sync = try await cli.run(Night.arguments("sync", server, cries: "none"))
                #expect(sync.status == 0, "\(sync.stdout) \(sync.stderr)")
                #expect(sync.stdout.contains("no changes since version 1") && !sync.stdout.contains("warning:"), "\(sync.stdout)")
            }
        }
    }

    /// Every file comes back with distinct new bytes (a re-encode upstream, or a host
    /// answering other valid bytes): without the flag the held bytes are kept, the run exits
    /// 2 and says how many and why, night after night (the new bytes' validators are not
    /// kept, so a 304 cannot slip them in); `--allow-mass-change` publishes them once, and
    /// is not recorded as a standing choice.
    @Test func aMassChangeIsPublishedOnlyWhenAllowed() async throws {
        try await withTemporaryDirectory { scratch in
            try await Night.withBadNight(scratch, fault: nil, firstCries: "none", sprites: "all", salt: "re-encoded") { cli, server in
                let folder = cli.mirror.appendingPathComponent("sprites")
                let held = SpriteMirrorTests.tree(folder)
                #expect(held.count > FileHostLimits.massChangeMinimum)
                let arguments = Night.arguments("sync", server, cries: "none", sprites: "all")
                for _ in 1...2 {
                    let sync = try await cli.run(arguments)
                    #expect(sync.status == 2, "\(sync.stdout) \(sync.stderr)")
                    #expect(sync.stdout.contains("no changes since version 1"), "\(sync.stdout)")
                    let line = Self.warnings(sync.stdout).first { $0.hasPrefix("warning: sprites: ") }
                    #expect(line?.hasPrefix("warning: sprites: \(held.count) of the \(held.count) files version 1 holds came back with other bytes (100%, more than 20%)") == true,
                            "\(sync.stdout)")
                    #expect(line?.contains("--allow-mass-change publishes them") == true, "\(sync.stdout)")
                    #expect(SpriteMirrorTests.tree(folder) == held)
                }
                let status = try await cli.run(["status"])
                #expect(status.stdout.contains("sprites: \(held.count) of the \(held.count) files version 1 holds came back with other bytes"),
                        "\(status.stdout)")
                let json = try await cli.run(["status", "--json"])
                let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
                let withheld = (object["last_run_carried"] as? [String: Any])?["withheld"] as? [[String: Any]]
                #expect(withheld?.count == 1 && withheld?.first?["changed"] as? Int == held.count, "\(json.stdout)")

                let allowed = try await cli.run(arguments + ["--allow-mass-change"])
                #expect(allowed.status == 0, "\(allowed.stdout) \(allowed.stderr)")
                #expect(allowed.stdout.contains("published version 2") && allowed.stdout.contains("sprites +0 -0 ~\(held.count)"),
                        "\(allowed.stdout)")
                let after = SpriteMirrorTests.tree(folder)
                #expect(Set(after.keys) == Set(held.keys) && after.allSatisfy { held[$0.key] != $0.value })
                #expect(try await cli.run(["verify", cli.mirror.path], addMirror: false).status == 0)
                let config = try String(contentsOf: cli.mirror.appendingPathComponent("mirror.json"), encoding: .utf8)
                #expect(!config.contains("mass"), "\(config)")

                // Published: the next night has nothing to say.
                let next = try await cli.run(arguments)
                #expect(next.status == 0 && next.stdout.contains("no changes since version 2"), "\(next.stdout) \(next.stderr)")
            }
        }
    }
}
