import Foundation
import PokeLocking
import Testing
@testable import PokeSyncCore

/// The whole-tree check, run by hand or by `make bench` (skipped unless
/// `POKESYNC_SCHEMA_TREES` names one or more extracted api-data folders, each with `api/`
/// and `schema/`, separated by `:`): every document under `api/v2` canonicalized and
/// inferred, once on one thread and once on two; both results must equal the tree's
/// `schema/v2/` file for file as JSON values, nothing missing, nothing extra. Prints
/// the timings (meaningful in a release build).
@Suite("api-data schema tree check")
struct ApiDataSchemaTreeCheck {
    static let trees = ProcessInfo.processInfo.environment["POKESYNC_SCHEMA_TREES"]

    @Test(.enabled(if: trees != nil, "set POKESYNC_SCHEMA_TREES to extracted api-data folders"))
    func inferredSchemasEqualTheTrees() throws {
        for tree in Self.trees!.split(separator: ":").map({ URL(fileURLWithPath: String($0)) }) {
            try check(tree)
        }
    }

    private func check(_ tree: URL) throws {
        let clock = ContinuousClock()
        let start = clock.now
        let documents = try SchemaTreeFiles.canonicalDocuments(apiData: tree)
        let canonicalized = clock.now
        let bytes = documents.reduce(0) { $0 + $1.bytes.count }

        let sequential = ApiDataSchemaInference()
        for document in documents { try sequential.add(document.bytes, path: document.path) }
        let inferred = clock.now
        let sequentialFiles = sequential.files()
        let written = clock.now

        // Two threads taking the next document in path order: both often add to the same
        // pattern at once, so this also runs the several-builders-per-pattern path.
        let parallel = ApiDataSchemaInference()
        let next = Locked(0), failure = Locked<JSONSyntaxError?>(nil)
        let parallelStart = clock.now
        DispatchQueue.concurrentPerform(iterations: 2) { _ in
            while true {
                let index = next.withLock { value in
                    defer { value += 1 }
                    return value
                }
                guard index < documents.count else { return }
                do throws(JSONSyntaxError) {
                    try parallel.add(documents[index].bytes, path: documents[index].path)
                } catch {
                    failure.withLock { $0 = error }
                }
            }
        }
        let parallelFiles = parallel.files()
        let parallelEnd = clock.now
        #expect(failure.withLock { $0 } == nil)

        let expected = try SchemaTreeFiles.jsonFiles(under: tree.appendingPathComponent("schema/v2"))
        for (label, files) in [("one thread", sequentialFiles), ("two threads", parallelFiles)] {
            let ours = Dictionary(uniqueKeysWithValues: files.map { ($0.path, $0.json) })
            var problems: [String] = []
            for (path, url) in expected {
                guard let json = ours[path] else { problems.append("missing \(path)"); continue }
                if try !SchemaTreeFiles.sameJSON(json, Array(Data(contentsOf: url))) { problems.append("differs \(path)") }
            }
            let extra = Set(ours.keys).subtracting(expected.map(\.path))
            problems += extra.sorted().map { "extra \($0)" }
            #expect(problems.isEmpty, "\(tree.path), \(label): \(problems.joined(separator: ", "))")
            print("schema check \(tree.path) (\(label)): \(files.count) files, \(expected.count) expected, \(problems.count) problems")
        }
        let megabytes = Double(bytes) / 1_000_000
        print("""
            schema timings \(tree.path): \(documents.count) documents, \(String(format: "%.1f", megabytes)) MB canonical; \
            read+canonicalize \(canonicalized - start); infer one thread \(inferred - canonicalized) \
            + files() \(written - inferred); two threads with files() \(parallelEnd - parallelStart)
            """)
    }
}
