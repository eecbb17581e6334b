import Foundation
import Testing
@testable import PokeSyncCore
import PokedexReader

/// What a run writes to mirror.json is a configuration whose nightly job succeeds, and a
/// command line that narrows the mirror (fewer kinds, sprites, cries) publishes only with
/// `--allow-shrink`, says what the mirror holds from then on, and leaves a mirror whose
/// next night works.
@Suite("Mirror choices that narrow the mirror", .serialized)
struct MirrorNarrowingTests {
    /// The profile the first run records asks only for sprites the mirror keeps, for every
    /// sprite set `--sprites` takes.
    @Test func theFirstRunsBundleProfileAsksOnlyForSpritesTheMirrorKeeps() throws {
        let cases: [(String, String)] = [("none", "none"), ("default", "default"), ("artwork", "artwork"), ("all", "default"),
                                         ("front_shiny", "front_shiny"), ("front_shiny,front_default", "default")]
        for (mirrored, bundled) in cases {
            let set = try SpriteSet(parsing: mirrored)
            #expect(set.bundleSet(wanted: "default") == bundled, "\(mirrored)")
            #expect(set.covers(try SpriteSet(parsing: set.bundleSet(wanted: "default"))))
        }
        #expect(SpriteSet.all.bundleSet(wanted: "artwork") == "artwork")
        #expect(!SpriteSet.defaults.covers(.all) && SpriteSet.all.covers(.artwork) && !SpriteSet.none.covers(.defaults))
        #expect(CrySet.all.covers(.latest) && !CrySet.latest.covers(.legacy) && CrySet.none.covers(.none))
    }

    /// `full --sprites none`: mirror.json's bundles ask for no sprites, and the nightly
    /// job's export writes the bundle and exits 0.
    @Test func aMirrorWithoutSpritesExportsEveryNight() async throws {
        try await withTemporaryDirectory { scratch in
            let cli = PokesyncCLI(mirror: scratch.appendingPathComponent("Mirror"))
            let full = try await cli.run(["full", "--source", TestPaths.sample2026.path, "--sprites", "none"])
            #expect(full.status == 0, "\(full.stderr)")
            let config = try MirrorChoicesTests.config(cli.mirror)
            #expect((config["bundles"] as? [String: Any])?["sprites"] as? String == "none", "\(config)")
            let night = try await CronJobTests().night(cli.mirror)
            #expect(night.status == 0, "\(night.log)")
            #expect(night.log.contains("wrote") && night.log.contains("pokedex-1.tar.gz"), "\(night.log)")
        }
    }

