import Foundation
import PokeSQLite
import PokedexReader

/// Fills the builder tables behind the three view tables (`DeviceSchema+SharedTables`)
/// directly, in key order: what the views' `INSTEAD OF INSERT` triggers would store, row
/// by row, but without a trigger and two lookups per row, and with codes and text ids
/// numbered in the order that compresses best rather than in arrival order.
extension DeviceDatabaseWriter {
    /// The view tables this writer fills through their builder tables.
    static let sharedTables: Set<String> = ["species_flavor_text", "pokemon_move", "pokemon_sprite",
                                            "ability_text", "move_text"]

    /// The tables whose language column is a `language_code`; the codes are assigned
    /// over all of them at once (with the species' flavor texts, the first in order).
    static let languageCodedTables = ["species_flavor_text", "ability_text", "move_text"]

    /// - Throws: `DatabaseError` when a row cannot be written.
    static func insertShared(_ table: String, _ all: DeviceRows, _ database: Database) throws {
        let rows = all.rows(table)
        switch table {
        case "species_flavor_text":
            let languages = codes(languageCodedTables.flatMap { all.rows($0).map { $0[1].textValue ?? "" } })
            try insertCodes(languages, "INSERT INTO language_code(id, code) VALUES (?, ?)", database)
            try insertFlavorTexts(rows, languages: languages, database)
        case "pokemon_move": try insertMoves(rows, database)
        case "pokemon_sprite": try insertSprites(rows, database)
        case "ability_text": try insertTexts(rows, kind: "ability", database)
        case "move_text": try insertTexts(rows, kind: "move", database)
        default: preconditionFailure("\(table) is not a view table")
        }
    }

