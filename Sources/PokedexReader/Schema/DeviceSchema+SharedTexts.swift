/// `ability_text` and `move_text` as views over shared texts, the way
/// `species_flavor_text` is (DeviceSchema+SharedTables.swift): their texts were most of
/// what the reference tables add to the gzipped database. Each distinct text is stored
/// once in `<kind>_text_body` (`es-419` repeats `es` word for word; a quarter of the move
/// texts repeat another move's: the Max and Z-moves, "Inflicts regular damage..."),
/// numbered language by language so that gzip sees one language's texts together; the
/// language is a code from `language_code`. Measured on the full 2026 snapshot, every
/// language: the plain tables made the whole database 4.54 MB gzip -9 (`bench_bundles.py`).
///
/// Unlike species flavor texts, a body is shared across abilities (or moves), so the
/// triggers find a text, or a body's other users, by scanning the kind's few thousand
/// rows (no index: it would store every text twice). That is a millisecond a row,
/// nothing for a delta of a few abilities or moves.
extension DeviceSchema {
    /// The builder tables behind `ability_text` and `move_text`.
    static let sharedTextTables = ["ability_text_body", "ability_text_link", "move_text_body", "move_text_link"]

    /// The view `<kind>_text` over `<kind>_text_link` and `<kind>_text_body`.
    static func sharedTextDDL(_ kind: String, _ plain: PlainViewColumns) -> String {
        let id = "\(kind)_id", body = "\(kind)_text_body", link = "\(kind)_text_link"
        // The id of NEW.<column>'s text among the bodies, if there is one.
        func bodyOf(_ column: String) -> String {
            "(SELECT b.id FROM \(body) b WHERE b.text = NEW.\(column) ORDER BY b.id LIMIT 1)"
        }
        func insertBody(_ column: String) -> String {
            """
            INSERT INTO \(body)(text) SELECT NEW.\(column) WHERE NEW.\(column) IS NOT NULL AND \(bodyOf(column)) IS NULL;
            """
        }
        return """
        CREATE TABLE \(body)(id INTEGER PRIMARY KEY, text TEXT NOT NULL);
        CREATE TABLE \(link)(
            \(id) INTEGER NOT NULL, language_id INTEGER NOT NULL, short_effect_id INTEGER, flavor_text_id INTEGER,\(plain.definitionLine)
            PRIMARY KEY(\(id), language_id)) WITHOUT ROWID;
        CREATE VIEW \(kind)_text(\(id), language, short_effect, flavor_text\(plain.names)) AS
            SELECT l.\(id), c.code, s.text, f.text\(plain.selected)
            FROM \(link) l JOIN language_code c ON c.id = l.language_id
            LEFT JOIN \(body) s ON s.id = l.short_effect_id LEFT JOIN \(body) f ON f.id = l.flavor_text_id;
        CREATE TRIGGER \(kind)_text_insert INSTEAD OF INSERT ON \(kind)_text BEGIN
            INSERT OR IGNORE INTO language_code(code) VALUES (NEW.language);
            \(insertBody("short_effect"))
            INSERT INTO \(link)(\(id), language_id, short_effect_id, flavor_text_id\(plain.names))
                VALUES (NEW.\(id), (SELECT id FROM language_code WHERE code = NEW.language),
                        CASE WHEN NEW.short_effect IS NULL THEN NULL
                             ELSE coalesce(\(bodyOf("short_effect")), (SELECT max(id) FROM \(body))) END,
                        NULL\(plain.inserted));
            \(insertBody("flavor_text"))
            UPDATE \(link) SET flavor_text_id = CASE WHEN NEW.flavor_text IS NULL THEN NULL ELSE
                    coalesce(\(bodyOf("flavor_text")), (SELECT max(id) FROM \(body))) END
                WHERE \(id) = NEW.\(id) AND language_id = (SELECT id FROM language_code WHERE code = NEW.language);
        END;
        CREATE TRIGGER \(kind)_text_delete INSTEAD OF DELETE ON \(kind)_text BEGIN
            -- A body goes with the last row that uses it.
            DELETE FROM \(body) WHERE id IN (
                SELECT b FROM (SELECT l.short_effect_id AS b FROM \(link) l WHERE l.\(id) = OLD.\(id)
                                 AND l.language_id = (SELECT id FROM language_code WHERE code = OLD.language)
                               UNION SELECT l.flavor_text_id FROM \(link) l WHERE l.\(id) = OLD.\(id)
                                 AND l.language_id = (SELECT id FROM language_code WHERE code = OLD.language))
                WHERE b IS NOT NULL
                  AND (SELECT count(*) FROM \(link) l WHERE l.short_effect_id = b OR l.flavor_text_id = b) = 1);
            DELETE FROM \(link)
                WHERE \(id) = OLD.\(id) AND language_id = (SELECT id FROM language_code WHERE code = OLD.language);
        END;
        """
    }
}