    /// `sync --kinds pokemon` on a mirror of more kinds is refused (64, nothing fetched,
    /// nothing recorded); with --allow-shrink it publishes, says what the mirror holds from
    /// now on, records it, and the next night's export says it makes no bundle (exit 0)
    /// instead of failing; widened again, the bundles come back.
    @Test func narrowingTheKindsIsDeliberateAndLeavesAWorkingNight() async throws {
        try await withTemporaryDirectory { scratch in
            let cli = PokesyncCLI(mirror: scratch.appendingPathComponent("Mirror"))
            let bundles = cli.mirror.appendingPathComponent("bundles")
            let full = try await cli.run(["full", "--source", TestPaths.sample2026.path, "--sprites", "none"])
            try #require(full.status == 0, "\(full.stderr)")
            let first = try await cli.run(["export"])
            #expect(first.status == 0, "\(first.stdout) \(first.stderr)")
            let before = try Data(contentsOf: cli.mirror.appendingPathComponent("mirror.json"))

            let refused = try await cli.run(["sync", "--kinds", "pokemon"])
            #expect(refused.status == 64 && refused.stdout.isEmpty, "\(refused.stdout) \(refused.stderr)")
            let line = refused.stderr.trimmingCharacters(in: .whitespacesAndNewlines)
            #expect(!line.contains("\n") && line.contains("this would narrow the mirror (kinds default -> pokemon (9 kind(s) fewer: ")
                    && line.contains("add --allow-shrink to mean it"), "\(refused.stderr)")
            #expect(try Data(contentsOf: cli.mirror.appendingPathComponent("mirror.json")) == before)

            let narrowed = try await cli.run(["sync", "--kinds", "pokemon", "--allow-shrink"])
            #expect(narrowed.status == 0 && narrowed.stdout.contains("published version 2"), "\(narrowed.stdout) \(narrowed.stderr)")
            #expect(narrowed.stderr.contains("from now on it holds kinds pokemon, sprites none, cries none"), "\(narrowed.stderr)")
            #expect(narrowed.stderr.contains("a bundle needs pokemon-species, evolution-chain besides --kinds pokemon"), "\(narrowed.stderr)")
            #expect(try MirrorChoicesTests.config(cli.mirror)["kinds"] as? String == "pokemon")

            // The next night: sync repeats the kinds, the export says why it writes
            // nothing, and the night exits 0; the index still names version 1.
            let night = try await CronJobTests().night(cli.mirror)
            #expect(night.status == 0, "\(night.log)")
            #expect(night.log.contains("no bundle for version 2: it holds pokemon without pokemon-species, evolution-chain"), "\(night.log)")
            var index = try JSONDecoder().decode(BundleIndex.self, from: Data(contentsOf: bundles.appendingPathComponent("index.json")))
            #expect(index.latest == 1)

            // Widened again: recorded as a choice, no --allow-shrink needed; the bundle and a
            // delta from version 1 (none from 2, which no device holds), exit 0.
            let widened = try await cli.run(["sync", "--kinds", "default"])
            #expect(widened.status == 0 && widened.stdout.contains("published version 3"), "\(widened.stdout) \(widened.stderr)")
            let export = try await cli.run(["export"])
            #expect(export.status == 0 && !export.stdout.contains("warning"), "\(export.stdout) \(export.stderr)")
            index = try JSONDecoder().decode(BundleIndex.self, from: Data(contentsOf: bundles.appendingPathComponent("index.json")))
            #expect(index.latest == 3)
        }
    }

    /// On a `--kinds all` mirror, a bare `--kinds pokemon` is refused the same way, before
    /// anything is read.
    @Test func anAllKindsMirrorIsNotNarrowedByOneKind() async throws {
        try await withTemporaryDirectory { scratch in
            let whole = TestPaths.packageRoot.appendingPathComponent("Tests/Fixtures/whole-2026-08-08")
            let cli = PokesyncCLI(mirror: scratch.appendingPathComponent("Mirror"))
            let full = try await cli.run(["full", "--source", whole.path, "--kinds", "all", "--sprites", "none"])
            try #require(full.status == 0, "\(full.stderr)")
            let refused = try await cli.run(["sync", "--kinds", "pokemon"])
            #expect(refused.status == 64 && refused.stderr.contains("this would narrow the mirror (kinds all -> pokemon ("),
                    "\(refused.stdout) \(refused.stderr)")
            #expect(try MirrorChoicesTests.config(cli.mirror)["kinds"] as? String == "all")
            #expect(try await cli.run(["sync"]).stdout.contains("no changes since version 1"))
        }
    }

    /// On a mirror of the default sprites, `sync --sprites none` is refused; with
    /// --allow-shrink the bundle profile follows it, so the next export works.
    @Test func narrowingTheSpritesTakesTheBundleProfileAlong() async throws {
        try await withTemporaryDirectory { scratch in
            let cli = PokesyncCLI(mirror: scratch.appendingPathComponent("Mirror"))
            try await withStandInServer(root: TestPaths.sample2026) { server in
                let source = ["--source", server.baseURL.absoluteString, "--sprite-source", server.spriteBaseURL.absoluteString]
                #expect(try await cli.run(["full", "--sprites", "default"] + source).status == 0)
                try await server.resetStats()
                let refused = try await cli.run(["sync", "--sprites", "none"] + source)
                #expect(refused.status == 64 && refused.stderr.contains("sprites default -> none"), "\(refused.stderr)")
                #expect(try await server.stats().requests == 0)
                let narrowed = try await cli.run(["sync", "--sprites", "none", "--allow-shrink"] + source)
                #expect(narrowed.status == 0 && narrowed.stdout.contains("published version 2"), "\(narrowed.stdout) \(narrowed.stderr)")
                #expect(narrowed.stderr.contains(#""bundles": {"sprites"} is now "none" (was "default")"#), "\(narrowed.stderr)")
            }
            let config = try MirrorChoicesTests.config(cli.mirror)
            #expect(config["sprites"] as? String == "none" && (config["bundles"] as? [String: Any])?["sprites"] as? String == "none")
            let export = try await cli.run(["export"])
            #expect(export.status == 0, "\(export.stdout) \(export.stderr)")
        }
    }
}
