import Foundation
import PokeSQLite
import PokedexReader

// pokedex-bench DIR: what an app feels of PokedexReader on an installed folder, for
// `make bench` (Tests/Support/bench_bundles.py). Prints one JSON object:
//   cold_ms            open + the first page of 20, in this fresh process
//   warm_ms            the same again, median of 50 (a new Pokedex each time)
//   detail_ms          detail of the pokemon with the longest move list, median of 200
//   detail_cpu_ms      the same in the thread's CPU time (steadier on a shared machine)
//   search_*_ms        p50, p95, max over queries typed letter by letter from names in several languages
//   concurrent_*       1,600 details read through `await pokedex.read { ... }`, one per read:
//                      by 1 task, then by 8 tasks (200 each); best of 5 rounds each, and the
//                      ratio (serial / parallel) and the processor count; CPU time / wall
//                      time during the 8 tasks (about 2 when 2 cores read); the most reads
//                      inside their closure at once (the pool's size); the peak memory
//                      before the 8 tasks (rss_peak_before_8_tasks_mb)
//   rss_mb             peak resident memory of the process (the concurrent reads included)
//   rss_*_after_search_mb  resident after the searches (VmRSS), and its anonymous (RssAnon:
//                      heap, caches) and file-backed (RssFile: code and data of the binary and
//                      its libraries) parts
// Benchmark tooling, not product: it depends on PokedexReader only, as an app that only
// reads does (no PokedexUpdater, so no FoundationNetworking in its resident memory); a
// cancelled update's latency is pokedex-update-bench's.

func milliseconds(_ body: () throws -> Void) rethrows -> Double {
    let start = DispatchTime.now().uptimeNanoseconds
    try body()
    return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6
}

/// Resident memory in MB from /proc/self/status (Linux; elsewhere 0): `VmRSS` now, or
/// `VmHWM` the peak. Not getrusage's ru_maxrss, which Linux carries across exec and so
/// reports the launching process's peak when that was larger (a Python bench harness).
func residentMB(_ field: String = "VmRSS") -> Double {
    #if os(Linux)
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
          let line = status.split(separator: "\n").first(where: { $0.hasPrefix(field + ":") }),
          let kilobytes = Double(line.split(separator: " ").dropFirst().first ?? "") else { return 0 }
    return kilobytes / 1024
    #else
    return 0
    #endif
}

/// How many reads are inside their closure at once, and the most seen: whether the
/// pool lets reads overlap, whatever CPU the machine gives the process.
// @unchecked Sendable: both counts only under `lock`.
final class Overlap: @unchecked Sendable {
    private let lock = NSLock()
    private var inside = 0
    private(set) var most = 0
    func enter() { lock.lock(); inside += 1; most = max(most, inside); lock.unlock() }
    func leave() { lock.lock(); inside -= 1; lock.unlock() }
}

/// CPU time of the calling thread: what a read cost, whatever else the machine ran meanwhile.
func threadCPUMilliseconds() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
    return Double(time.tv_sec) * 1e3 + Double(time.tv_nsec) / 1e6
}

func percentile(_ values: [Double], _ fraction: Double) -> Double {
    let sorted = values.sorted()
    return sorted[min(sorted.count - 1, Int(Double(sorted.count - 1) * fraction))]
}

