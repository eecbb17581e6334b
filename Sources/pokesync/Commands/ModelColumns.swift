import PokedexReader

/// The properties of a reader model that columns of a declared table give, by column
/// name: what `show --json` prints besides its curated fields. Derived by reflection
/// rather than listed, so that a column added to the declaration and to the model
/// (<doc:PokedexReader/DeviceDatabase#Adding-a-column>) shows with no edit here: the
/// reader fills the same properties from the same columns by the same name rule
/// (``DeviceSchema/columnName(ofProperty:)``).
enum ModelColumns {
    /// `model`'s stored properties whose column name `table` declares, keyed by that
    /// column name (`baseExperience` as `base_experience`); nil as ``ColumnValue/null``.
    static func values(of model: Any, in table: DeviceSchema.Table) -> [String: ColumnValue] {
        let declared = Set(table.columns)
        var values: [String: ColumnValue] = [:]
        for child in Mirror(reflecting: model).children {
            guard let property = child.label else { continue }
            let column = DeviceSchema.columnName(ofProperty: property)
            guard declared.contains(column) else { continue }
            values[column] = ColumnValue(unwrapping: child.value, property: "\(type(of: model)).\(property)")
        }
        return values
    }
}

/// A column's value as a model holds it: the reader gives a column as an Int, a String
/// or a Bool (an integer column read as a flag), optional when the column may be NULL.
enum ColumnValue: Encodable, Equatable {
    case integer(Int)
    case text(String)
    case flag(Bool)
    case null

    /// `value`, unwrapped of its optionals. Any other type stops: the reader gives no
    /// other from a column (`DeclaredRow`), so a new one must be shown here on purpose.
    init(unwrapping value: Any, property: String) {
        let mirror = Mirror(reflecting: value)
        if mirror.displayStyle == .optional {
            guard let wrapped = mirror.children.first else { self = .null; return }
            self.init(unwrapping: wrapped.value, property: property)
            return
        }
        // Bool before Int: a flag is written as true or false, as the model has it.
        switch value {
        case let flag as Bool: self = .flag(flag)
        case let number as Int: self = .integer(number)
        case let text as String: self = .text(text)
        default: preconditionFailure("\(property) is a \(type(of: value)): a column gives an Int, a String or a Bool")
        }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .integer(let number): try container.encode(number)
        case .text(let text): try container.encode(text)
        case .flag(let flag): try container.encode(flag)
        case .null: try container.encodeNil()
        }
    }
}

/// A key named at run time: a column's name.
struct ColumnKey: CodingKey {
    let stringValue: String
    var intValue: Int? { nil }
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}
