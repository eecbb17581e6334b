import Foundation
import PokeSQLite
import PokedexReader

/// Fills the builder tables behind the five view tables (`DeviceSchema+SharedTables`)
/// directly, in key order: what the views' `INSTEAD OF INSERT` triggers would store, row
/// by row, but without a trigger and two lookups per row, and with codes and text ids
/// numbered in the order that compresses best rather than in arrival order.
extension DeviceDatabaseWriter {
    /// Fills the builder tables of the view tables. Language codes are assigned over the
    /// three tables whose language column is a `language_code` at once.
    /// - Throws: `DatabaseError` when a row cannot be written.
    static func insertShared(_ rows: DeviceRows, _ database: Database) throws {
        let languages = codes(rows.speciesFlavorTexts.map(\.language) + rows.abilityTexts.map(\.language)
                              + rows.moveTexts.map(\.language))
        try insertCodes(languages, "INSERT INTO language_code(id, code) VALUES (?, ?)", database)
        try insertFlavorTexts(rows.speciesFlavorTexts, languages: languages, database)
        try insertMoves(rows.pokemonMoves, database)
        try insertSprites(rows.pokemonSprites, database)
        try insertTexts(rows.abilityTexts, of: .abilityText, languages: languages, database)
        try insertTexts(rows.moveTexts, of: .moveText, languages: languages, database)
    }

    /// The rows of `ability_text` or `move_text` (`table`), in key order, into `<kind>_text_link`
    /// and `<kind>_text_body`: one body per distinct text of the kind, numbered language
    /// by language (then entity), as species flavor texts are, and within a language in
    /// text order, which puts alike texts ("The user ...") together for gzip.
    static func insertTexts(_ rows: [DeviceRow.Text], of table: DeviceSchema.Table, languages: [String: Int64],
                            _ database: Database) throws {
        let kind = table.entity!.rawValue
        let byLanguage = rows.indices.sorted { a, b in
            let (lx, ly) = (languages[rows[a].language]!, languages[rows[b].language]!)
            if lx != ly { return lx < ly }
            let (tx, ty) = (rows[a].flavorText ?? "", rows[b].flavorText ?? "")
            if tx != ty { return tx.utf8.lexicographicallyPrecedes(ty.utf8) }
            return rows[a].id < rows[b].id
        }
        var bodies: [String: Int64] = [:]
        let insertBody = try database.statement("INSERT INTO \(kind)_text_body(id, text) VALUES (?, ?)")
        func bodyID(_ text: String?) throws -> SQLValue {
            guard let text else { return .null }
            if let id = bodies[text] { return .integer(id) }
            let id = Int64(bodies.count + 1)
            bodies[text] = id
            try insertBody.run([.integer(id), .text(text)])
            return .integer(id)
        }
        var ids = [(shortEffect: SQLValue, flavorText: SQLValue)](repeating: (.null, .null), count: rows.count)
        for index in byLanguage {
            ids[index].shortEffect = try bodyID(rows[index].shortEffect)
            ids[index].flavorText = try bodyID(rows[index].flavorText)
        }
        let insert = try ViewLinkInsert(table, into: "\(kind)_text_link",
                                        designed: ["\(kind)_id", "language_id", "short_effect_id", "flavor_text_id"], database)
        for (index, row) in rows.enumerated() {
            try insert.run([SQLValue(row.id), .integer(languages[row.language]!), ids[index].shortEffect,
                            ids[index].flavorText], row)
        }
    }

    /// Codes 1, 2, ... for the distinct texts of `values`, in byte order (BINARY collation),
    /// so that ordering by code is ordering by text.
    static func codes(_ values: some Sequence<String>) -> [String: Int64] {
        let sorted = Set(values).sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        return Dictionary(uniqueKeysWithValues: sorted.enumerated().map { ($1, Int64($0 + 1)) })
    }

    static func insertCodes(_ codes: [String: Int64], _ sql: String, _ database: Database) throws {
        let statement = try database.statement(sql)
        for (value, id) in codes.sorted(by: { $0.value < $1.value }) { try statement.run([.integer(id), .text(value)]) }
    }