let arguments = CommandLine.arguments
guard arguments.count >= 2 else {
    FileHandle.standardError.write(Data("usage: pokedex-bench DEVICE_DIR [QUERIES_FILE]\n".utf8))
    exit(64)
}
let folder = URL(fileURLWithPath: arguments[1])
do {
    var pokedex: Pokedex!
    var page: [PokemonSummary] = []
    let cold = try milliseconds {
        pokedex = try Pokedex(folder: folder)
        page = try pokedex.list(offset: 0, limit: 20)
    }
    precondition(page.count == 20, "the first page holds 20 pokemon")
    let residentAfterOpen = residentMB()
    var warm: [Double] = []
    for _ in 0..<50 {
        warm.append(try milliseconds { _ = try Pokedex(folder: folder).list(offset: 0, limit: 20) })
    }

    // The pokemon with the longest move list: the heaviest detail page. Asked of SQLite
    // directly, so that finding it does not load every detail and inflate the memory figure.
    let heaviest: (id: Int, moves: Int) = try {
        let database = try Database(path: pokedex.databaseURL.path, mode: .immutable)
        return try database.row("SELECT pokemon_id, COUNT(*) FROM pokemon_move GROUP BY pokemon_id ORDER BY 2 DESC, 1 LIMIT 1", []) {
            ($0.int(0), $0.int(1))
        } ?? (1, 0)
    }()
    var detail: [Double] = [], detailCPU: [Double] = []
    for _ in 0..<200 {
        let cpuBefore = threadCPUMilliseconds()
        detail.append(try milliseconds { _ = try pokedex.pokemon(id: heaviest.id, languages: ["ja", "en"]) })
        detailCPU.append(threadCPUMilliseconds() - cpuBefore)
    }

    // Queries: given, or every prefix of a spread of names (one per line).
    let names: [String]
    if arguments.count >= 3 {
        names = try String(contentsOfFile: arguments[2], encoding: .utf8).split(separator: "\n").map(String.init)
    } else {
        names = try pokedex.list(offset: 0, limit: 2000).map(\.name)
    }
    var queries: [String] = []
    for name in names where queries.count < 1000 {
        var prefix = ""
        for character in name where queries.count < 1000 {
            prefix.append(character)
            queries.append(prefix)
        }
    }
    let firstSearch = try milliseconds { _ = try pokedex.search("a") }
    var searches: [Double] = []
    for query in queries { searches.append(try milliseconds { _ = try pokedex.search(query) }) }

    // What of it is the process's own (heap, SQLite's caches, written pages of libraries)
    // and what is pages of mapped files (code and data of the binary and its libraries).
    let residentAfterSearch = residentMB()
    let anonymousAfterSearch = residentMB("RssAnon"), fileBackedAfterSearch = residentMB("RssFile")

    // Concurrent reads: the same 1,600 details (ids of the list, round and round), read
    // one per `read` by one task, then shared out to 8 tasks.
    let ids = try pokedex.list(offset: 0, limit: 2000).map(\.id)
    let work = (0..<1600).map { ids[$0 % ids.count] }
    let shared = pokedex!
    let overlap = Overlap()
    func details(_ ids: ArraySlice<Int>) async throws {
        for id in ids {
            _ = try await shared.read { db in
                overlap.enter()
                defer { overlap.leave() }
                return try db.pokemon(id: id, languages: ["ja", "en"])
            }
        }
    }
    /// CPU time of the whole process: above the wall time when reads ran side by side.
    func processCPUMilliseconds() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &time)
        return Double(time.tv_sec) * 1e3 + Double(time.tv_nsec) / 1e6
    }
    func timed(tasks: Int) async throws -> Double {
        let start = DispatchTime.now().uptimeNanoseconds
        try await withThrowingTaskGroup(of: Void.self) { group in
            let share = work.count / tasks
            for task in 0..<tasks { group.addTask { try await details(work[task * share ..< (task + 1) * share]) } }
            try await group.waitForAll()
        }
        return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6
    }
    try await details(work[0..<200])  // warm the connections' caches
    var serial: [Double] = [], parallel: [Double] = []
    for _ in 0..<5 { serial.append(try await timed(tasks: 1)) }
    // One task's reads use one connection; 8 tasks' open the pool's others.
    let residentAfterOneTask = residentMB("VmHWM")
    let cpuBefore8 = processCPUMilliseconds()
    for _ in 0..<5 { parallel.append(try await timed(tasks: 8)) }
    let cpu8 = (processCPUMilliseconds() - cpuBefore8) / Double(parallel.count)
    let wall8 = parallel.reduce(0, +) / Double(parallel.count)
    let serialBest = serial.min() ?? 0, parallelBest = parallel.min() ?? 0
    let report: [String: Any] = [
        "cold_ms": cold, "warm_ms": percentile(warm, 0.5),
        "detail_ms": percentile(detail, 0.5), "detail_cpu_ms": percentile(detailCPU, 0.5), "detail_pokemon": heaviest.id, "detail_moves": heaviest.moves,
        "first_search_ms": firstSearch, "queries": queries.count,
        "search_p50_ms": percentile(searches, 0.5), "search_p95_ms": percentile(searches, 0.95),
        "search_max_ms": searches.max() ?? 0,
        "concurrent_details": work.count, "concurrent_1_task_ms": serialBest, "concurrent_8_tasks_ms": parallelBest,
        "concurrent_ratio": parallelBest > 0 ? serialBest / parallelBest : 0,
        "concurrent_8_tasks_cpu_per_wall": wall8 > 0 ? cpu8 / wall8 : 0, "concurrent_most_reads_at_once": overlap.most,
        "processors": ProcessInfo.processInfo.activeProcessorCount, "rss_peak_before_8_tasks_mb": residentAfterOneTask,
        "rss_mb": residentMB("VmHWM"),
        "rss_after_open_mb": residentAfterOpen, "rss_after_search_mb": residentAfterSearch,
        "rss_anon_after_search_mb": anonymousAfterSearch, "rss_file_after_search_mb": fileBackedAfterSearch,
    ]
    let data = try JSONSerialization.data(withJSONObject: report, options: [.sortedKeys])
    print(String(decoding: data, as: UTF8.self))
} catch {
    FileHandle.standardError.write(Data("pokedex-bench: \(error)\n".utf8))
    exit(65)
}
