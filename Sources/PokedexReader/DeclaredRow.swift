import PokeSQLite

/// One row of a declared table (``DeviceSchema/Table``), every declared column selected
/// and read back by name: how the reader fills a model's plain fields (``model(_:parts:)``),
/// so that a column added to the declaration reaches the model through the model's own
/// property and nothing else (<doc:PokedexReader/DeviceDatabase#Adding-a-column>).
///
/// A name the table does not declare stops at its first read, naming the table and the
/// column: a model that reads a column the declaration lacks fails on every detail read,
/// not silently.
struct DeclaredRow {
    /// A declared table's query and column positions, made once per table.
    struct Query: Sendable {
        let table: DeviceSchema.Table
        /// `SELECT <declared columns> FROM <table> WHERE <first key column> = ?`: the same
        /// text on every call, so the connection's prepared statement is reused.
        let sql: String
        fileprivate let positions: [String: Int32]

        init(_ table: DeviceSchema.Table) {
            self.table = table
            sql = "SELECT \(table.columnList) FROM \(table.quotedName) WHERE \(table.entityColumn) = ?"
            positions = Dictionary(uniqueKeysWithValues: table.columns.enumerated().map { ($1, Int32($0)) })
        }

        /// The row whose first key column is `key`, or nil.
        func row(_ key: Int, in database: Database) throws -> DeclaredRow? {
            try database.row(sql, [.integer(Int64(key))]) { row in
                DeclaredRow(query: self, values: (0..<Int32(table.columns.count)).map { column in
                    switch row.storageClass(column) {
                    case .integer: .integer(Int64(row.int(column)))
                    case .text: .text(row.text(column))
                    default: .null
                    }
                })
            }
        }
    }

    let query: Query
    let values: [SQLValue]

    /// The integer in `column` (a declared column), nil for NULL: the ids the reader
    /// follows to other tables.
    func optionalInt(_ column: String) -> Int? {
        guard let value = declared(column) else {
            preconditionFailure("\(query.table.name) declares no column \(column) (\(query.table.columns.joined(separator: ", ")))")
        }
        if case .integer(let number) = value { return Int(number) }
        return nil
    }
}

extension DeclaredRow {
    /// `Model` with each stored property read from the declared column of its name
    /// (`baseExperience` from `base_experience`, ``DeviceSchema/columnName(ofProperty:)``),
    /// or, for a property no column gives, from `parts` by property name (what other
    /// tables give: a pokemon's types, its species). A property that is neither, or a
    /// part no property takes, stops at the first read, naming the model and the name.
    func model<Model: Decodable>(_: Model.Type, parts: [String: Any]) -> Model {
        let decoder = RowDecoder(row: self, parts: parts, model: "\(Model.self)")
        let model: Model
        do {
            model = try Model(from: decoder)
        } catch {
            preconditionFailure("\(Model.self) cannot be read from \(query.table.name): \(error)")
        }
        let unused = Set(parts.keys).subtracting(decoder.used.names)
        precondition(unused.isEmpty, "\(Model.self) has no property \(unused.sorted().joined(separator: ", "))")
        return model
    }

    /// The value of a declared column, nil when the table declares no such column.
    fileprivate func declared(_ column: String) -> SQLValue? {
        query.positions[column].map { values[Int($0)] }
    }
}

/// Reads a model's properties from a row's columns and the given parts.
private struct RowDecoder: Decoder {
    /// The part names read so far (a class: the containers are values).
    final class Used { var names: Set<String> = [] }

    let row: DeclaredRow
    let parts: [String: Any]
    let model: String
    let used = Used()
    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy _: Key.Type) -> KeyedDecodingContainer<Key> {
        KeyedDecodingContainer(RowContainer<Key>(decoder: self))
    }
    func unkeyedContainer() throws -> any UnkeyedDecodingContainer { preconditionFailure("\(model) is read as a keyed set of properties") }
    func singleValueContainer() throws -> any SingleValueDecodingContainer { preconditionFailure("\(model) is read as a keyed set of properties") }

    /// The part named `property`, if one was given (it may hold nil).
    func part(_ property: String) -> Any?? {
        guard let part = parts[property] else { return nil }
        used.names.insert(property)
        return .some(part)
    }

    /// The column of `property`'s name: NULL when absent.
    func column(_ property: String) -> SQLValue {
        guard let value = row.declared(DeviceSchema.columnName(ofProperty: property)) else {
            preconditionFailure("\(model).\(property) is neither a column of \(row.query.table.name) nor a part the reader gives")
        }
        return value
    }
}