    /// Rows `[id, language, short_effect, flavor_text]` of `ability_text` or `move_text`, in
    /// key order, into `<kind>_text_link` and `<kind>_text_body`: one body per distinct
    /// text of the kind, numbered language by language (then entity), as species
    /// flavor texts are, and within a language in text order, which puts alike texts
    /// ("The user ...") together for gzip.
    static func insertTexts(_ rows: [[SQLValue]], kind: String, _ database: Database) throws {
        let languages = Dictionary(uniqueKeysWithValues: try database.rows("SELECT code, id FROM language_code", []) {
            ($0.text(0), Int64($0.int(1)))
        })
        let byLanguage = rows.indices.sorted { a, b in
            let (lx, ly) = (languages[rows[a][1].textValue ?? ""]!, languages[rows[b][1].textValue ?? ""]!)
            if lx != ly { return lx < ly }
            let (tx, ty) = (rows[a][3].textValue ?? "", rows[b][3].textValue ?? "")
            if tx != ty { return tx.utf8.lexicographicallyPrecedes(ty.utf8) }
            return rows[a][0].integerValue! < rows[b][0].integerValue!
        }
        var bodies: [String: Int64] = [:]
        let insertBody = try database.statement("INSERT INTO \(kind)_text_body(id, text) VALUES (?, ?)")
        var ids = [[SQLValue]](repeating: [.null, .null], count: rows.count)
        for index in byLanguage {
            for column in 0..<2 {
                guard let text = rows[index][2 + column].textValue else { continue }
                if bodies[text] == nil {
                    bodies[text] = Int64(bodies.count + 1)
                    try insertBody.run([.integer(bodies[text]!), .text(text)])
                }
                ids[index][column] = .integer(bodies[text]!)
            }
        }
        let insert = try database.statement("""
            INSERT INTO \(kind)_text_link(\(kind)_id, language_id, short_effect_id, flavor_text_id) VALUES (?, ?, ?, ?)
            """)
        for (index, row) in rows.enumerated() {
            try insert.run([row[0], .integer(languages[row[1].textValue ?? ""]!), ids[index][0], ids[index][1]])
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

    /// Rows `[species_id, language, version, entry_index, text]`, in key order.
    static func insertFlavorTexts(_ rows: [[SQLValue]], languages: [String: Int64], _ database: Database) throws {
        let versions = codes(rows.map { $0[2].textValue ?? "" })
        try insertCodes(versions, "INSERT INTO version_code(id, name) VALUES (?, ?)", database)
        // Bodies numbered language by language (then species, then game order): gzip
        // then sees one language's texts together, which compresses a fifth better
        // than species by species. One body per distinct text of a species.
        let byLanguage = rows.indices.sorted { a, b in
            let (x, y) = (rows[a], rows[b])
            let (lx, ly) = (languages[x[1].textValue ?? ""]!, languages[y[1].textValue ?? ""]!)
            if lx != ly { return lx < ly }
            if x[0].integerValue! != y[0].integerValue! { return x[0].integerValue! < y[0].integerValue! }
            return x[3].integerValue! < y[3].integerValue!
        }
        struct Body: Hashable { var species: Int; var text: String }
        var bodies: [Body: Int64] = [:]
        let insertBody = try database.statement("INSERT INTO flavor_text_body(id, text) VALUES (?, ?)")
        var textIDs = [Int64](repeating: 0, count: rows.count)
        for index in byLanguage {
            let row = rows[index]
            let body = Body(species: row[0].integerValue!, text: row[4].textValue ?? "")
            if let id = bodies[body] {
                textIDs[index] = id
            } else {
                let id = Int64(bodies.count + 1)
                bodies[body] = id
                textIDs[index] = id
                try insertBody.run([.integer(id), .text(body.text)])
            }
        }
        let insert = try database.statement("""
            INSERT INTO species_flavor_link(species_id, language_id, version_id, entry_index, text_id) VALUES (?, ?, ?, ?, ?)
            """)
        for (index, row) in rows.enumerated() {
            try insert.run([row[0], .integer(languages[row[1].textValue ?? ""]!), .integer(versions[row[2].textValue ?? ""]!),
                            row[3], .integer(textIDs[index])])
        }
    }

    /// Rows `[pokemon_id, move]`, in key order.
    static func insertMoves(_ rows: [[SQLValue]], _ database: Database) throws {
        let moves = codes(rows.map { $0[1].textValue ?? "" })
        try insertCodes(moves, "INSERT INTO move_code(id, name) VALUES (?, ?)", database)
        let insert = try database.statement("INSERT INTO pokemon_move_link(pokemon_id, move_id) VALUES (?, ?)")
        for row in rows { try insert.run([row[0], .integer(moves[row[1].textValue ?? ""]!)]) }
    }

    /// Rows `[pokemon_id, key, url, path]`, in key order.
    static func insertSprites(_ rows: [[SQLValue]], _ database: Database) throws {
        let keys = codes(rows.map { $0[1].textValue ?? "" })
        let patterns = SpriteURLPattern.commonest(rows)
        let insertKey = try database.statement("INSERT INTO sprite_key_code(id, key, url_prefix, url_suffix) VALUES (?, ?, ?, ?)")
        for (key, id) in keys.sorted(by: { $0.value < $1.value }) {
            let pattern = patterns[key]
            try insertKey.run([.integer(id), .text(key), SQLValue(pattern?.prefix), SQLValue(pattern?.suffix)])
        }
        let insert = try database.statement("INSERT INTO pokemon_sprite_link(pokemon_id, key_id, url, path) VALUES (?, ?, ?, ?)")
        for row in rows {
            let key = row[1].textValue ?? "", url = row[2].textValue ?? ""
            let follows = patterns[key]?.url(pokemon: row[0].integerValue!) == url
            try insert.run([row[0], .integer(keys[key]!), follows ? .null : .text(url), row[3]])
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
    static func commonest(_ rows: [[SQLValue]]) -> [String: SpriteURLPattern] {
        var counts: [String: [SpriteURLPattern: Int]] = [:]
        for row in rows {
            guard let key = row[1].textValue, let url = row[2].textValue, let id = row[0].integerValue,
                  let pattern = SpriteURLPattern(url: url, pokemon: id) else { continue }
            counts[key, default: [:]][pattern, default: 0] += 1
        }
        return counts.mapValues { patterns in
            patterns.min { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }!.key
        }
    }
}
