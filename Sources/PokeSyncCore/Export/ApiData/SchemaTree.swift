import Foundation

/// genson's strategies that documents can activate (`add_object`), one per JSON type.
/// `Tuple`, `Enum` and `Typeless` only come from `add_schema`, which inference never
/// calls; `List` always wins over `Tuple` for arrays, being earlier in genson's list.
enum SchemaStrategy: UInt8, CaseIterable {
    case null = 1, boolean, number, string, array, object
}

/// One builder's genson `SchemaNode` tree, in flat arrays: nodes, object shapes and
/// properties refer to each other by index. Its size is the schema's, never the
/// documents'. Plain values in arrays (no class per node) so that the reader, which
/// touches them for every value of every document, pays no reference counting and no
/// run-time exclusivity checks.
struct SchemaTree {
    /// One genson `SchemaNode`: the strategies seen at a position, in first-seen order.
    struct Node {
        /// The active strategies in activation order, 4 bits each, the first lowest.
        var order: UInt32 = 0
        /// How many strategies are active (genson's `len(node)`).
        var strategyCount: UInt8 = 0
        /// Bit `1 << strategy.rawValue` for each active strategy.
        var active: UInt8 = 0
        /// `Number` turns `integer` into `number` for good once it sees a float.
        var sawFloat = false
        /// `List`'s items node, created with the strategy as genson does; an array
        /// strategy whose items node stays empty writes no `items`.
        var items: Int32 = -1
        /// `Object`'s shape, created with the strategy.
        var shape: Int32 = -1

        var strategies: [SchemaStrategy] {
            (0..<Int(strategyCount)).map { SchemaStrategy(rawValue: UInt8((order >> UInt32(4 * $0)) & 0xF))! }
        }
    }

    /// genson's `Object` strategy: every property ever seen (first-seen order) and,
    /// instead of the running intersection of key sets, how many objects were seen and
    /// how many held each key: a key is `required` when it was in all. Counts merge by
    /// adding, which is what makes builders of separate document sets mergeable.
    struct Shape {
        var objectCount = 0
        /// Indices into `properties`, in first-seen order.
        var propertyIDs: [Int32] = []
        /// Positions in `propertyIDs` by a hash of the key, for objects with many keys.
        var buckets: [UInt64: [Int32]] = [:]
    }

    /// One key of one shape.
    struct Property {
        /// The key as written in canonical JSON (escapes kept), in `keyBytes`.
        var keyStart: Int
        var keyLength: Int
        var node: Int32
        /// Objects that held the key.
        var present = 0
        /// The number of the last object that held it: a key written twice in one
        /// object counts once.
        var lastObject = 0
    }

    static let root: Int32 = 0
    var nodes: [Node] = [Node()]
    var shapes: [Shape] = []
    var properties: [Property] = []
    /// Decoded keys, by property.
    var names: [String] = []
    var keyBytes: [UInt8] = []

    /// A tree with its root node.
    init() {}

    /// A tree without even a root: the reader's placeholder, allocating nothing.
    init(empty: ()) { nodes = [] }

    /// Makes `strategy` active at `node` if it is not yet (genson: the first matching
    /// active strategy is reused, else a new one is appended).
    @inline(__always)
    mutating func activate(_ strategy: SchemaStrategy, at node: Int32) {
        let bit: UInt8 = 1 << strategy.rawValue
        guard nodes[Int(node)].active & bit == 0 else { return }
        nodes[Int(node)].active |= bit
        nodes[Int(node)].order |= UInt32(strategy.rawValue) << UInt32(4 * nodes[Int(node)].strategyCount)
        nodes[Int(node)].strategyCount += 1
    }

    /// The items node of `node`, activating the array strategy first.
    @inline(__always)
    mutating func items(of node: Int32) -> Int32 {
        activate(.array, at: node)
        let items = nodes[Int(node)].items
        if items >= 0 { return items }
        nodes.append(Node())
        nodes[Int(node)].items = Int32(nodes.count - 1)
        return Int32(nodes.count - 1)
    }

    /// The shape of `node`, activating the object strategy first.
    @inline(__always)
    mutating func shape(of node: Int32) -> Int32 {
        activate(.object, at: node)
        let shape = nodes[Int(node)].shape
        if shape >= 0 { return shape }
        shapes.append(Shape())
        nodes[Int(node)].shape = Int32(shapes.count - 1)
        return Int32(shapes.count - 1)
    }

    /// The property of `shape` whose canonical key bytes are `key`, created if new.
    /// `hint`, a position in the shape's key list, is tried first: the one after the
    /// previous key, since the documents of a pattern mostly list keys in one order.
    /// Returns the property and its position.
    @inline(__always)
    mutating func property(of shape: Int32, key: UnsafeBufferPointer<UInt8>, hint: Int) -> (id: Int32, position: Int) {
        let count = shapes[Int(shape)].propertyIDs.count
        if hint < count {
            let id = shapes[Int(shape)].propertyIDs[hint]
            if matches(id, key) { return (id, hint) }
        }
        if count <= 16 {
            for position in 0..<count where position != hint {
                let id = shapes[Int(shape)].propertyIDs[position]
                if matches(id, key) { return (id, position) }
            }
        } else if let candidates = shapes[Int(shape)].buckets[Self.hash(key)] {
            for position in candidates {
                let id = shapes[Int(shape)].propertyIDs[Int(position)]
                if matches(id, key) { return (id, Int(position)) }
            }
        }
        return (appendProperty(to: shape, key: key), count)
    }

    @inline(__always)
    private func matches(_ id: Int32, _ key: UnsafeBufferPointer<UInt8>) -> Bool {
        let property = properties[Int(id)]
        guard property.keyLength == key.count else { return false }
        return keyBytes.withUnsafeBufferPointer { stored in
            var offset = 0
            let length = property.keyLength
            let mine = UnsafeRawPointer(stored.baseAddress! + property.keyStart), theirs = UnsafeRawPointer(key.baseAddress!)
            while offset + 8 <= length {
                if mine.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
                    != theirs.loadUnaligned(fromByteOffset: offset, as: UInt64.self) { return false }
                offset += 8
            }
            while offset < length {
                if mine.load(fromByteOffset: offset, as: UInt8.self) != theirs.load(fromByteOffset: offset, as: UInt8.self) {
                    return false
                }
                offset += 1
            }
            return true
        }
    }

    private mutating func appendProperty(to shape: Int32, key: UnsafeBufferPointer<UInt8>) -> Int32 {
        nodes.append(Node())
        properties.append(Property(keyStart: keyBytes.count, keyLength: key.count, node: Int32(nodes.count - 1)))
        keyBytes.append(contentsOf: key)
        names.append(JSONStringBytes.decode(key))
        let id = Int32(properties.count - 1)
        let position = Int32(shapes[Int(shape)].propertyIDs.count)
        shapes[Int(shape)].propertyIDs.append(id)
        shapes[Int(shape)].buckets[Self.hash(key), default: []].append(position)
        return id
    }

    /// FNV-1a over the key's bytes.
    private static func hash(_ key: UnsafeBufferPointer<UInt8>) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in key { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }
        return hash
    }
}
