import Foundation

/// The steps of one model's read through one query: which part or column each property
/// read took, in order. A model's initializer asks for the same properties in the same
/// order every time, so later reads follow the steps instead of searching by name.
struct ReadPlan: Sendable {
    enum Source: Sendable {
        case part(Int)
        case column(Int32)

        /// A part is only where it was if the same name is at that position this time.
        func isValid(for property: String, parts: KeyValuePairs<String, Any>) -> Bool {
            guard case .part(let index) = self else { return true }
            return index < parts.count && parts[index].key == property
        }
    }
    struct Step: Sendable {
        let property: String
        let source: Source
    }
    /// The renames the steps were learnt with (followed only with the same).
    let renames: [(key: String, value: String)]
    var steps: [Step]
}

/// A query's plans by model type, shared by the threads that read through it.
// @unchecked Sendable: `plans` only under `lock`.
final class ReadPlans: @unchecked Sendable {
    private let lock = NSLock()
    private var plans: [ObjectIdentifier: ReadPlan] = [:]

    func plan(for model: Any.Type) -> ReadPlan? {
        lock.lock()
        defer { lock.unlock() }
        return plans[ObjectIdentifier(model)]
    }

    func keep(_ plan: ReadPlan, for model: Any.Type) {
        lock.lock()
        defer { lock.unlock() }
        plans[ObjectIdentifier(model)] = plan
    }
}
