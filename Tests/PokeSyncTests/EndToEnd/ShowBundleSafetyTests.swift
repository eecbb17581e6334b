import Foundation
import PokeArchive
import Testing

/// `show`/`search --bundle` and `verify` on bundles: they read only what they must, only
/// inside the folder given, sweep what killed runs left, and name the bundle in errors.
@Suite("show, search and verify on bundles, end to end")
struct ShowBundleSafetyTests {
    /// A mirror of the 2025 sample with its bundles exported; returns the bundles folder.
    static func exported(in scratch: URL, environment: [String: String] = [:]) async throws -> (PokesyncCLI, URL) {
        var cli = PokesyncCLI(mirror: scratch.appendingPathComponent("Mirror"))
        cli.environment = environment
        #expect(try await cli.run(["full", "--source", TestPaths.sample2025.path, "--sprites", "none"]).status == 0)
        #expect(try await cli.run(["export", "--sprites", "none"]).status == 0)
        return (cli, cli.mirror.appendingPathComponent("bundles"))
    }

    @Test func anIndexNamingAFileOutsideItsFolderIsRefused() async throws {
        try await withTemporaryDirectory { scratch in
            let (cli, bundles) = try await Self.exported(in: scratch)
            // A sound bundle elsewhere, and a folder whose index points at it through `..`.
            let other = scratch.appendingPathComponent("other")
            try FileManager.default.createDirectory(at: other, withIntermediateDirectories: true)
            try FileManager.default.copyItem(at: bundles.appendingPathComponent("pokedex-1.tar.gz"),
                                             to: other.appendingPathComponent("pokedex-1.tar.gz"))
            let lying = scratch.appendingPathComponent("lying")
            try FileManager.default.createDirectory(at: lying, withIntermediateDirectories: true)
            let index = try String(contentsOf: bundles.appendingPathComponent("index.json"), encoding: .utf8)
            for file in ["../other/pokedex-1.tar.gz", "/\(other.path)/pokedex-1.tar.gz", "", ".."] {
                try Data(index.replacingOccurrences(of: "\"file\" : \"pokedex-1.tar.gz\"", with: "\"file\" : \"\(file)\"").utf8)
                    .write(to: lying.appendingPathComponent("index.json"))
                for command in [["show", "1"], ["search", "bulba"]] {
                    let result = try await cli.run(command + ["--bundle", lying.path])
                    #expect(result.status == 65, "\(file) \(command): \(result.stdout) \(result.stderr)")
                    #expect(result.stderr.contains(lying.appendingPathComponent("index.json").path), "\(result.stderr)")
                }
            }
        }
    }

    @Test func killedRunsScratchIsSweptAndOnlyTheDatabaseIsExtracted() async throws {
        try await withTemporaryDirectory { scratch in
            let temporary = scratch.appendingPathComponent("tmp")
            try FileManager.default.createDirectory(at: temporary, withIntermediateDirectories: true)
            let (cli, bundles) = try await Self.exported(in: scratch, environment: ["TMPDIR": temporary.path])
            // A process that has ended: its pid names the folders a killed run left.
            let ended = Process()
            ended.executableURL = URL(fileURLWithPath: "/bin/true")
            try ended.run()
            ended.waitUntilExit()
            let dead = ended.processIdentifier
            let live = ProcessInfo.processInfo.processIdentifier
            let left = ["pokesync-show-\(dead)-0A1B2C3D", "pokesync-verify-\(dead)-0A1B2C3D", "pokesync-verify-\(dead)"]
            let kept = ["pokesync-show-\(live)-0A1B2C3D", "pokesync-test-\(dead)-0A1B2C3D", "pokesync-show-notapid", "other-\(dead)"]
            for name in left + kept {
                let folder = temporary.appendingPathComponent(name)
                try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
                try Data(count: 1000).write(to: folder.appendingPathComponent("pokedex.sqlite"))
            }
            let show = try await cli.run(["search", "a", "--bundle", bundles.appendingPathComponent("pokedex-1.tar.gz").path])
            #expect(show.status == 0, "\(show.stderr)")
            #expect(try FileManager.default.contentsOfDirectory(atPath: temporary.path).sorted() == kept.sorted())
        }
    }

