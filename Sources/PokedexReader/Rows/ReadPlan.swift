import Foundation

/// The steps of one model's read through one query: which part or column each property
/// read took, in order. A model's initializer asks for the same properties in the same
/// order every time, so later reads given the same renames and the same part names, in
/// the same order, follow the steps instead of searching by name; any other read
/// searches by name.
struct ReadPlan: Sendable {
    enum Source: Sendable {
        case part(Int)
        case column(Int32)
    }
    struct Step: Sendable {
        let property: String
        let source: Source
    }
    /// The renames the steps were learnt with.
    let renames: [(key: String, value: String)]
    /// The part names the steps were learnt with, in order.
    let partNames: [String]
    var steps: [Step]

    /// Whether a read with `renames` and `parts` may follow these steps.
    func fits(_ renames: KeyValuePairs<String, String>, _ parts: KeyValuePairs<String, Any>) -> Bool {
        self.renames.elementsEqual(renames, by: ==) && partNames.elementsEqual(parts.lazy.map(\.key))
    }
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
