import Foundation
import PokeArchive
import PokeSQLite
import PokedexReader
import PokedexUpdater
import Testing
@testable import PokeSyncCore

/// `DeviceSchema.tables` is the one declaration of the device tables' columns: the DDL is
/// made from it (and its text is what every shipped file has always held), the views
/// have its columns, the Python oracles list the same ones, and a column
/// added to it is created, digested and carried through a delta.
@Suite("Device schema declaration")
struct DeviceSchemaDeclarationTests {
    /// By schema version, SHA-256 of every `sqlite_master` row (`type name`, newline, `sql`;
    /// rows joined by newlines) that ``DeviceSchema/create(in:tables:)`` makes from the
    /// version's shipped text (``DeviceSchema/shippedDDL``). That text is stored in every
    /// `pokedex.sqlite`, so a shipped version's text never changes: the digest holds the
    /// literal to what the files have always held. A new version (a column added) is pinned
    /// here and in `DeviceSchema+ShippedDDL.swift` when it ships.
    static let schemaTextDigests = [2: "6e0363735bc7d95fbb6adede418597e4215372375006ee65a0302c64f3be915d"]

    /// The schema version apps get has its text written down and pinned: a version raised
    /// without both fails here, printing what to pin, instead of passing unchecked.
    @Test func theSchemaVersionsTextIsPinned() throws {
        let version = DeviceSchema.version
        let rendered = DeviceSchema.ddl(for: DeviceSchema.tables)
        try #require(DeviceSchema.shippedDDL[version] != nil, """
            schema version \(version) has no shipped DDL: once its declaration is final, add it to \
            DeviceSchema.shippedDDL (Sources/PokedexReader/Schema/DeviceSchema+ShippedDDL.swift) as:
            \(rendered)
            """)
        let database = try Database(path: ":memory:")
        try DeviceSchema.create(in: database)
        let rows = try database.rows("SELECT type || ' ' || name || char(10) || coalesce(sql, '') FROM sqlite_master ORDER BY rowid") {
            $0.text(0)
        }
        let digest = SHA256.hash(Data(rows.joined(separator: "\n").utf8)).hex
        let pinned = try #require(Self.schemaTextDigests[version],
                                  "schema version \(version) has no pinned digest: add \(version): \"\(digest)\" to schemaTextDigests")
        #expect(digest == pinned, "schema version \(version)'s shipped text changed:\n\(rows.joined(separator: "\n"))")
    }

    /// The rendering is only for versions not yet shipped and tests' copies of the
    /// declaration: it makes the same tables, views and triggers, by name and columns.
    @Test func theRenderedDDLMakesTheSameSchema() throws {
        func schema(_ ddl: String) throws -> [String] {
            let database = try Database(path: ":memory:")
            try database.execute(ddl)
            return try database.rows("""
                SELECT m.type || ' ' || m.name || ':' || coalesce((SELECT group_concat(c.name || ' ' || c.type || ' ' \
                || c."notnull" || ' ' || c.pk, ',') FROM pragma_table_info(m.name) c), '') FROM sqlite_master m ORDER BY m.name
                """) { $0.text(0) }
        }
        #expect(try schema(DeviceSchema.ddl(for: DeviceSchema.tables)) == schema(DeviceSchema.ddl))
    }

    /// What SQLite made of the DDL, table by table: the declared columns in order, and for a
    /// plain table their types, NOT NULL and key; a view (its design written by hand) at
    /// least has the declared columns, so a design that drops one fails here.
    @Test func everyTableAndViewHasTheDeclaredColumns() throws {
        let database = try Database(path: ":memory:")
        try DeviceSchema.create(in: database)
        for table in DeviceSchema.tables {
            let info = try database.rows("SELECT name, type, \"notnull\", pk FROM pragma_table_info(?)", [.text(table.name)]) {
                (name: $0.text(0), type: $0.text(1), notNull: $0.int(2) != 0, pk: $0.int(3))
            }
            #expect(info.map(\.name) == table.columns, "\(table.name)")
            let kind = try database.row("SELECT type FROM sqlite_master WHERE name = ?", [.text(table.name)]) { $0.text(0) }
            switch table.storage {
            case .view:
                #expect(kind == "view", "\(table.name)")
            case .table:
                #expect(kind == "table", "\(table.name)")
                #expect(info.map(\.type) == table.declaredColumns.map(\.type.rawValue), "\(table.name)")
                #expect(info.map(\.notNull) == table.declaredColumns.map { $0.constraints.contains("NOT NULL") },
                        "\(table.name)")
                #expect(info.filter { $0.pk > 0 }.sorted { $0.pk < $1.pk }.map(\.name) == Array(table.keyColumns),
                        "\(table.name)")
                let withoutRowid = try database.integer("SELECT count(*) FROM pragma_table_list WHERE name = ? AND wr = 1",
                                                        [.text(table.name)]) ?? 0
                #expect((withoutRowid == 1) == table.isWithoutRowid, "\(table.name)")
            }
        }
        // Nothing else but the builder's tables behind the views and the search table.
        let declared = Set(DeviceSchema.tables.map(\.name)).union(DeviceSchema.builderTables)
        let others = try database.rows("SELECT name FROM sqlite_master WHERE type IN ('table', 'view')") { $0.text(0) }
            .filter { !declared.contains($0) && !$0.hasPrefix("pokemon_search") }
        #expect(others.isEmpty, "\(others)")
    }

    /// The Python oracles (Tests/Support) are written from the documentation, independently
    /// of the Swift code, so they list the columns again: each must list the declared ones,
    /// in order, with the declared key where it says one.
    @Test func thePythonOraclesListTheDeclaredColumns() async throws {
        let result = try await runProgram("python3", [TestPaths.support.appendingPathComponent("oracle_columns.py").path])
        try #require(result.status == 0, "\(result.stderr)")
        struct Listed: Decodable { var columns: [String]; var keys: Int? }
        let oracles = try JSONDecoder().decode([String: [String: Listed]].self, from: Data(result.text.utf8))
        let declared = Dictionary(uniqueKeysWithValues: DeviceSchema.tables.map { ($0.name, $0) })
        #expect(oracles.count == 5)
        for (oracle, tables) in oracles {
            for (name, listed) in tables where !name.hasPrefix("pokemon_search") {
                guard let table = declared[name] else {
                    Issue.record("\(oracle) has a table \(name) the declaration does not")
                    continue
                }
                #expect(listed.columns == table.columns, "\(oracle): \(name)")
                if let keys = listed.keys { #expect(keys == table.keyCount, "\(oracle): \(name)'s key") }
            }
        }
        // The digest's oracle and the two that build whole databases have every table.
        for oracle in ["content_digest.py", "make_device_db.py", "make_update_test_db.py"] {
            let names = Set(oracles[oracle, default: [:]].keys.filter { !$0.hasPrefix("pokemon_search") })
            #expect(names == Set(declared.keys), "\(oracle)")
        }
    }

    /// A column added to the declaration (here `pokemon.nickname`, by a test's own copy of
    /// it) is created by the DDL, covered by `content_digest`, checked by the install's
    /// schema check, carried by a delta, and still there after the delta is applied, for a
    /// pokemon the delta re-sends for another change as for one it changes. The schema's
    /// own declaration refuses that delta (its `changes.sqlite` is not a delta it knows).
    @Test func aColumnAddedToTheDeclarationSurvivesInstallAndDelta() async throws {
        let nickname = DeviceSchema.Column.text("nickname")
        let extended = DeviceSchema.tables.map { $0.name == DeviceSchema.Table.pokemon.name ? $0.adding(nickname) : $0 }
        try await withTemporaryDirectory { folder in
            // Pikachu's weight changes in version 2; its nickname does not.
            let plain1 = try await UpdateFixtures.makeVersion(1, from: TestPaths.sample2026, in: folder)
            let plain2 = try await UpdateFixtures.makeVersion(2, from: TestPaths.sample2026, in: folder) { db in
                try db.execute("UPDATE pokemon SET weight = weight + 1 WHERE id = 25")
            }
            let ids = try Database(path: plain1.database.path, mode: .readOnly)
                .rows("SELECT id FROM pokemon WHERE id <> 25 ORDER BY id LIMIT 2") { $0.int(0) }
            try #require(ids.count == 2)
            let (renamed, kept) = (ids[0], ids[1])
            let v1 = try Self.extendedCopy(of: plain1, as: "extended-1.sqlite", schema: extended,
                                           fill: Self.nicknames([25: "Sparky", renamed: "Seedling", kept: "Shell"]))
            let v2 = try Self.extendedCopy(of: plain2, as: "extended-2.sqlite", schema: extended,
                                           fill: Self.nicknames([25: "Sparky", renamed: "Sprout", kept: "Shell"]))

            // Install: the file holds only the reader's own code, and its digest covers the column.
            #expect(DeviceDatabaseSchema.problem(at: v1.database) == nil)
            let installed = try Database(path: v1.database.path, mode: .readOnly)
            #expect(try ContentDigest.compute(installed, tables: extended).hex == v1.digest)
            #expect(try ContentDigest.compute(installed).hex != v1.digest, "the digest does not cover nickname")

            // The delta carries the column for both pokemon that changed.
            let changes = folder.appendingPathComponent("changes.sqlite")
            let summary = try DeltaBuilder(old: v1.database, new: v2.database, tables: extended).write(to: changes)
            #expect(summary.upserted[.pokemon] == [renamed, 25].sorted())
            let carried = try Database(path: changes.path, mode: .readOnly)
                .rows("SELECT id, nickname FROM pokemon ORDER BY id") { "\($0.int(0)) \($0.text(1))" }
            #expect(carried == [renamed, 25].sorted().map { "\($0) \($0 == 25 ? "Sparky" : "Sprout")" })

            let manifest = UpdateFixtures.manifest(for: v2, base: v1)
            let applied = folder.appendingPathComponent("applied.sqlite")
            try DeltaApplier(tables: extended).apply(changes: changes, to: v1.database, writingTo: applied, manifest: manifest)
            let after = try Database(path: applied.path, mode: .readOnly)
            let nicknames = try after.rows("SELECT id, nickname FROM pokemon WHERE nickname IS NOT NULL ORDER BY id") {
                "\($0.int(0)) \($0.text(1))"
            }
            #expect(nicknames == [(25, "Sparky"), (renamed, "Sprout"), (kept, "Shell")].sorted { $0.0 < $1.0 }
                .map { "\($0.0) \($0.1)" })
            #expect(try after.integer("SELECT weight FROM pokemon WHERE id = 25")
                    == (try Database(path: v2.database.path, mode: .readOnly).integer("SELECT weight FROM pokemon WHERE id = 25")))
            #expect(try ContentDigest.compute(after, tables: extended).hex == v2.digest)

            // The schema's own declaration does not take a delta with a column it does not declare.
            let refused = folder.appendingPathComponent("refused.sqlite")
            #expect(throws: DeltaApplyError.self) {
                try DeltaApplier().apply(changes: changes, to: v1.database, writingTo: refused, manifest: manifest)
            }
            #expect(!FileManager.default.fileExists(atPath: refused.path))
        }
    }

    /// Sets `pokemon.nickname` of the pokemon `nicknames` names.
    static func nicknames(_ nicknames: [Int: String]) -> (Database) throws -> Void {
        { database in
            for (id, nickname) in nicknames {
                try database.run("UPDATE pokemon SET nickname = ? WHERE id = ?", [.text(nickname), SQLValue(id)])
            }
        }
    }

    /// A device database of `schema` made with its DDL, holding `version`'s rows (the
    /// schema's own columns) and what `fill` adds (the new column's values), with its
    /// search table and content_digest.
    static func extendedCopy(of version: UpdateFixtures.Version, as name: String, schema: [DeviceSchema.Table],
                             fill: (Database) throws -> Void) throws -> UpdateFixtures.Version {
        let file = version.database.deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent(name)
        let database = try Database(path: file.path)
        try DeviceSchema.create(in: database, tables: schema)
        try database.run("ATTACH DATABASE ? AS source", [.text(version.database.path)])
        try database.transaction { database in
            for table in DeviceSchema.tables {
                try database.execute("""
                    INSERT INTO main.\(table.quotedName) (\(table.columnList)) SELECT \(table.columnList) FROM source.\(table.quotedName)
                    """)
            }
            try fill(database)
            try DeviceSearchIndex.rebuild(database)
        }
        try database.execute("DETACH DATABASE source")
        let digest = try ContentDigest.compute(database, tables: schema).hex
        try database.run("UPDATE meta SET value = ? WHERE key = ?", [.text(digest), .text(DeviceSchema.MetaKey.contentDigest)])
        var copy = version
        copy.database = file
        copy.digest = digest
        return copy
    }
}
