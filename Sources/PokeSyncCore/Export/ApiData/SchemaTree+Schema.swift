/// Merging trees and writing them out as genson's `to_schema` does.
extension SchemaTree {
    /// Adds what `other`'s node `theirs` learned to node `mine`, as if its documents
    /// had been added after this tree's: strategies new here are appended in its
    /// order, integer becomes number if either saw a float, and properties, presence
    /// counts and items merge the same way. `other` is only read.
    mutating func merge(_ other: SchemaTree, node theirs: Int32, into mine: Int32) {
        let node = other.nodes[Int(theirs)]
        for strategy in node.strategies {
            switch strategy {
            case .number:
                activate(.number, at: mine)
                if node.sawFloat { nodes[Int(mine)].sawFloat = true }
            case .array:
                let items = items(of: mine)
                if node.items >= 0 { merge(other, node: node.items, into: items) }
            case .object:
                let shape = shape(of: mine)
                if node.shape >= 0 { merge(other, shape: node.shape, into: shape) }
            case .null, .boolean, .string:
                activate(strategy, at: mine)
            }
        }
    }

    private mutating func merge(_ other: SchemaTree, shape theirs: Int32, into mine: Int32) {
        let shape = other.shapes[Int(theirs)]
        shapes[Int(mine)].objectCount += shape.objectCount
        other.keyBytes.withUnsafeBufferPointer { theirBytes in
            for (position, id) in shape.propertyIDs.enumerated() {
                let property = other.properties[Int(id)]
                let key = UnsafeBufferPointer(rebasing: theirBytes[property.keyStart..<(property.keyStart + property.keyLength)])
                let target = self.property(of: mine, key: key, hint: position).id
                properties[Int(target)].present += property.present
                merge(other, node: property.node, into: properties[Int(target)].node)
            }
        }
    }

    /// genson's `SchemaNode.to_schema` for `node`: each strategy's schema in
    /// activation order; those that are just `{"type": T}` are gathered into one
    /// `type` (a string, or a list sorted by code point when several) placed first;
    /// one schema is returned as is, several as `anyOf`, none as `{}`.
    func schema(of node: Int32) -> SchemaValue {
        let state = nodes[Int(node)]
        var types: [String] = []
        var generated: [SchemaValue] = []
        for strategy in state.strategies {
            switch strategy {
            case .null: types.append("null")
            case .boolean: types.append("boolean")
            case .number: types.append(state.sawFloat ? "number" : "integer")
            case .string: types.append("string")
            case .array:
                if state.items >= 0, nodes[Int(state.items)].strategyCount > 0 {
                    generated.append(.object([("type", .string("array")), ("items", schema(of: state.items))]))
                } else {
                    types.append("array")
                }
            case .object:
                let members = state.shape >= 0 ? objectMembers(state.shape) : []
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

    /// `properties` (when any key was seen) and `required` (the keys every object
    /// held, sorted by code point as Python's `sorted`; left out when none), as genson's
    /// `Object.to_schema` writes them after `type`.
    private func objectMembers(_ shape: Int32) -> [(String, SchemaValue)] {
        let state = shapes[Int(shape)]
        var members: [(String, SchemaValue)] = []
        if !state.propertyIDs.isEmpty {
            members.append(("properties", .object(state.propertyIDs.map {
                (names[Int($0)], schema(of: properties[Int($0)].node))
            })))
        }
        let required = state.propertyIDs.filter { properties[Int($0)].present == state.objectCount }.map { names[Int($0)] }
        if !required.isEmpty {
            let sorted = required.sorted { $0.unicodeScalars.lexicographicallyPrecedes($1.unicodeScalars) }
            members.append(("required", .array(sorted.map { .string($0) })))
        }
        return members
    }
}
