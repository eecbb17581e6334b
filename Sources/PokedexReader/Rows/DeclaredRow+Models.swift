import Foundation
import PokeSQLite

extension [DeclaredRow] {
    /// A `Model` from each row, as ``DeclaredRow/model(_:columns:parts:)`` makes one, with
    /// `parts` asked of each row: the rows of a list share one decoder (a pokemon's
    /// 375 moves are a third of its detail page's time).
    func models<Model: Decodable>(_: Model.Type, columns: KeyValuePairs<String, String> = [:],
                                  parts: (DeclaredRow) -> KeyValuePairs<String, Any>) -> [Model] {
        guard let first else { return [] }
        let decoder = RowDecoder(row: first, columns: columns, modelType: Model.self)
        return map { row in
            let parts = parts(row)
            precondition(parts.count < Int.bitWidth, "\(Model.self): at most \(Int.bitWidth - 1) parts")
            decoder.start(row, parts: parts)
            let model: Model
            do {
                model = try Model(from: decoder)
            } catch {
                preconditionFailure("\(Model.self) cannot be read from \(row.query.table.name): \(error)")
            }
            if decoder.usedParts != (1 << parts.count) - 1 {
                let unused = parts.indices.filter { decoder.usedParts & (1 << $0) == 0 }.map { parts[$0].key }
                preconditionFailure("\(Model.self) has no property \(unused.joined(separator: ", "))")
            }
            decoder.finish()
            return model
        }
    }
}

/// Reads a model's properties from a row's columns and the given parts. (A detail page
/// reads hundreds of rows: the few parts and renames are searched in order, without
/// hashing, nothing is formatted unless it fails, and the containers share one decoder.)
final class RowDecoder: Decoder {

    private(set) var row: DeclaredRow
    /// Property name to column name, where they are not the same words.
    let columns: KeyValuePairs<String, String>
    private(set) var parts: KeyValuePairs<String, Any> = [:]
    let modelType: Any.Type
    var model: String { "\(modelType)" }
    /// The parts read so far, a bit each by position.
    var usedParts = 0
    /// How an earlier read of the same model through the same query went, if one did.
    private var plan: ReadPlan?
    /// Whether this read follows `plan` (it has the plan's renames and part names).
    private var following = false
    /// This read's steps, when there was no plan to follow.
    private(set) var learnt: ReadPlan?
    private var step = 0

    init(row: DeclaredRow, columns: KeyValuePairs<String, String>, modelType: Any.Type) {
        self.row = row
        self.columns = columns
        self.modelType = modelType
        plan = row.query.plans.plan(for: modelType)
    }

    /// Begins reading a model from `row` (of the same query) and `parts`.
    func start(_ row: DeclaredRow, parts: KeyValuePairs<String, Any>) {
        self.row = row
        self.parts = parts
        usedParts = 0
        step = 0
        following = plan?.fits(columns, parts) ?? false
        if plan == nil { learnt = ReadPlan(renames: Array(columns), partNames: parts.map(\.key), steps: []) }
    }

    /// Ends a model's read: the first read's steps become the plan of the next ones.
    func finish() {
        guard let learnt else { return }
        row.query.plans.keep(learnt, for: modelType)
        plan = learnt
        self.learnt = nil
    }
    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy _: Key.Type) -> KeyedDecodingContainer<Key> {
        KeyedDecodingContainer(RowContainer<Key>(decoder: self))
    }
    func unkeyedContainer() throws -> any UnkeyedDecodingContainer { preconditionFailure("\(model) is read as a keyed set of properties") }
    func singleValueContainer() throws -> any SingleValueDecodingContainer { preconditionFailure("\(model) is read as a keyed set of properties") }

    /// Where `property` comes from: the plan's next step when this read follows the plan
    /// and the step names the same property, else worked out by name.
    func source(_ property: String) -> ReadPlan.Source {
        let source: ReadPlan.Source
        if following, let plan, step < plan.steps.count, plan.steps[step].property == property {
            source = plan.steps[step].source
        } else {
            source = resolve(property)
        }
        step += 1
        learnt?.steps.append(.init(property: property, source: source))
        if case .part(let index) = source { usedParts |= 1 << index }
        return source
    }

    private func resolve(_ property: String) -> ReadPlan.Source {
        if let index = parts.firstIndex(where: { $0.key == property }) { return .part(index) }
        let renamed = columns.first { $0.key == property }?.value
        guard let position = renamed.map({ row.query.positions[$0] }) ?? row.position(ofProperty: property) else {
            preconditionFailure("\(model).\(property) is neither a column of \(row.query.table.name) nor a part the reader gives")
        }
        return .column(position)
    }

    /// The part at `index`.
    func part(_ index: Int) -> Any { parts[index].value }
    /// The column at `position`.
    func column(_ position: Int32) -> SQLValue { row.values[Int(position)] }
}

/// Integers, text and booleans from columns; anything from parts.
struct RowContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let decoder: RowDecoder
    var codingPath: [any CodingKey] { [] }
    var allKeys: [Key] { [] }
    func contains(_ key: Key) -> Bool { true }

    func decodeNil(forKey key: Key) -> Bool {
        switch decoder.source(key.stringValue) {
        case .part(let index): (decoder.part(index) as? any OptionalPart)?.isNil ?? false
        case .column(let position): decoder.column(position) == .null
        }
    }
    func decode(_: Int.Type, forKey key: Key) throws -> Int { try decodeIfPresent(Int.self, forKey: key) ?? 0 }
    func decode(_: String.Type, forKey key: Key) throws -> String { try decodeIfPresent(String.self, forKey: key) ?? "" }
    func decode(_: Bool.Type, forKey key: Key) throws -> Bool { try decodeIfPresent(Bool.self, forKey: key) ?? false }
    func decodeIfPresent(_: Int.Type, forKey key: Key) throws -> Int? {
        switch decoder.source(key.stringValue) {
        case .part(let index): return decoder.part(index) as? Int
        case .column(let position):
            guard case .integer(let number) = decoder.column(position) else { return nil }
            return Int(number)
        }
    }
    func decodeIfPresent(_: String.Type, forKey key: Key) throws -> String? {
        switch decoder.source(key.stringValue) {
        case .part(let index): return decoder.part(index) as? String
        case .column(let position):
            guard case .text(let text) = decoder.column(position) else { return nil }
            return text
        }
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
        guard case .part(let index) = decoder.source(key.stringValue) else {
            preconditionFailure("\(decoder.model).\(key.stringValue) is a \(T.self): a column gives an Int, a String or a Bool")
        }
        return decoder.part(index) as? T
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
protocol OptionalPart { var isNil: Bool { get } }
extension Optional: OptionalPart { var isNil: Bool { self == nil } }
