/// The DDL text of each released schema version, word for word as its files hold it.
///
/// SQLite keeps each statement's text in the file (`sqlite_master`), so a released version's
/// text is part of every bundle's bytes and never changes: it is written here once, as a
/// literal, when the version ships. `DeviceSchemaDeclarationTests` checks that what SQLite
/// makes of it is the declaration (``DeviceSchema/tables``: each table's columns in order,
/// their types, `NOT NULL`, key and rowid) and holds its `sqlite_master` to a pinned
/// digest; a schema version with no text here fails that test, and prints the text to pin
/// (<doc:PokedexReader/DeviceDatabase#Adding-a-column>).
extension DeviceSchema {
    /// The `CREATE` statements of each released schema version, by version.
    package static let shippedDDL: [Int: String] = [
        2: """
        CREATE TABLE meta(key TEXT NOT NULL PRIMARY KEY, value TEXT) WITHOUT ROWID;
        CREATE TABLE pokemon(
            id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, species_id INTEGER NOT NULL,
            height INTEGER, weight INTEGER, base_experience INTEGER, is_default INTEGER NOT NULL,
            sort_order INTEGER);
        CREATE TABLE pokemon_type(
            pokemon_id INTEGER NOT NULL, slot INTEGER NOT NULL, type TEXT NOT NULL,
            PRIMARY KEY(pokemon_id, slot)) WITHOUT ROWID;
        CREATE TABLE pokemon_stat(
            pokemon_id INTEGER NOT NULL, stat TEXT NOT NULL, base_stat INTEGER NOT NULL, effort INTEGER NOT NULL,
            PRIMARY KEY(pokemon_id, stat)) WITHOUT ROWID;
        CREATE TABLE pokemon_ability(
            pokemon_id INTEGER NOT NULL, slot INTEGER NOT NULL, ability TEXT NOT NULL, is_hidden INTEGER NOT NULL,
            PRIMARY KEY(pokemon_id, slot)) WITHOUT ROWID;
        CREATE TABLE move_code(id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);
        CREATE TABLE pokemon_move_link(
            pokemon_id INTEGER NOT NULL, move_id INTEGER NOT NULL,
            PRIMARY KEY(pokemon_id, move_id)) WITHOUT ROWID;
        CREATE VIEW pokemon_move(pokemon_id, move) AS
            SELECT l.pokemon_id, m.name FROM pokemon_move_link l JOIN move_code m ON m.id = l.move_id;
        CREATE TRIGGER pokemon_move_insert INSTEAD OF INSERT ON pokemon_move BEGIN
            INSERT OR IGNORE INTO move_code(name) VALUES (NEW.move);
            INSERT INTO pokemon_move_link(pokemon_id, move_id)
                VALUES (NEW.pokemon_id, (SELECT id FROM move_code WHERE name = NEW.move));
        END;
        CREATE TRIGGER pokemon_move_delete INSTEAD OF DELETE ON pokemon_move BEGIN
            DELETE FROM pokemon_move_link
                WHERE pokemon_id = OLD.pokemon_id AND move_id = (SELECT id FROM move_code WHERE name = OLD.move);
        END;
        CREATE TABLE sprite_key_code(id INTEGER PRIMARY KEY, key TEXT NOT NULL UNIQUE, url_prefix TEXT, url_suffix TEXT);
        CREATE TABLE pokemon_sprite_link(
            pokemon_id INTEGER NOT NULL, key_id INTEGER NOT NULL, url TEXT, path TEXT,
            PRIMARY KEY(pokemon_id, key_id)) WITHOUT ROWID;
        CREATE VIEW pokemon_sprite(pokemon_id, key, url, path) AS
            SELECT l.pokemon_id, k.key, coalesce(l.url, k.url_prefix || l.pokemon_id || k.url_suffix), l.path
            FROM pokemon_sprite_link l JOIN sprite_key_code k ON k.id = l.key_id;
        CREATE TRIGGER pokemon_sprite_insert INSTEAD OF INSERT ON pokemon_sprite BEGIN
            INSERT OR IGNORE INTO sprite_key_code(key) VALUES (NEW.key);
            INSERT INTO pokemon_sprite_link(pokemon_id, key_id, url, path)
                SELECT NEW.pokemon_id, k.id,
                       CASE WHEN k.url_prefix || NEW.pokemon_id || k.url_suffix IS NEW.url THEN NULL ELSE NEW.url END,
                       NEW.path
                FROM sprite_key_code k WHERE k.key = NEW.key;
        END;
        CREATE TRIGGER pokemon_sprite_delete INSTEAD OF DELETE ON pokemon_sprite BEGIN
            DELETE FROM pokemon_sprite_link
                WHERE pokemon_id = OLD.pokemon_id AND key_id = (SELECT id FROM sprite_key_code WHERE key = OLD.key);
        END;
        CREATE TABLE species(
            id INTEGER PRIMARY KEY, name TEXT NOT NULL, generation TEXT, evolution_chain_id INTEGER,
            evolves_from_species_id INTEGER, is_baby INTEGER NOT NULL, is_legendary INTEGER NOT NULL,
            is_mythical INTEGER NOT NULL, color TEXT, habitat TEXT, gender_rate INTEGER, capture_rate INTEGER);
        CREATE TABLE species_name(
            species_id INTEGER NOT NULL, language TEXT NOT NULL, name TEXT, genus TEXT,
            PRIMARY KEY(species_id, language)) WITHOUT ROWID;
        CREATE TABLE language_code(id INTEGER PRIMARY KEY, code TEXT NOT NULL UNIQUE);
        CREATE TABLE version_code(id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);
        CREATE TABLE flavor_text_body(id INTEGER PRIMARY KEY, text TEXT NOT NULL);
        CREATE TABLE species_flavor_link(
            species_id INTEGER NOT NULL, language_id INTEGER NOT NULL, version_id INTEGER NOT NULL,
            entry_index INTEGER NOT NULL, text_id INTEGER NOT NULL,
            PRIMARY KEY(species_id, language_id, version_id)) WITHOUT ROWID;
        CREATE VIEW species_flavor_text(species_id, language, version, entry_index, text) AS
            SELECT l.species_id, c.code, v.name, l.entry_index, t.text
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
            INSERT INTO species_flavor_link(species_id, language_id, version_id, entry_index, text_id)
                VALUES (NEW.species_id, (SELECT id FROM language_code WHERE code = NEW.language),
                        (SELECT id FROM version_code WHERE name = NEW.version), NEW.entry_index,
                        coalesce((SELECT l.text_id FROM species_flavor_link l JOIN flavor_text_body t ON t.id = l.text_id
                                  WHERE l.species_id = NEW.species_id AND t.text = NEW.text),
                                 (SELECT max(id) FROM flavor_text_body)));
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
        CREATE TABLE pokedex(id INTEGER PRIMARY KEY, name TEXT NOT NULL, region TEXT, is_main_series INTEGER NOT NULL);
        CREATE TABLE pokedex_entry(
            pokedex_id INTEGER NOT NULL, entry_number INTEGER NOT NULL, species_id INTEGER NOT NULL,
            PRIMARY KEY(pokedex_id, entry_number)) WITHOUT ROWID;
        CREATE TABLE pokedex_description(
            pokedex_id INTEGER NOT NULL, language TEXT NOT NULL, description TEXT NOT NULL,
            PRIMARY KEY(pokedex_id, language)) WITHOUT ROWID;
        CREATE TABLE evolution_chain(id INTEGER PRIMARY KEY, root_species_id INTEGER NOT NULL, baby_trigger_item TEXT);
        CREATE TABLE evolution_step(
            chain_id INTEGER NOT NULL, to_species_id INTEGER NOT NULL, from_species_id INTEGER NOT NULL,
            trigger TEXT, min_level INTEGER, item TEXT, details_json TEXT NOT NULL,
            PRIMARY KEY(chain_id, to_species_id)) WITHOUT ROWID;
        CREATE TABLE "type"(id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, generation TEXT);
        CREATE TABLE type_name(
            type_id INTEGER NOT NULL, language TEXT NOT NULL, name TEXT NOT NULL,
            PRIMARY KEY(type_id, language)) WITHOUT ROWID;
        CREATE TABLE type_efficacy(
            attacking_type_id INTEGER NOT NULL, defending_type_id INTEGER NOT NULL, factor INTEGER NOT NULL,
            PRIMARY KEY(attacking_type_id, defending_type_id)) WITHOUT ROWID;
        CREATE TABLE ability(id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, generation TEXT, is_main_series INTEGER NOT NULL);
        CREATE TABLE ability_name(
            ability_id INTEGER NOT NULL, language TEXT NOT NULL, name TEXT NOT NULL,
            PRIMARY KEY(ability_id, language)) WITHOUT ROWID;
        CREATE TABLE ability_text_body(id INTEGER PRIMARY KEY, text TEXT NOT NULL);
        CREATE TABLE ability_text_link(
            ability_id INTEGER NOT NULL, language_id INTEGER NOT NULL, short_effect_id INTEGER, flavor_text_id INTEGER,
            PRIMARY KEY(ability_id, language_id)) WITHOUT ROWID;
        CREATE VIEW ability_text(ability_id, language, short_effect, flavor_text) AS
            SELECT l.ability_id, c.code, s.text, f.text
            FROM ability_text_link l JOIN language_code c ON c.id = l.language_id
            LEFT JOIN ability_text_body s ON s.id = l.short_effect_id LEFT JOIN ability_text_body f ON f.id = l.flavor_text_id;
        CREATE TRIGGER ability_text_insert INSTEAD OF INSERT ON ability_text BEGIN
            INSERT OR IGNORE INTO language_code(code) VALUES (NEW.language);
            INSERT INTO ability_text_body(text) SELECT NEW.short_effect WHERE NEW.short_effect IS NOT NULL AND (SELECT b.id FROM ability_text_body b WHERE b.text = NEW.short_effect ORDER BY b.id LIMIT 1) IS NULL;
            INSERT INTO ability_text_link(ability_id, language_id, short_effect_id, flavor_text_id)
                VALUES (NEW.ability_id, (SELECT id FROM language_code WHERE code = NEW.language),
                        CASE WHEN NEW.short_effect IS NULL THEN NULL
                             ELSE coalesce((SELECT b.id FROM ability_text_body b WHERE b.text = NEW.short_effect ORDER BY b.id LIMIT 1), (SELECT max(id) FROM ability_text_body)) END,
                        NULL);
            INSERT INTO ability_text_body(text) SELECT NEW.flavor_text WHERE NEW.flavor_text IS NOT NULL AND (SELECT b.id FROM ability_text_body b WHERE b.text = NEW.flavor_text ORDER BY b.id LIMIT 1) IS NULL;
            UPDATE ability_text_link SET flavor_text_id = CASE WHEN NEW.flavor_text IS NULL THEN NULL ELSE
                    coalesce((SELECT b.id FROM ability_text_body b WHERE b.text = NEW.flavor_text ORDER BY b.id LIMIT 1), (SELECT max(id) FROM ability_text_body)) END
                WHERE ability_id = NEW.ability_id AND language_id = (SELECT id FROM language_code WHERE code = NEW.language);
        END;
        CREATE TRIGGER ability_text_delete INSTEAD OF DELETE ON ability_text BEGIN
            -- A body goes with the last row that uses it.
            DELETE FROM ability_text_body WHERE id IN (
                SELECT b FROM (SELECT l.short_effect_id AS b FROM ability_text_link l WHERE l.ability_id = OLD.ability_id
                                 AND l.language_id = (SELECT id FROM language_code WHERE code = OLD.language)
                               UNION SELECT l.flavor_text_id FROM ability_text_link l WHERE l.ability_id = OLD.ability_id
                                 AND l.language_id = (SELECT id FROM language_code WHERE code = OLD.language))
                WHERE b IS NOT NULL
                  AND (SELECT count(*) FROM ability_text_link l WHERE l.short_effect_id = b OR l.flavor_text_id = b) = 1);
            DELETE FROM ability_text_link
                WHERE ability_id = OLD.ability_id AND language_id = (SELECT id FROM language_code WHERE code = OLD.language);
        END;
        CREATE TABLE move(
            id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, type_id INTEGER, damage_class TEXT, power INTEGER,
            accuracy INTEGER, pp INTEGER, priority INTEGER, generation TEXT);
        CREATE TABLE move_name(
            move_id INTEGER NOT NULL, language TEXT NOT NULL, name TEXT NOT NULL,
            PRIMARY KEY(move_id, language)) WITHOUT ROWID;
        CREATE TABLE move_text_body(id INTEGER PRIMARY KEY, text TEXT NOT NULL);
        CREATE TABLE move_text_link(
            move_id INTEGER NOT NULL, language_id INTEGER NOT NULL, short_effect_id INTEGER, flavor_text_id INTEGER,
            PRIMARY KEY(move_id, language_id)) WITHOUT ROWID;
        CREATE VIEW move_text(move_id, language, short_effect, flavor_text) AS
            SELECT l.move_id, c.code, s.text, f.text
            FROM move_text_link l JOIN language_code c ON c.id = l.language_id
            LEFT JOIN move_text_body s ON s.id = l.short_effect_id LEFT JOIN move_text_body f ON f.id = l.flavor_text_id;
        CREATE TRIGGER move_text_insert INSTEAD OF INSERT ON move_text BEGIN
            INSERT OR IGNORE INTO language_code(code) VALUES (NEW.language);
            INSERT INTO move_text_body(text) SELECT NEW.short_effect WHERE NEW.short_effect IS NOT NULL AND (SELECT b.id FROM move_text_body b WHERE b.text = NEW.short_effect ORDER BY b.id LIMIT 1) IS NULL;
            INSERT INTO move_text_link(move_id, language_id, short_effect_id, flavor_text_id)
                VALUES (NEW.move_id, (SELECT id FROM language_code WHERE code = NEW.language),
                        CASE WHEN NEW.short_effect IS NULL THEN NULL
                             ELSE coalesce((SELECT b.id FROM move_text_body b WHERE b.text = NEW.short_effect ORDER BY b.id LIMIT 1), (SELECT max(id) FROM move_text_body)) END,
                        NULL);
            INSERT INTO move_text_body(text) SELECT NEW.flavor_text WHERE NEW.flavor_text IS NOT NULL AND (SELECT b.id FROM move_text_body b WHERE b.text = NEW.flavor_text ORDER BY b.id LIMIT 1) IS NULL;
            UPDATE move_text_link SET flavor_text_id = CASE WHEN NEW.flavor_text IS NULL THEN NULL ELSE
                    coalesce((SELECT b.id FROM move_text_body b WHERE b.text = NEW.flavor_text ORDER BY b.id LIMIT 1), (SELECT max(id) FROM move_text_body)) END
                WHERE move_id = NEW.move_id AND language_id = (SELECT id FROM language_code WHERE code = NEW.language);
        END;
        CREATE TRIGGER move_text_delete INSTEAD OF DELETE ON move_text BEGIN
            -- A body goes with the last row that uses it.
            DELETE FROM move_text_body WHERE id IN (
                SELECT b FROM (SELECT l.short_effect_id AS b FROM move_text_link l WHERE l.move_id = OLD.move_id
                                 AND l.language_id = (SELECT id FROM language_code WHERE code = OLD.language)
                               UNION SELECT l.flavor_text_id FROM move_text_link l WHERE l.move_id = OLD.move_id
                                 AND l.language_id = (SELECT id FROM language_code WHERE code = OLD.language))
                WHERE b IS NOT NULL
                  AND (SELECT count(*) FROM move_text_link l WHERE l.short_effect_id = b OR l.flavor_text_id = b) = 1);
            DELETE FROM move_text_link
                WHERE move_id = OLD.move_id AND language_id = (SELECT id FROM language_code WHERE code = OLD.language);
        END;
        CREATE TABLE stat(id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, is_battle_only INTEGER NOT NULL);
        CREATE TABLE stat_name(
            stat_id INTEGER NOT NULL, language TEXT NOT NULL, name TEXT NOT NULL,
            PRIMARY KEY(stat_id, language)) WITHOUT ROWID;
        CREATE TABLE version(id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, version_group TEXT);
        CREATE TABLE version_name(
            version_id INTEGER NOT NULL, language TEXT NOT NULL, name TEXT NOT NULL,
            PRIMARY KEY(version_id, language)) WITHOUT ROWID;
        CREATE TABLE language(
            id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, iso639 TEXT, iso3166 TEXT, official INTEGER NOT NULL);
        CREATE TABLE language_name(
            language_id INTEGER NOT NULL, in_language TEXT NOT NULL, name TEXT NOT NULL,
            PRIMARY KEY(language_id, in_language)) WITHOUT ROWID;
        CREATE TABLE pokemon_search(
            pokemon_id INTEGER NOT NULL, text TEXT NOT NULL,
            PRIMARY KEY(pokemon_id, text)) WITHOUT ROWID;
        """,
    ]
}
