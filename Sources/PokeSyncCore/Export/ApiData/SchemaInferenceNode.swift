import Foundation

/// genson's strategies that documents can activate (`add_object`), one per JSON type.
/// `Tuple`, `Enum` and `Typeless` only come from `add_schema`, which inference never
/// calls; `List` always wins over `Tuple` for arrays, being earlier in genson's list.
enum SchemaStrategy: UInt8, CaseIterable {
    case null = 1, boolean, number, string, array, object
}

/// One genson `SchemaNode`: the strategies a position in the documents has seen, in
/// the order they were first seen, and what each has learned. Its size is the
/// schema's, never the documents'.
///
/// Not thread-safe: one node tree belongs to one `SchemaInferenceBuilder`, which is
/// used by one thread at a time.
final class SchemaInferenceNode {
    /// The active strategies in activation order, 4 bits each, the first lowest.
    private var order: UInt32 = 0
    /// How many strategies are active (genson's `len(node)`).
    private(set) var strategyCount = 0
    /// Bit `1 << strategy.rawValue` for each active strategy.
    private var active: UInt8 = 0
    /// `Number` turns `integer` into `number` for good once it sees a float.
    var sawFloat = false
    /// `List`'s items node, created with the strategy as genson does; an array
    /// strategy whose items node stays empty writes no `items`.
    private(set) var items: SchemaInferenceNode?
    /// `Object`'s properties and counts, created with the strategy.
    private(set) var shape: ObjectShape?

    init() {}

    /// Makes `strategy` active if it is not yet (genson: the first matching active
    /// strategy is reused, else a new one is appended).
    @inline(__always)
    func activate(_ strategy: SchemaStrategy) {
        let bit: UInt8 = 1 << strategy.rawValue
        guard active & bit == 0 else { return }
        active |= bit
        order |= UInt32(strategy.rawValue) << UInt32(4 * strategyCount)
        strategyCount += 1
    }

    /// The items node, activating the array strategy first.
    @inline(__always)
    func arrayItems() -> SchemaInferenceNode {
        activate(.array)
        if let items { return items }
        let created = SchemaInferenceNode()
        items = created
        return created
    }

    /// The object shape, activating the object strategy first.
    @inline(__always)
    func objectShape() -> ObjectShape {
        activate(.object)
        if let shape { return shape }
        let created = ObjectShape()
        shape = created
        return created
    }

    /// The active strategies in the order they were first seen.
    var strategies: [SchemaStrategy] {
        (0..<strategyCount).map { SchemaStrategy(rawValue: UInt8((order >> UInt32(4 * $0)) & 0xF))! }
    }

    /// Adds what `other` learned, as if its documents had been added after this
    /// node's: its strategies new here are appended in its order, integer becomes
    /// number if either saw a float, and properties, presence counts and items merge
    /// the same way. `other` is read, never shared: new children are copies.
    func merge(_ other: SchemaInferenceNode) {
        for strategy in other.strategies {
            switch strategy {
            case .number:
                activate(.number)
                sawFloat = sawFloat || other.sawFloat
            case .array:
                let mine = arrayItems()
                if let theirs = other.items { mine.merge(theirs) }
            case .object:
                let mine = objectShape()
                if let theirs = other.shape { mine.merge(theirs) }
            case .null, .boolean, .string:
                activate(strategy)
            }
        }
    }

    /// genson's `SchemaNode.to_schema`: each strategy's schema in activation order;
    /// those that are just `{"type": T}` are gathered into one `type` (a string, or a
    /// sorted list when several) placed first; one schema is returned as is, several
    /// as `anyOf`, none as `{}`.
    func schema() -> SchemaValue {
        var types: [String] = []
        var generated: [SchemaValue] = []
        for strategy in strategies {
            switch strategy {
            case .null: types.append("null")
            case .boolean: types.append("boolean")
            case .number: types.append(sawFloat ? "number" : "integer")
            case .string: types.append("string")
            case .array:
                if let items, items.strategyCount > 0 {
                    generated.append(.object([("type", .string("array")), ("items", items.schema())]))
                } else {
                    types.append("array")
                }
            case .object:
                let members = shape?.schemaMembers() ?? []
                if members.isEmpty {
                    types.append("object")
                } else {
                    generated.append(.object([("type", .string("object"))] + members))
                }
            }
        }
        if !types.isEmpty {
            let type: SchemaValue = types.count == 1
                ? .string(types[0])
                : .array(types.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }.map { .string($0) })
            generated.insert(.object([("type", type)]), at: 0)
        }
        switch generated.count {
        case 0: return .object([])
        case 1: return generated[0]
        default: return .object([("anyOf", .array(generated))])
        }
    }
}

