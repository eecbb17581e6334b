import PokeSQLite
import PokedexReader

/// A row's values in its table's declared column order, found by name: a row type's
/// stored properties are its columns (`speciesID` is `species_id`, `isDefault` is
/// `is_default`: `DeviceSchema.columnName(ofProperty:)`), read through the row's `Encodable` conformance, so the order of the
/// properties does not matter and a new column is a property the converter fills.
///
/// The build stops at the first row that does not match the declaration, naming the
/// row type and the column: a declared column the row does not give (it would be NULL),
/// a property that is no declared column, or a value of another type than the column's
/// (SQLite would store a text in an INTEGER column without a word, and the digest would
/// cover it).
struct DeviceRowColumns {
    let table: DeviceSchema.Table
    fileprivate let positions: [String: Int]

    init(_ table: DeviceSchema.Table) {
        self.table = table
        positions = Dictionary(uniqueKeysWithValues: table.columns.enumerated().map { ($1, $0) })
    }

    /// The values of `row`, one per declared column, in the declared order.
    func values<Row: DeviceTableRow>(of row: Row) -> [SQLValue] {
        let encoder = ColumnEncoder(columns: self, rowType: "\(Row.self)")
        do {
            try row.encode(to: encoder)
        } catch {
            preconditionFailure("\(Row.self) cannot give the columns of \(table.name): \(error)")
        }
        return encoder.finish()
    }

    /// The table a row is being encoded for (a row type shared by several tables, such as
    /// `DeviceRow.Name`, names its key columns from it).
    static let tableKey = CodingUserInfoKey(rawValue: "deviceTable")!
}

/// A declared column's name as a coding key, for a row type that names its columns itself.
struct ColumnName: CodingKey {
    var stringValue: String
    init(_ name: String) { stringValue = name }
    init?(stringValue: String) { self.stringValue = stringValue }
    var intValue: Int? { nil }
    init?(intValue: Int) { nil }
}

extension Encoder {
    /// The table whose row is being encoded.
    var deviceTable: DeviceSchema.Table { userInfo[DeviceRowColumns.tableKey] as! DeviceSchema.Table }
}

/// Collects one row's values by column name.
private final class ColumnEncoder: Encoder {
    let columns: DeviceRowColumns
    let rowType: String
    var values: [SQLValue?]
    let userInfo: [CodingUserInfoKey: Any]
    var codingPath: [any CodingKey] { [] }

    init(columns: DeviceRowColumns, rowType: String) {
        self.columns = columns
        self.rowType = rowType
        values = Array(repeating: nil, count: columns.table.columns.count)
        userInfo = [DeviceRowColumns.tableKey: columns.table]
    }

    func set(_ value: SQLValue, property: String) {
        let table = columns.table
        let column = DeviceSchema.columnName(ofProperty: property)
        guard let position = columns.positions[column] else {
            preconditionFailure("\(rowType).\(property) is no column of \(table.name) (\(table.columns.joined(separator: ", ")))")
        }
        precondition(values[position] == nil, "\(rowType) gives \(table.name).\(column) twice")
        switch (value, table.declaredColumns[position].type) {
        case (.null, _), (.integer, .integer), (.text, .text): values[position] = value
        default: preconditionFailure("\(rowType) gives \(value) for \(table.name).\(column) (\(table.declaredColumns[position].type.rawValue))")
        }
    }

    func finish() -> [SQLValue] {
        let missing = zip(columns.table.columns, values).filter { $0.1 == nil }.map(\.0)
        precondition(missing.isEmpty, "\(rowType) gives no value for \(columns.table.name).\(missing.joined(separator: ", "))")
        return values.map { $0! }
    }

    func container<Key: CodingKey>(keyedBy _: Key.Type) -> KeyedEncodingContainer<Key> {
        KeyedEncodingContainer(ColumnContainer<Key>(encoder: self))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        preconditionFailure("\(rowType) is a row: a keyed set of columns")
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        preconditionFailure("\(rowType) is a row: a keyed set of columns")
    }
}

/// Takes integers, text, booleans (0/1) and nil: what a device column holds.
private struct ColumnContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let encoder: ColumnEncoder
    var codingPath: [any CodingKey] { [] }

    mutating func encodeNil(forKey key: Key) { encoder.set(.null, property: key.stringValue) }
    mutating func encode(_ value: Bool, forKey key: Key) { encoder.set(SQLValue(value), property: key.stringValue) }
    mutating func encode(_ value: String, forKey key: Key) { encoder.set(.text(value), property: key.stringValue) }
    mutating func encode(_ value: Int, forKey key: Key) { encoder.set(SQLValue(value), property: key.stringValue) }
    mutating func encodeIfPresent(_ value: Bool?, forKey key: Key) {
        encoder.set(value.map(SQLValue.init) ?? .null, property: key.stringValue)
    }
    mutating func encodeIfPresent(_ value: String?, forKey key: Key) { encoder.set(SQLValue(value), property: key.stringValue) }
    mutating func encodeIfPresent(_ value: Int?, forKey key: Key) { encoder.set(SQLValue(value), property: key.stringValue) }

    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) { unsupported(T.self, key) }
    mutating func encode(_ value: Double, forKey key: Key) { unsupported(Double.self, key) }
    mutating func encode(_ value: Float, forKey key: Key) { unsupported(Float.self, key) }
    mutating func encode(_ value: Int8, forKey key: Key) { unsupported(Int8.self, key) }
    mutating func encode(_ value: Int16, forKey key: Key) { unsupported(Int16.self, key) }
    mutating func encode(_ value: Int32, forKey key: Key) { unsupported(Int32.self, key) }
    mutating func encode(_ value: Int64, forKey key: Key) { unsupported(Int64.self, key) }
    mutating func encode(_ value: UInt, forKey key: Key) { unsupported(UInt.self, key) }
    mutating func encode(_ value: UInt8, forKey key: Key) { unsupported(UInt8.self, key) }
    mutating func encode(_ value: UInt16, forKey key: Key) { unsupported(UInt16.self, key) }
    mutating func encode(_ value: UInt32, forKey key: Key) { unsupported(UInt32.self, key) }
    mutating func encode(_ value: UInt64, forKey key: Key) { unsupported(UInt64.self, key) }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy _: NestedKey.Type,
                                                        forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
        unsupported(NestedKey.self, key)
    }
    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer { unsupported([Any].self, key) }
    mutating func superEncoder() -> any Encoder { preconditionFailure("\(encoder.rowType) is a row: no superclass") }
    mutating func superEncoder(forKey key: Key) -> any Encoder { unsupported(Any.self, key) }

    private func unsupported<T>(_: T.Type, _ key: Key) -> Never {
        preconditionFailure("\(encoder.rowType).\(key.stringValue) is a \(T.self): a device column holds an Int, a String, a Bool or nil")
    }
}
