import PokeSQLite
import PokedexReader

/// Rows of the device tables, by table name, in the order they were added. Each
/// document gives its own `DeviceRows` (documents convert independently, so they can be
/// decoded in parallel); the builder appends them in kind and id order, which is key
/// order for every table.
struct DeviceRows {
    private(set) var tables: [String: [[SQLValue]]] = [:]

    mutating func append(_ table: String, _ row: [SQLValue]) {
        tables[table, default: []].append(row)
    }

    mutating func append(contentsOf other: DeviceRows) {
        for (table, rows) in other.tables { tables[table, default: []].append(contentsOf: rows) }
    }

    func rows(_ table: String) -> [[SQLValue]] { tables[table] ?? [] }

    /// Keeps only the rows `isIncluded` accepts in `table`.
    mutating func filter(_ table: String, _ isIncluded: ([SQLValue]) -> Bool) {
        tables[table]?.removeAll { !isIncluded($0) }
    }
}

/// Builds rows with one value per key, the first seen kept, in key order: the API's lists
/// are in game or slot order, which is not always key order, and a key may repeat.
struct KeyedRows<Key: Hashable & Comparable> {
    private var rows: [Key: [SQLValue]] = [:]

    /// Adds `row` unless a row with `key` is already there.
    mutating func add(_ key: Key, _ row: @autoclosure () -> [SQLValue]) {
        if rows[key] == nil { rows[key] = row() }
    }

    /// The rows in key order.
    var sorted: [[SQLValue]] { rows.sorted { $0.key < $1.key }.map(\.value) }
}

extension SQLValue {
    /// The integer of an integer value, else nil.
    var integerValue: Int? {
        if case .integer(let value) = self { return Int(value) }
        return nil
    }

    /// The text of a text value, else nil.
    var textValue: String? {
        if case .text(let value) = self { return value }
        return nil
    }
}