/// genson's `Object` strategy: every property ever seen (first-seen order, a child
/// node each) and, instead of the running intersection of key sets, how many objects
/// were seen and how many held each key: a key is `required` when it was in all.
/// Counts merge by adding, which is what makes builders of separate document sets
/// mergeable.
final class ObjectShape {
    /// Objects seen.
    private(set) var objectCount = 0
    /// Keys as written in canonical JSON (escapes kept), back to back.
    private var keyBytes: [UInt8] = []
    private var keyStarts: [Int] = []
    private var keyLengths: [Int] = []
    /// Decoded keys, for the schema.
    private var names: [String] = []
    private(set) var nodes: [SchemaInferenceNode] = []
    /// Objects that held each key.
    private var presentCounts: [Int] = []
    /// For each key, the number of the last object that held it: a key written
    /// twice in one object counts once.
    private var lastObjects: [Int] = []
    /// Key indices by a hash of their bytes, for objects with many keys.
    private var buckets: [UInt64: [Int]] = [:]

    var keyCount: Int { names.count }

    /// Starts one more object; the number to pass to `noteKey`.
    @inline(__always)
    func beginObject() -> Int {
        objectCount += 1
        return objectCount
    }

    /// Records that object number `object` holds key `slot`.
    @inline(__always)
    func noteKey(_ slot: Int, inObject object: Int) {
        if lastObjects[slot] != object {
            lastObjects[slot] = object
            presentCounts[slot] += 1
        }
    }

    /// The index of the key whose canonical bytes are `key`, created if new. `hint`
    /// is tried first: the key after the previous one, since documents of a pattern
    /// mostly list their keys in the same order.
    @inline(__always)
    func slot(for key: UnsafeBufferPointer<UInt8>, hint: Int) -> Int {
        if hint < keyCount, matches(hint, key) { return hint }
        if keyCount <= 16 {
            for index in 0..<keyCount where index != hint && matches(index, key) { return index }
        } else if let candidates = buckets[Self.hash(key)] {
            for index in candidates where matches(index, key) { return index }
        }
        return append(key)
    }

    private func matches(_ index: Int, _ key: UnsafeBufferPointer<UInt8>) -> Bool {
        let length = keyLengths[index]
        guard length == key.count else { return false }
        guard length > 0 else { return true }
        let start = keyStarts[index]
        return keyBytes.withUnsafeBufferPointer { memcmp($0.baseAddress! + start, key.baseAddress!, length) == 0 }
    }

    private func append(_ key: UnsafeBufferPointer<UInt8>) -> Int {
        let index = keyCount
        keyStarts.append(keyBytes.count)
        keyLengths.append(key.count)
        keyBytes.append(contentsOf: key)
        names.append(SchemaValue.decodeStringContents(key))
        nodes.append(SchemaInferenceNode())
        presentCounts.append(0)
        lastObjects.append(0)
        buckets[Self.hash(key), default: []].append(index)
        return index
    }

    /// FNV-1a over the key's bytes.
    private static func hash(_ key: UnsafeBufferPointer<UInt8>) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in key { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }
        return hash
    }

    /// Adds `other`'s objects: keys new here are appended in its order (copies of
    /// its nodes), and object and presence counts add up.
    func merge(_ other: ObjectShape) {
        objectCount += other.objectCount
        other.keyBytes.withUnsafeBufferPointer { theirBytes in
            for index in 0..<other.keyCount {
                let key = UnsafeBufferPointer(rebasing: theirBytes[other.keyStarts[index]..<(other.keyStarts[index] + other.keyLengths[index])])
                let mine = slot(for: key, hint: index)
                nodes[mine].merge(other.nodes[index])
                presentCounts[mine] += other.presentCounts[index]
            }
        }
    }

    /// `properties` (when any key was seen) and `required` (the keys every object
    /// held, sorted by code point as Python's `sorted`; left out when none), as genson's
    /// `Object.to_schema` writes them after `type`.
    func schemaMembers() -> [(String, SchemaValue)] {
        var members: [(String, SchemaValue)] = []
        if keyCount > 0 {
            members.append(("properties", .object((0..<keyCount).map { (names[$0], nodes[$0].schema()) })))
        }
        let required = (0..<keyCount).filter { presentCounts[$0] == objectCount }.map { names[$0] }
        if !required.isEmpty {
            let sorted = required.sorted { $0.unicodeScalars.lexicographicallyPrecedes($1.unicodeScalars) }
            members.append(("required", .array(sorted.map { .string($0) })))
        }
        return members
    }
}
