import Foundation

// pokedex-update-bench BUNDLES WORK [BASE_BUNDLES]: a cancelled update's latency in each
// phase (CancelLatency.swift), for `make bench` (Tests/Support/bench_bundles.py) and the
// cancellation tests. Prints one JSON object. Benchmark tooling, not product: apart from
// pokedex-bench so that the reader's measure never links the updater (and URLSession).
let arguments = CommandLine.arguments
guard arguments.count >= 3 else {
    FileHandle.standardError.write(Data("usage: pokedex-update-bench BUNDLES WORK [BASE_BUNDLES]\n".utf8))
    exit(64)
}
do {
    let report = try await CancelLatency.run(bundles: URL(fileURLWithPath: arguments[1]),
                                             work: URL(fileURLWithPath: arguments[2]),
                                             base: arguments.count >= 4 ? URL(fileURLWithPath: arguments[3]) : nil)
    print(String(decoding: try JSONSerialization.data(withJSONObject: report, options: [.sortedKeys]), as: UTF8.self))
} catch {
    FileHandle.standardError.write(Data("pokedex-update-bench: \(error)\n".utf8))
    exit(65)
}
