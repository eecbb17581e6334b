/// The reference tables (<doc:PokedexReader/DeviceDatabase#Reference-tables>: `type*`, `ability*`, `move*`, `stat*`, `version*`,
/// `language*`): the localized names and facts of what the pokemon tables name by slug.
///
/// Entity tables are keyed by their integer id (the rowid) with `name` UNIQUE, which
/// gives the reader its joins from a slug. The localized tables are `WITHOUT ROWID`,
/// keyed by (entity id, language), so one entity's languages sit together in the file;
/// `ability_text` and `move_text` are views over shared texts (DeviceSchema+SharedTexts).
extension DeviceSchema {
    static let referenceDDL = """
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
    \(sharedTextDDL("ability"))
    CREATE TABLE move(
        id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, type_id INTEGER, damage_class TEXT, power INTEGER,
        accuracy INTEGER, pp INTEGER, priority INTEGER, generation TEXT);
    CREATE TABLE move_name(
        move_id INTEGER NOT NULL, language TEXT NOT NULL, name TEXT NOT NULL,
        PRIMARY KEY(move_id, language)) WITHOUT ROWID;
    \(sharedTextDDL("move"))
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
    """
}