    /// The rows of `species_flavor_text`, in key order, into `flavor_text_body` and
    /// `species_flavor_link`.
    static func insertFlavorTexts(_ rows: [DeviceRow.SpeciesFlavorText], languages: [String: Int64],
                                  _ database: Database) throws {
        let versions = codes(rows.map(\.version))
        try insertCodes(versions, "INSERT INTO version_code(id, name) VALUES (?, ?)", database)
        // Bodies numbered language by language (then species, then game order): gzip
        // then sees one language's texts together, which compresses a fifth better
        // than species by species. One body per distinct text of a species.
        let byLanguage = rows.indices.sorted { a, b in
            let (x, y) = (rows[a], rows[b])
            let (lx, ly) = (languages[x.language]!, languages[y.language]!)
            if lx != ly { return lx < ly }
            if x.speciesID != y.speciesID { return x.speciesID < y.speciesID }
            return x.entryIndex < y.entryIndex
        }
        struct Body: Hashable { var species: Int; var text: String }
        var bodies: [Body: Int64] = [:]
        let insertBody = try database.statement("INSERT INTO flavor_text_body(id, text) VALUES (?, ?)")
        var textIDs = [Int64](repeating: 0, count: rows.count)
        for index in byLanguage {
            let body = Body(species: rows[index].speciesID, text: rows[index].text)
            if let id = bodies[body] {
                textIDs[index] = id
            } else {
                let id = Int64(bodies.count + 1)
                bodies[body] = id
                textIDs[index] = id
                try insertBody.run([.integer(id), .text(body.text)])
            }
        }
        let insert = try ViewLinkInsert(.speciesFlavorText, into: "species_flavor_link",
                                        designed: ["species_id", "language_id", "version_id", "entry_index", "text_id"], database)
        for (index, row) in rows.enumerated() {
            try insert.run([SQLValue(row.speciesID), .integer(languages[row.language]!), .integer(versions[row.version]!),
                            SQLValue(row.entryIndex), .integer(textIDs[index])], row)
        }
    }

    /// The rows of `pokemon_move`, in key order, into `move_code` and `pokemon_move_link`.
    static func insertMoves(_ rows: [DeviceRow.PokemonMove], _ database: Database) throws {
        let moves = codes(rows.map(\.move))
        try insertCodes(moves, "INSERT INTO move_code(id, name) VALUES (?, ?)", database)
        let insert = try ViewLinkInsert(.pokemonMove, into: "pokemon_move_link", designed: ["pokemon_id", "move_id"], database)
        for row in rows { try insert.run([SQLValue(row.pokemonID), .integer(moves[row.move]!)], row) }
    }

    /// The rows of `pokemon_sprite`, in key order, into `sprite_key_code` and
    /// `pokemon_sprite_link`.
    static func insertSprites(_ rows: [DeviceRow.PokemonSprite], _ database: Database) throws {
        let keys = codes(rows.map(\.key))
        let patterns = SpriteURLPattern.commonest(rows)
        let insertKey = try database.statement("INSERT INTO sprite_key_code(id, key, url_prefix, url_suffix) VALUES (?, ?, ?, ?)")
        for (key, id) in keys.sorted(by: { $0.value < $1.value }) {
            let pattern = patterns[key]
            try insertKey.run([.integer(id), .text(key), SQLValue(pattern?.prefix), SQLValue(pattern?.suffix)])
        }
        let insert = try ViewLinkInsert(.pokemonSprite, into: "pokemon_sprite_link",
                                        designed: ["pokemon_id", "key_id", "url", "path"], database)
        for row in rows {
            let follows = patterns[row.key]?.url(pokemon: row.pokemonID) == row.url
            try insert.run([SQLValue(row.pokemonID), .integer(keys[row.key]!), follows ? .null : .text(row.url),
                            SQLValue(row.path)], row)
        }
    }
}

/// A sprite key's URL pattern: `prefix` + the pokemon's id + `suffix`
/// (`.../sprites/pokemon/back/` + `25` + `.png`).
struct SpriteURLPattern: Hashable, Comparable {
    var prefix: String
    var suffix: String

    func url(pokemon id: Int) -> String { prefix + String(id) + suffix }

    /// The pattern of a URL whose file name starts with the pokemon's id and a dot.
    init?(url: String, pokemon id: Int) {
        guard let slash = url.lastIndex(of: "/") else { return nil }
        let file = url[url.index(after: slash)...]
        let number = String(id) + "."
        guard file.hasPrefix(number) else { return nil }
        prefix = String(url[...slash])
        suffix = String(file.dropFirst(number.count - 1))
    }

    static func < (lhs: Self, rhs: Self) -> Bool {
        lhs.prefix != rhs.prefix ? lhs.prefix.utf8.lexicographicallyPrecedes(rhs.prefix.utf8)
            : lhs.suffix.utf8.lexicographicallyPrecedes(rhs.suffix.utf8)
    }

    /// For each key, the pattern most of its URLs follow (ties to the smallest, so the
    /// choice depends only on the rows).
    static func commonest(_ rows: [DeviceRow.PokemonSprite]) -> [String: SpriteURLPattern] {
        var counts: [String: [SpriteURLPattern: Int]] = [:]
        for row in rows {
            guard let pattern = SpriteURLPattern(url: row.url, pokemon: row.pokemonID) else { continue }
            counts[row.key, default: [:]][pattern, default: 0] += 1
        }
        return counts.mapValues { patterns in
            patterns.min { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }!.key
        }
    }
}
