import Foundation
import PokedexReader
import Testing
@testable import PokeSyncCore

/// Builds the device database of a real mirror's latest version and prints time and
/// size: benchmark tooling, run by hand (skipped unless `POKESYNC_DEVDB_MIRROR` names a
/// mirror folder; `POKESYNC_DEVDB_OUT` is the output file, `POKESYNC_DEVDB_LANGUAGES`
/// an optional `--languages` list).
@Suite("Device database benchmark")
struct DeviceDatabaseBenchmark {
    static let environment = ProcessInfo.processInfo.environment

    @Test(.enabled(if: environment["POKESYNC_DEVDB_MIRROR"] != nil))
    func buildLatestVersion() throws {
        let mirror = URL(fileURLWithPath: Self.environment["POKESYNC_DEVDB_MIRROR"]!)
        let out = URL(fileURLWithPath: Self.environment["POKESYNC_DEVDB_OUT"] ?? "/tmp/pokedex-bench.sqlite")
        let store = try Store(layout: MirrorLayout(root: mirror), create: false, readOnly: true)
        let version = try #require(try store.latestVersion()).number
        let languages = try Self.environment["POKESYNC_DEVDB_LANGUAGES"].flatMap(BundleProfile.parseLanguages)
        let start = ContinuousClock.now
        let info = try DeviceDatabaseBuilder(store: store).build(version: version, lineage: "bench",
                                                                 profile: BundleProfile(languages: languages), into: out)
        let elapsed = ContinuousClock.now - start
        print("device database: version \(version), \(elapsed), \(info.size) bytes, digest \(info.contentDigest.hex)")
        print("rows: \(info.rowCounts.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " "))")
    }
}
