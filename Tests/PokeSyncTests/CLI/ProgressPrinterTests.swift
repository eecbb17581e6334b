import Foundation
import Testing
@testable import PokeSyncCore
@testable import pokesync

@Suite("Progress line")
struct ProgressPrinterTests {
    @Test func totalsRateAndETAComeFirst() {
        var snapshot = CrawlProgress.Snapshot()
        snapshot.phase = .documents
        snapshot.phaseStarted = Date().addingTimeInterval(-2)
        snapshot.documentsTotal = [.pokemon: 1351, .pokemonSpecies: 1025, .pokedex: 34, .evolutionChain: 541]
        snapshot.documentsSettled = [.pokemon: 1000, .pokemonSpecies: 0, .pokedex: 34, .evolutionChain: 541]
        let line = ProgressPrinter.render(snapshot)
        #expect(line.hasPrefix("documents 1575/2951 · "))
        #expect(line.contains("/s · ETA "))
        #expect(line.contains("pokemon 1000/1351") && line.contains("evolution-chain 541/541"))

        snapshot.phase = .sprites
        snapshot.spritesTotal = 100
        snapshot.spritesSettled = 100
        snapshot.spritesSkipped = 3
        let done = ProgressPrinter.render(snapshot)
        #expect(done.hasPrefix("sprites 100/100 · "))
        #expect(!done.contains("ETA") && done.contains("3 skipped"))
    }

    @Test func durationsReadAsAPersonWould() {
        #expect(ProgressPrinter.duration(4.2) == "5s")
        #expect(ProgressPrinter.duration(125) == "2:05")
    }
}
