/// Every query the reader reads rows with, by name: what `ReaderColumnsTests` holds the
/// declaration to (a declared column no query here selects must be marked `read: false`).
/// A query missing from the list only makes that test stricter.
extension ReadQuery {
    static var all: [ReadQuery] {
        [
            Pokedex.metaValue,
            // A detail page.
            Pokedex.pokemonByName, Pokedex.defaultPokemonBySpeciesName, Pokedex.pokemonRow, Pokedex.statRows,
            Pokedex.statNames, Pokedex.spriteRows, Pokedex.speciesRow, Pokedex.speciesNames, Pokedex.flavorTextLanguages,
            Pokedex.flavorTextRows, Pokedex.versionNames, Pokedex.typesInSlots, Pokedex.typeNames, Pokedex.abilitySlots,
            Pokedex.abilityNames, Pokedex.abilityTexts, Pokedex.movesBySlug, Pokedex.moveNames,
            // Evolution chains.
            Pokedex.chainRoot, Pokedex.stepRows, Pokedex.nodeSpecies, Pokedex.nodeNames, Pokedex.nodePokemon,
            // The list and its extras.
            Pokedex.extrasNames, Pokedex.extrasSprites, Pokedex.presentIDs,
            // Pokedexes, types, languages.
            Pokedex.pokedexRows, Pokedex.entryCounts, Pokedex.descriptionRows, Pokedex.entryRows, Pokedex.speciesSlugs,
            Pokedex.defaultPokemonIDs, Pokedex.typeRows, Pokedex.allTypeNames, Pokedex.damagePercent, Pokedex.defendingTypes,
            Pokedex.efficacy, Pokedex.pokemonIDsOfType, Pokedex.speciesNameLanguages, Pokedex.languageNames,
            // Search.
            SearchIndex.searchRows, SearchIndex.pokemonNames, SearchIndex.speciesNames, SearchIndex.typeNames,
            SearchIndex.pokemonTypes,
        ] + Array(Pokedex.pageIDs.values)
            + [Pokedex.pageSummaryQueries, Pokedex.allSummaryQueries].flatMap { [$0.rows, $0.types, $0.names] }
    }
}
