import Foundation
import PokedexReader

extension BundlesFolder {
    /// After `prune`: the index stops naming deltas from versions that are gone, and
    /// files no longer named start their grace period (then go). A folder without an
    /// index is left alone.
    /// - Returns: the files removed now (their grace period had run out).
    @discardableResult
    package func forget(versionsNotIn retained: Set<Int>, graceHours: Double) throws -> [String] {
        guard var index = currentIndex() else { return [] }
        let kept = index.deltas.filter { $0.from.map(retained.contains) ?? false }
        if kept.count != index.deltas.count {
            index.deltas = kept
            try writeIndex(index)
        }
        return try sweep(keeping: Set(index.files), graceHours: graceHours)
    }
}
