/// How a view table's DDL is made: its design (the hand-written builder tables, view and
/// triggers of `DeviceSchema+SharedTables.swift` and `DeviceSchema+SharedTexts.swift`)
/// stores the table's leading columns specially (codes, shared bodies, URL patterns);
/// every column declared after those is a plain column, which the design's text takes as
/// it is, so that adding one to the declaration is all it needs.
extension DeviceSchema {
    /// Which design stores a view table (``Storage/view(_:)``).
    package enum SharedView: Sendable, Hashable {
        case speciesFlavorTexts, pokemonMoves, pokemonSprites
        /// `ability_text` or `move_text`: `kind` is the entity, `ability` or `move`.
        case texts(kind: String)

        /// How many of the table's leading declared columns the design stores specially.
        package var designedColumnCount: Int {
            switch self {
            case .pokemonMoves: 2
            case .pokemonSprites, .texts: 4
            case .speciesFlavorTexts: 5
            }
        }

        /// The builder tables, the view and its triggers, with `plain` stored in the link table.
        func ddl(_ plain: PlainViewColumns) -> String {
            switch self {
            case .speciesFlavorTexts: DeviceSchema.sharedFlavorTextDDL(plain)
            case .pokemonMoves: DeviceSchema.sharedMoveDDL(plain)
            case .pokemonSprites: DeviceSchema.sharedSpriteDDL(plain)
            case let .texts(kind): DeviceSchema.sharedTextDDL(kind, plain)
            }
        }
    }
}

/// A view table's plain columns (``DeviceSchema/Table/plainColumns``) as the pieces a
/// design's text puts them in: defined as declared in the link table (one row per view
/// row, alias `l` in the view), listed after the design's columns in the view and in the
/// link table's insert, and written by the insert trigger from `NEW`. The delete triggers
/// go by key and need none. Each piece is empty when there are no plain columns, so a
/// view without them keeps the text every shipped file holds.
struct PlainViewColumns {
    /// `\n    learn_level INTEGER,`: a line of the link table's definitions, before its key.
    let definitionLine: String
    /// `, learn_level`: after the design's columns in the view's column list and in the
    /// link table's insert.
    let names: String
    /// `, l.learn_level`: after the design's columns in the view's `SELECT`.
    let selected: String
    /// `, NEW.learn_level`: after the design's values in the insert trigger.
    let inserted: String

    init(_ columns: some Collection<DeviceSchema.Column>) {
        func list(_ item: (String) -> String) -> String { columns.map { ", " + item($0.name) }.joined() }
        definitionLine = columns.isEmpty ? "" : "\n    " + columns.map(\.definition).joined(separator: ", ") + ","
        names = list { $0 }
        selected = list { "l.\($0)" }
        inserted = list { "NEW.\($0)" }
    }
}
