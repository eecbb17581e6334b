import Foundation
import Testing
@testable import PokeSyncCore

/// Whole-tree check and measure of the api-data renderer, run by hand or by `make bench`:
/// skipped unless `POKESYNC_API_DATA_TREE` names one or more unpacked api-data folders
/// (`:`-separated, e.g. `/tmp/fx/api-data:/tmp/fx25/api-data`). Every `.json` file under
/// `api/` and `schema/` is canonicalized, rendered and compared with its own bytes; the
/// counts and the renderer's throughput are printed (a figure, not an assertion). Built
/// with `swift build -c release --build-tests`, run with
/// `swift test -c release --skip-build --filter ApiDataJSONTreeCheck` for release figures.
@Suite("api-data JSON tree check")
struct ApiDataJSONTreeCheck {
    static let roots = ProcessInfo.processInfo.environment["POKESYNC_API_DATA_TREE"]?
        .split(separator: ":").map(String.init) ?? []

    @Test(.enabled(if: !roots.isEmpty))
    func everyFileRendersToItsOwnBytes() throws {
        for root in Self.roots {
            let files = try Self.jsonFiles(under: URL(fileURLWithPath: root))
            try #require(!files.isEmpty, "no .json file under \(root)/api or \(root)/schema")
            // First everything is read and canonicalized, then rendered in a tight loop:
            // the figure is the renderer's alone.
            var canonical: [[UInt8]] = []
            var readAndCanonicalize = Duration.zero
            var inputBytes = 0
            for file in files {
                let start = ContinuousClock.now
                let bytes = try Data(contentsOf: file)
                canonical.append(try CanonicalJSON.canonicalize(bytes, collectUnder: nil).bytes)
                readAndCanonicalize += ContinuousClock.now - start
                inputBytes += bytes.count
            }
            let writer = ApiDataJSONWriter()
            var outputBytes = 0
            let start = ContinuousClock.now
            for document in canonical {
                outputBytes += try document.withUnsafeBytes { try writer.render($0) { $0.count } }
            }
            let render = ContinuousClock.now - start
            var mismatches: [String] = []
            for (file, document) in zip(files, canonical) {
                let same = try document.withUnsafeBytes { buffer in
                    try writer.render(buffer) { rendered in
                        let original = try Data(contentsOf: file)
                        return original.count == rendered.count && original.withUnsafeBytes {
                            memcmp($0.baseAddress!, rendered.baseAddress!, rendered.count) == 0
                        }
                    }
                }
                if !same { mismatches.append(file.path) }
            }
            let seconds = Double(render.components.seconds) + Double(render.components.attoseconds) * 1e-18
            print("""
                api-data tree \(root): \(files.count) files, \(mismatches.count) mismatches; \
                \(inputBytes) bytes in, \(outputBytes) rendered; read+canonicalize \(readAndCanonicalize), \
                render \(render) (\(Int(Double(outputBytes) / seconds / 1e6)) MB/s of output, one core)
                """)
            #expect(outputBytes == inputBytes)
            #expect(mismatches.isEmpty, "\(mismatches.count) mismatches, first: \(mismatches.prefix(5))")
        }
    }

    /// Every `.json` file under `root/api` and `root/schema`, sorted.
    static func jsonFiles(under root: URL) throws -> [URL] {
        var files: [URL] = []
        for top in ["api", "schema"] {
            let folder = root.appendingPathComponent(top, isDirectory: true)
            guard let walk = FileManager.default.enumerator(atPath: folder.path) else { continue }
            for case let path as String in walk where path.hasSuffix(".json") {
                files.append(folder.appendingPathComponent(path))
            }
        }
        return files.sorted { $0.path < $1.path }
    }
}
