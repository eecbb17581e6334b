import CSQLite

/// What ``Database/limitWork(steps:stop:)`` keeps between SQLite's progress callbacks.
/// A class so SQLite can hold an unretained pointer to it while the database holds it.
final class WorkBudget {
    /// Progress callbacks still allowed (each one is ``Database/stepsPerCheck`` VM steps).
    var remaining: Int
    let stop: () -> Bool
    var exhausted = false

    init(remaining: Int, stop: @escaping () -> Bool) {
        self.remaining = remaining
        self.stop = stop
    }
}

extension Database {
    /// How many virtual-machine steps SQLite runs between two progress callbacks.
    public static let stepsPerCheck: Int32 = 10_000

    /// Bounds the work every later statement on this connection may do: past `steps`
    /// virtual-machine steps in all, or as soon as `stop` says so (a cancelled task), the
    /// running statement ends with `SQLITE_INTERRUPT`. Data from outside (a downloaded
    /// delta) must never make a query run for ever. `nil` removes the bound.
    public func limitWork(steps: Int?, stop: @escaping () -> Bool = { false }) {
        guard let steps else {
            sqlite3_progress_handler(handle, 0, nil, nil)
            workBudget = nil
            return
        }
        let budget = WorkBudget(remaining: max(1, steps / Int(Self.stepsPerCheck)), stop: stop)
        workBudget = budget
        sqlite3_progress_handler(handle, Self.stepsPerCheck, { context in
            guard let context else { return 0 }
            let budget = Unmanaged<WorkBudget>.fromOpaque(context).takeUnretainedValue()
            budget.remaining -= 1
            if budget.remaining <= 0 { budget.exhausted = true }
            return budget.remaining <= 0 || budget.stop() ? 1 : 0
        }, Unmanaged.passUnretained(budget).toOpaque())
    }

    /// Whether the last interruption came from the step bound of ``limitWork(steps:stop:)``
    /// (and not from `stop`).
    public var workLimitReached: Bool { workBudget?.exhausted ?? false }
}
