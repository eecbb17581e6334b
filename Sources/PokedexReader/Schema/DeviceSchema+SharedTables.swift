/// The three schema tables that are views over the builder's own tables, with the
/// `INSTEAD OF INSERT` and `INSTEAD OF DELETE` triggers that let the plain-SQL delta of <doc:PokedexUpdater/Installing#Applying-a-delta>
/// work on them unchanged.
///
/// They were four fifths of the gzipped database. What the views save, measured on the
/// full 2026 snapshot with every language (gzip -9 of the whole file):
/// - `species_flavor_text`: texts are stored once per species (`es-419` repeats `es`
///   word for word, many games repeat an older game's entry) in `flavor_text_body`,
///   numbered language by language so that gzip sees one language's texts together;
///   language and version are small integer codes. 3.48 MB to about 2.6 MB.
/// - `pokemon_move`: move names once, in `move_code`; a pokemon's moves as integers.
/// - `pokemon_sprite`: sprite keys once, in `sprite_key_code`, each with the URL pattern
///   most of its sprites follow (`prefix` + pokemon id + `suffix`); a sprite's URL is
///   stored only when it does not follow its key's pattern (a few forms' sprites).
///
/// Codes are assigned in sorted order by the builder, so the link tables' keys sort as
/// the views' keys do. The vocabularies (`language_code`, `version_code`, `move_code`,
/// `sprite_key_code`) are dictionaries: a code nothing uses any more stays (finding its
/// users would need an index as large as what it saves). Flavor texts, the bulk, are
/// removed with the last row that uses them: they are only shared within one species,
/// so finding their other users is a lookup by the link table's key.
///
/// Each design is written for the columns it stores specially and rendered with the
/// table's plain columns, the ones declared after those (`DeviceSchema+ViewColumns.swift`).
extension DeviceSchema {
    /// The builder tables behind the views (not part of the logical schema).
    package static let builderTables = [
        "language_code", "version_code", "flavor_text_body", "species_flavor_link",
        "move_code", "pokemon_move_link", "sprite_key_code", "pokemon_sprite_link",
    ] + sharedTextTables

    /// The delete trigger of `view`, a pokemon's rows each with one code: the row of
    /// `<view>_link` whose `code` is the id, in `codes`, of the `name` `OLD.<column>`.
    private static func deleteByCode(_ view: String, code: String, from codes: String, name: String,
                                     column: String) -> String {
        """
        CREATE TRIGGER \(view)_delete INSTEAD OF DELETE ON \(view) BEGIN
            DELETE FROM \(view)_link
                WHERE pokemon_id = OLD.pokemon_id AND \(code) = (SELECT id FROM \(codes) WHERE \(name) = OLD.\(column));
        END;
        """
    }

    static func sharedMoveDDL(_ plain: PlainViewColumns) -> String {
        """
        CREATE TABLE move_code(id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);
        CREATE TABLE pokemon_move_link(
            pokemon_id INTEGER NOT NULL, move_id INTEGER NOT NULL,\(plain.definitionLine)
            PRIMARY KEY(pokemon_id, move_id)) WITHOUT ROWID;
        CREATE VIEW pokemon_move(pokemon_id, move\(plain.names)) AS
            SELECT l.pokemon_id, m.name\(plain.selected) FROM pokemon_move_link l JOIN move_code m ON m.id = l.move_id;
        CREATE TRIGGER pokemon_move_insert INSTEAD OF INSERT ON pokemon_move BEGIN
            INSERT OR IGNORE INTO move_code(name) VALUES (NEW.move);
            INSERT INTO pokemon_move_link(pokemon_id, move_id\(plain.names))
                VALUES (NEW.pokemon_id, (SELECT id FROM move_code WHERE name = NEW.move)\(plain.inserted));
        END;
        \(deleteByCode("pokemon_move", code: "move_id", from: "move_code", name: "name", column: "move"))
        """
    }