/// Integers, text and booleans from columns; anything from parts.
private struct RowContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let decoder: RowDecoder
    var codingPath: [any CodingKey] { [] }
    var allKeys: [Key] { [] }
    func contains(_ key: Key) -> Bool { true }

    func decodeNil(forKey key: Key) -> Bool {
        if let part = decoder.part(key.stringValue) { return (part as? any OptionalPart)?.isNil ?? false }
        return decoder.column(key.stringValue) == .null
    }
    func decode(_: Int.Type, forKey key: Key) throws -> Int { try decodeIfPresent(Int.self, forKey: key) ?? 0 }
    func decode(_: String.Type, forKey key: Key) throws -> String { try decodeIfPresent(String.self, forKey: key) ?? "" }
    func decode(_: Bool.Type, forKey key: Key) throws -> Bool { try decodeIfPresent(Bool.self, forKey: key) ?? false }
    func decodeIfPresent(_: Int.Type, forKey key: Key) throws -> Int? {
        if let part = decoder.part(key.stringValue) { return part as? Int }
        guard case .integer(let number) = decoder.column(key.stringValue) else { return nil }
        return Int(number)
    }
    func decodeIfPresent(_: String.Type, forKey key: Key) throws -> String? {
        if let part = decoder.part(key.stringValue) { return part as? String }
        guard case .text(let text) = decoder.column(key.stringValue) else { return nil }
        return text
    }
    func decodeIfPresent(_: Bool.Type, forKey key: Key) throws -> Bool? {
        try decodeIfPresent(Int.self, forKey: key).map { $0 != 0 }
    }
    func decode<T: Decodable>(_: T.Type, forKey key: Key) throws -> T {
        guard let part = try decodeIfPresent(T.self, forKey: key) else {
            preconditionFailure("\(decoder.model).\(key.stringValue) is a \(T.self) the reader does not give")
        }
        return part
    }
    func decodeIfPresent<T: Decodable>(_: T.Type, forKey key: Key) throws -> T? {
        guard let part = decoder.part(key.stringValue) else {
            preconditionFailure("\(decoder.model).\(key.stringValue) is a \(T.self): a column gives an Int, a String or a Bool")
        }
        return part as? T
    }

    func decode(_: Double.Type, forKey key: Key) throws -> Double { unsupported(Double.self, key) }
    func decode(_: Float.Type, forKey key: Key) throws -> Float { unsupported(Float.self, key) }
    func decode(_: Int8.Type, forKey key: Key) throws -> Int8 { unsupported(Int8.self, key) }
    func decode(_: Int16.Type, forKey key: Key) throws -> Int16 { unsupported(Int16.self, key) }
    func decode(_: Int32.Type, forKey key: Key) throws -> Int32 { unsupported(Int32.self, key) }
    func decode(_: Int64.Type, forKey key: Key) throws -> Int64 { unsupported(Int64.self, key) }
    func decode(_: UInt.Type, forKey key: Key) throws -> UInt { unsupported(UInt.self, key) }
    func decode(_: UInt8.Type, forKey key: Key) throws -> UInt8 { unsupported(UInt8.self, key) }
    func decode(_: UInt16.Type, forKey key: Key) throws -> UInt16 { unsupported(UInt16.self, key) }
    func decode(_: UInt32.Type, forKey key: Key) throws -> UInt32 { unsupported(UInt32.self, key) }
    func decode(_: UInt64.Type, forKey key: Key) throws -> UInt64 { unsupported(UInt64.self, key) }
    func nestedContainer<NestedKey: CodingKey>(keyedBy _: NestedKey.Type,
                                               forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        unsupported(NestedKey.self, key)
    }
    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer { unsupported([Any].self, key) }
    func superDecoder() throws -> any Decoder { preconditionFailure("\(decoder.model) is read without a superclass") }
    func superDecoder(forKey key: Key) throws -> any Decoder { unsupported(Any.self, key) }

    private func unsupported<T>(_: T.Type, _ key: Key) -> Never {
        preconditionFailure("\(decoder.model).\(key.stringValue) is a \(T.self): a column gives an Int, a String or a Bool")
    }
}

/// A part that is an optional (`species` may be nil).
private protocol OptionalPart { var isNil: Bool { get } }
extension Optional: OptionalPart { var isNil: Bool { self == nil } }
