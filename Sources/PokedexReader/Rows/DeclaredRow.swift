import Foundation
import PokeSQLite

/// Rows of a declared table (``DeviceSchema/Table``), every declared column selected and
/// read back by name: how the reader fills its models (``model(_:columns:parts:)``), so
/// that a column added to the declaration reaches a model through the model's own
/// property and nothing else (<doc:PokedexReader/DeviceDatabase#Adding-a-column>). No
/// reader query names a table's columns one by one; it names the table, the column it
/// selects rows by and their order.
///
/// A column name the table does not declare stops at once, naming the table and the
/// column: a query or model that reads a column the declaration lacks fails on its first
/// use, not silently.
struct DeclaredRow {
    let query: Query
    /// The declared columns' values in order (then, through a link, the link's column).
    let values: [SQLValue]

    /// The linking table's column of a row read through a link (the move's slug, as the
    /// pokemon names it, whether or not the bundle describes the move).
    var linkValue: String? {
        guard values.count > query.table.columns.count, case .text(let text) = values[query.table.columns.count] else { return nil }
        return text
    }

    /// The integer in `column` (a declared column), nil for NULL: the ids the reader
    /// follows to other tables.
    func optionalInt(_ column: String) -> Int? {
        if case .integer(let number) = value(column) { return Int(number) }
        return nil
    }

    /// The text in `column` (a declared column), nil for NULL: the slugs the reader
    /// follows to other tables.
    func optionalText(_ column: String) -> String? {
        if case .text(let text) = value(column) { return text }
        return nil
    }

    private func value(_ column: String) -> SQLValue {
        guard let value = declared(column) else {
            preconditionFailure("\(query.table.name) declares no column \(column) (\(query.table.columns.joined(separator: ", ")))")
        }
        return value
    }
}

extension DeclaredRow {
    /// `Model` with each stored property read from the declared column of its name
    /// (`baseExperience` from `base_experience`, ``DeviceSchema/columnName(ofProperty:)``)
    /// or of the name `columns` gives it (a stat's `name` is the column `stat`), else
    /// from `parts` by property name (what other tables give: a pokemon's types, its
    /// species). A part wins over a column. A property that is neither, or a part no
    /// property takes, stops at the first read, naming the model and the name.
    func model<Model: Decodable>(_: Model.Type, columns: KeyValuePairs<String, String> = [:],
                                 parts: KeyValuePairs<String, Any> = [:]) -> Model {
        [self].models(Model.self, columns: columns) { _ in parts }[0]
    }

    /// The value of a declared column, nil when the table declares no such column.
    func declared(_ column: String) -> SQLValue? {
        query.positions[column].map { values[Int($0)] }
    }

    /// The position of the declared column of `property`'s name, nil when the table declares none.
    func position(ofProperty property: String) -> Int32? {
        // An unusual spelling (`detailsJSon`), or no column, is spelled out.
        query.propertyPositions[property] ?? query.positions[DeviceSchema.columnName(ofProperty: property)]
    }
}