    static func sharedSpriteDDL(_ plain: PlainViewColumns) -> String {
        """
        CREATE TABLE sprite_key_code(id INTEGER PRIMARY KEY, key TEXT NOT NULL UNIQUE, url_prefix TEXT, url_suffix TEXT);
        CREATE TABLE pokemon_sprite_link(
            pokemon_id INTEGER NOT NULL, key_id INTEGER NOT NULL, url TEXT, path TEXT,\(plain.definitionLine)
            PRIMARY KEY(pokemon_id, key_id)) WITHOUT ROWID;
        CREATE VIEW pokemon_sprite(pokemon_id, key, url, path\(plain.names)) AS
            SELECT l.pokemon_id, k.key, coalesce(l.url, k.url_prefix || l.pokemon_id || k.url_suffix), l.path\(plain.selected)
            FROM pokemon_sprite_link l JOIN sprite_key_code k ON k.id = l.key_id;
        CREATE TRIGGER pokemon_sprite_insert INSTEAD OF INSERT ON pokemon_sprite BEGIN
            INSERT OR IGNORE INTO sprite_key_code(key) VALUES (NEW.key);
            INSERT INTO pokemon_sprite_link(pokemon_id, key_id, url, path\(plain.names))
                SELECT NEW.pokemon_id, k.id,
                       CASE WHEN k.url_prefix || NEW.pokemon_id || k.url_suffix IS NEW.url THEN NULL ELSE NEW.url END,
                       NEW.path\(plain.inserted)
                FROM sprite_key_code k WHERE k.key = NEW.key;
        END;
        \(deleteByCode("pokemon_sprite", code: "key_id", from: "sprite_key_code", name: "key", column: "key"))
        """
    }

    static func sharedFlavorTextDDL(_ plain: PlainViewColumns) -> String {
        """
        CREATE TABLE language_code(id INTEGER PRIMARY KEY, code TEXT NOT NULL UNIQUE);
        CREATE TABLE version_code(id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);
        CREATE TABLE flavor_text_body(id INTEGER PRIMARY KEY, text TEXT NOT NULL);
        CREATE TABLE species_flavor_link(
            species_id INTEGER NOT NULL, language_id INTEGER NOT NULL, version_id INTEGER NOT NULL,
            entry_index INTEGER NOT NULL, text_id INTEGER NOT NULL,\(plain.definitionLine)
            PRIMARY KEY(species_id, language_id, version_id)) WITHOUT ROWID;
        CREATE VIEW species_flavor_text(species_id, language, version, entry_index, text\(plain.names)) AS
            SELECT l.species_id, c.code, v.name, l.entry_index, t.text\(plain.selected)
            FROM species_flavor_link l JOIN language_code c ON c.id = l.language_id
            JOIN version_code v ON v.id = l.version_id JOIN flavor_text_body t ON t.id = l.text_id;
        CREATE TRIGGER species_flavor_text_insert INSTEAD OF INSERT ON species_flavor_text BEGIN
            INSERT OR IGNORE INTO language_code(code) VALUES (NEW.language);
            INSERT OR IGNORE INTO version_code(name) VALUES (NEW.version);
            -- A text is shared only by rows of one species (so that the delete below finds
            -- its other users by key): a new body unless this species already has the text.
            INSERT INTO flavor_text_body(text) SELECT NEW.text WHERE NOT EXISTS (
                SELECT 1 FROM species_flavor_link l JOIN flavor_text_body t ON t.id = l.text_id
                WHERE l.species_id = NEW.species_id AND t.text = NEW.text);
            INSERT INTO species_flavor_link(species_id, language_id, version_id, entry_index, text_id\(plain.names))
                VALUES (NEW.species_id, (SELECT id FROM language_code WHERE code = NEW.language),
                        (SELECT id FROM version_code WHERE name = NEW.version), NEW.entry_index,
                        coalesce((SELECT l.text_id FROM species_flavor_link l JOIN flavor_text_body t ON t.id = l.text_id
                                  WHERE l.species_id = NEW.species_id AND t.text = NEW.text),
                                 (SELECT max(id) FROM flavor_text_body))\(plain.inserted));
        END;
        CREATE TRIGGER species_flavor_text_delete INSTEAD OF DELETE ON species_flavor_text BEGIN
            -- The body goes with the last row of its species that uses it.
            DELETE FROM flavor_text_body WHERE id = (
                SELECT l.text_id FROM species_flavor_link l
                WHERE l.species_id = OLD.species_id
                  AND l.language_id = (SELECT id FROM language_code WHERE code = OLD.language)
                  AND l.version_id = (SELECT id FROM version_code WHERE name = OLD.version))
              AND (SELECT count(*) FROM species_flavor_link l
                   WHERE l.species_id = OLD.species_id AND l.text_id = flavor_text_body.id) = 1;
            DELETE FROM species_flavor_link
                WHERE species_id = OLD.species_id
                  AND language_id = (SELECT id FROM language_code WHERE code = OLD.language)
                  AND version_id = (SELECT id FROM version_code WHERE name = OLD.version);
        END;
        """
    }
}
