import Foundation
import PokeSQLite
import PokedexReader
import Testing
@testable import PokeSyncCore

/// The builder's typed rows against the device schema: the one list of tables
/// (`DeviceRows.visitTables`) names every table of `DeviceSchema`, each row gives one
/// value per declared column, by name, and joining documents' rows keeps every row in order.
@Suite("Device rows")
struct DeviceRowsTests {
    /// Records, per table, the row count, every distinct number of values a row gives, the
    /// first row's values, and the languages of its rows (nil entries for a table that is
    /// not localized).
    struct Shapes: DeviceTableVisitor {
        typealias Failure = Never
        let rows: DeviceRows
        var counts: [String: Int] = [:]
        var widths: [String: Set<Int>] = [:]
        var firstValues: [String: [SQLValue]] = [:]
        var languages: [String: Set<String?>] = [:]
        /// `table.column: value` for each value that is neither NULL nor of its column's declared type.
        var mistyped: [String] = []
        mutating func visit<Row: DeviceTableRow>(_ table: DeviceSchema.Table, _ path: WritableKeyPath<DeviceRows, [Row]>) {
            let rows = self.rows[keyPath: path]
            // By name, as the writer puts them (a missing or unknown column stops here).
            let columns = DeviceRowColumns(table)
            let values = rows.map(columns.values(of:))
            for row in values {
                for (value, column) in zip(row, table.declaredColumns) {
                    switch (value, column.type) {
                    case (.null, _), (.integer, .integer), (.text, .text): continue
                    default: mistyped.append("\(table.name).\(column.name): \(value)")
                    }
                }
            }
            counts[table.name] = rows.count
            widths[table.name] = Set(values.map(\.count))
            firstValues[table.name] = values.first
            languages[table.name] = Set(rows.map(\.languageCode))
        }
    }

    @Test func everyTableHasRowsOfItsColumnCount() async throws {
        try await withTemporaryDirectory { scratch in
            let fixture = try await DeviceDatabaseFixture(scratch: scratch)
            let builder = DeviceDatabaseBuilder(store: fixture.store)
            let sprites = SpriteSelection(set: try BundleProfile().spriteSet(), held: [:])
            var rows = try builder.convert(try fixture.store.documents(version: 1), sprites: sprites)
            var shapes = Shapes(rows: rows)
            DeviceRows.visitTables(&shapes)

            let schemaTables = DeviceSchema.tables.filter { $0 != .meta }
            #expect(Set(shapes.counts.keys) == Set(schemaTables.map(\.name)))
            for table in schemaTables {
                // The sample has rows in every table, so every row type is checked.
                #expect(shapes.counts[table.name, default: 0] > 0, "\(table.name) has no rows in the sample")
                #expect(shapes.widths[table.name] == [table.columns.count], "\(table.name)")
                // A table with a language column has a localized row type, and no other.
                let localized = table.columns.contains("language") || table.columns.contains("in_language")
                #expect(shapes.languages[table.name]?.contains(nil) == !localized, "\(table.name)")
            }
            // Every value has its column's declared type (SQLite would store it either way).
            #expect(shapes.mistyped.isEmpty, "\(shapes.mistyped.prefix(5))")
            // Spot checks of column order against the sample's JSON.
            // (Pikachu is the sample's first pokemon.)
            #expect(shapes.firstValues["pokemon_stat"]?.prefix(2) == [.integer(25), .text("attack")])
            let pikachu = try #require(rows.pokemon.first { $0.id == 25 })
            #expect(DeviceRowColumns(.pokemon).values(of: pikachu) == [.integer(25), .text("pikachu"), .integer(25), .integer(4), .integer(60),
                                       .integer(112), .integer(1), .integer(35)])
            // Each reference name table holds its own kind's names (they share a row type).
            for (table, kind) in [("type_name", "type"), ("ability_name", "ability"), ("move_name", "move"),
                                  ("stat_name", "stat"), ("version_name", "version"), ("language_name", "language")] {
                let first = try #require(shapes.firstValues[table], "\(table)")
                guard case .integer(let id) = first[0], case .text(let language) = first[1] else {
                    Issue.record("\(table): \(first)")
                    continue
                }
                let names = try DeviceDatabaseFixture.json(kind, Int(id))["names"] as! [[String: Any]]
                let name = names.first { ($0["language"] as! [String: Any])["name"] as? String == language }?["name"]
                #expect(first[2] == .text(name as? String ?? "?"), "\(table)")
            }

            // The profile's language filter reaches every localized table, through the same list.
            let present = rows.keepLanguages { $0 == "en" }
            #expect(present.isSuperset(of: ["en", "fr", "ja", "ko"]))
            var english = Shapes(rows: rows)
            DeviceRows.visitTables(&english)
            for table in schemaTables where english.languages[table.name]?.contains(nil) == false {
                #expect(english.languages[table.name] == ["en"], "\(table.name)")
            }
        }
    }

    @Test func joiningKeepsEveryTablesRowsInOrder() {
        var first = DeviceRows()
        first.pokemonMoves = [DeviceRow.PokemonMove(pokemonID: 1, move: "tackle")]
        first.typeNames = [DeviceRow.Name(id: 1, language: "en", name: "Normal")]
        var second = DeviceRows()
        second.pokemonMoves = [DeviceRow.PokemonMove(pokemonID: 2, move: "growl"),
                               DeviceRow.PokemonMove(pokemonID: 2, move: "tackle")]
        second.languageNames = [DeviceRow.Name(id: 9, language: "ko", name: "영어")]
        first.append(contentsOf: second)
        #expect(first.pokemonMoves.map(\.pokemonID) == [1, 2, 2])
        #expect(first.pokemonMoves.map(\.move) == ["tackle", "growl", "tackle"])
        #expect(first.typeNames.map(\.name) == ["Normal"])
        #expect(first.languageNames.map(\.name) == ["영어"])
        #expect(first.abilityNames.isEmpty)
    }

    @Test func keepingLanguagesFiltersEveryLocalizedTable() {
        var rows = DeviceRows()
        rows.speciesNames = [DeviceRow.SpeciesName(speciesID: 1, language: "en", name: "Bulbasaur", genus: nil),
                             DeviceRow.SpeciesName(speciesID: 1, language: "ko", name: "이상해씨", genus: nil)]
        rows.moveTexts = [DeviceRow.Text(id: 1, language: "fr", shortEffect: "x", flavorText: nil)]
        rows.languageNames = [DeviceRow.Name(id: 9, language: "ja-Hrkt", name: "えいご")]
        let present = rows.keepLanguages { $0 == "en" || $0 == "ja-hrkt" || $0 == "ja-Hrkt" }
        #expect(present == ["en", "ko", "fr", "ja-Hrkt"])
        #expect(rows.speciesNames.map(\.language) == ["en"])
        #expect(rows.moveTexts.isEmpty)
        #expect(rows.languageNames.count == 1)
    }
}