    @Test func extractingOnlyTheNamedTopLevelFiles() async throws {
        try await withTemporaryDirectory { scratch in
            let source = scratch.appendingPathComponent("source")
            try FileManager.default.createDirectory(at: source.appendingPathComponent("sprites/pokemon"), withIntermediateDirectories: true)
            for name in ["manifest.json", "pokedex.sqlite", "sprites/pokemon/1.png", "other.txt"] {
                try Data(name.utf8).write(to: source.appendingPathComponent(name))
            }
            let archive = scratch.appendingPathComponent("a.tar.gz")
            _ = try await runTool("/usr/bin/env", ["tar", "czf", archive.path, "-C", source.path, "manifest.json", "pokedex.sqlite", "sprites", "other.txt"])
            let limits = TarLimits(maxUnpackedBytes: 1 << 20, maxEntryCount: 100, maxCompressedBytes: 1 << 20)
            let out = scratch.appendingPathComponent("out")
            let entries = try SafeExtractor(limits: limits, synchronizes: false)
                .extract(archive: archive.path, to: out.path, only: ["manifest.json", "pokedex.sqlite", "sprites"])
            #expect(entries.map(\.name).contains("sprites/pokemon/1.png"))
            #expect(try FileManager.default.contentsOfDirectory(atPath: out.path).sorted() == ["manifest.json", "pokedex.sqlite"])
            #expect(try String(contentsOf: out.appendingPathComponent("pokedex.sqlite"), encoding: .utf8) == "pokedex.sqlite")
        }
    }

    @Test func errorsNameTheBundleNotAnEntryOrScratchPath() async throws {
        try await withTemporaryDirectory { scratch in
            let (cli, bundles) = try await Self.exported(in: scratch)
            let sound = try Data(contentsOf: bundles.appendingPathComponent("pokedex-1.tar.gz"))
            // The gzip trailer's CRC-32 flipped: the damage could be anywhere; no entry is named.
            var crc = sound
            crc[crc.count - 6] ^= 0xFF
            let crcFile = scratch.appendingPathComponent("crc.tar.gz")
            try crc.write(to: crcFile)
            let verify = try await cli.run(["verify", crcFile.path], addMirror: false)
            #expect(verify.status == 65, "\(verify.stderr)")
            #expect(verify.stderr.contains(crcFile.path) && !verify.stderr.contains("entry"), "\(verify.stderr)")

            // A database that is damaged while every hash in the manifest holds.
            let damaged = scratch.appendingPathComponent("damaged.tar.gz")
            _ = try await runTool("/usr/bin/env", ["python3", "-c", Self.damageDatabase,
                                             bundles.appendingPathComponent("pokedex-1.tar.gz").path, damaged.path])
            for command in [["verify", damaged.path], ["show", "1", "--bundle", damaged.path], ["search", "a", "--bundle", damaged.path]] {
                let result = try await cli.run(command, addMirror: false)
                #expect(result.status == 65, "\(command): \(result.stderr)")
                #expect(result.stderr.contains(damaged.path), "\(command): \(result.stderr)")
                #expect(!result.stderr.contains("pokesync-verify-") && !result.stderr.contains("pokesync-show-"), "\(result.stderr)")
            }
        }
    }

    /// Rewrites a bundle with pages of its database overwritten and the manifest's size,
    /// hash and unpacked size made to match (python3 stdlib).
    static let damageDatabase = #"""
    import tarfile, io, json, hashlib, sys, gzip
    source = tarfile.open(sys.argv[1], "r:gz")
    files = {m.name: source.extractfile(m).read() for m in source.getmembers() if m.isfile()}
    database = bytearray(files["pokedex.sqlite"])
    database[8192:8792] = b"\x55" * 600
    files["pokedex.sqlite"] = bytes(database)
    manifest = json.loads(files["manifest.json"])
    for entry in manifest["files"]:
        if entry["path"] == "pokedex.sqlite":
            entry["sha256"] = hashlib.sha256(database).hexdigest()
            entry["size"] = len(database)
    for _ in range(3):
        files["manifest.json"] = (json.dumps(manifest, indent=2, sort_keys=True) + "\n").encode()
        manifest["unpacked_size"] = sum(len(v) for v in files.values())
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w", format=tarfile.USTAR_FORMAT) as out:
        for name in ["manifest.json"] + sorted(k for k in files if k != "manifest.json"):
            info = tarfile.TarInfo(name)
            info.size = len(files[name])
            info.mode = 0o644
            out.addfile(info, io.BytesIO(files[name]))
    open(sys.argv[2], "wb").write(gzip.compress(buffer.getvalue(), mtime=0))
    """#
}
