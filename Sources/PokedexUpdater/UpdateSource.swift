import Foundation
import PokedexReader
import PokeArchive
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Where bundles come from: an `index.json` URL (or the folder URL holding it) over HTTP,
/// or a bundles folder on disk.
struct UpdateSource: Sendable {
    /// The folder (or URL prefix) the index's file names are relative to.
    let base: URL
    let isRemote: Bool
    /// The index's own location, for messages.
    let indexURL: URL

    init(_ source: URL) {
        isRemote = source.scheme == "http" || source.scheme == "https"
        if source.pathExtension == "json" {
            indexURL = source
            base = source.deletingLastPathComponent()
        } else {
            base = source
            indexURL = source.appendingPathComponent("index.json")
        }
    }

    /// What reading the index gave: the index, or word that it has not changed since
    /// the ETag the device kept (a 304), and the ETag to keep.
    enum IndexReading {
        case index(BundleIndex, etag: String?)
        case notModified
    }

    /// The index, fetched (conditionally, when `etag` is given and the source is remote)
    /// and checked by ``BundleIndex/init(validating:source:)``.
    /// - Throws: ``UpdateError/unreachable`` when it cannot be fetched,
    ///   ``UpdateError/badBundle`` when it is not a sound pokesync index.
    func readIndex(settings: UpdaterSettings, etag: String? = nil) async throws -> IndexReading {
        let data: Data
        var newTag: String?
        if isRemote {
            let fetched = try await CappedDownload(url: indexURL, destination: nil, cap: BundleIndex.maxBytes + 1,
                                                   settings: settings, ifNoneMatch: etag, progress: { _ in }).run()
            if fetched.notModified { return .notModified }
            (data, newTag) = (fetched.data, fetched.etag)
        } else {
            do { data = try Data(contentsOf: indexURL) } catch {
                throw UpdateError.unreachable(source: indexURL.path, reason: error.localizedDescription)
            }
        }
        do {
            return .index(try BundleIndex(validating: data, source: name), etag: newTag)
        } catch {
            throw UpdateError.badBundle(path: error.file, reason: error.reason)
        }
    }

    /// The index's location as messages name it.
    var name: String { indexURL.isFileURL ? indexURL.path : indexURL.absoluteString }

    /// Downloads `entry` (an entry of a validated index) into `destination`, reading at
    /// most `size + 1` bytes, and checks its size and SHA-256.
    /// - Returns: the bytes received.
    /// - Throws: ``UpdateError/badBundle`` for a wrong size or hash, ``UpdateError/unreachable``
    ///   when it cannot be fetched or the transfer ends short, ``UpdateError/io`` when it
    ///   cannot be written; `CancellationError` when the task is cancelled.
    func download(_ entry: BundleIndex.Entry, to destination: URL, settings: UpdaterSettings,
                  progress: @escaping @Sendable (Int) -> Void) async throws -> Int {
        if let problem = entry.validationProblem { throw UpdateError.badBundle(path: name, reason: problem) }
        let cap = entry.size + 1  // size <= BundleLimits.maxFileBytes: no overflow
        let (count, digest): (Int, SHA256Digest)
        let url = base.appendingPathComponent(entry.file)
        if isRemote {
            let result = try await CappedDownload(url: url, destination: destination, cap: cap, settings: settings,
                                                  progress: progress).run()
            (count, digest) = (result.count, result.digest)
            if count < entry.size {
                // A transfer cut short is the network's failure, not the file's: another try
                // (or the full bundle, for a delta) may succeed.
                throw UpdateError.unreachable(source: url.absoluteString, reason: "ended after \(count) of \(entry.size) bytes")
            }
        } else {
            (count, digest) = try await BlockingStep.run { flag in
                try copyCapped(url, to: destination, cap: cap, stop: flag, progress: progress)
            }
        }
        guard count == entry.size else {
            throw UpdateError.badBundle(path: entry.file, reason: "is \(count >= cap ? "more than " : "")\(count) bytes, not the index's \(entry.size)")
        }
        guard digest.hex == entry.sha256.lowercased() else {
            throw UpdateError.badBundle(path: entry.file, reason: "has SHA-256 \(digest.hex), not the index's \(entry.sha256)")
        }
        return count
    }

    /// Bytes copied (and hashed) between two looks at the stop flag: a few ms even in a
    /// debug build, so a cancelled copy ends at once.
    static let copyChunk = 256 * 1024

    private func copyCapped(_ source: URL, to destination: URL, cap: Int, stop: StopFlag,
                            progress: @Sendable (Int) -> Void) throws -> (Int, SHA256Digest) {
        guard let input = FileHandle(forReadingAtPath: source.path) else {
            throw UpdateError.unreachable(source: source.path, reason: "cannot open the file")
        }
        defer { try? input.close() }
        guard FileManager.default.createFile(atPath: destination.path, contents: nil),
              let output = FileHandle(forWritingAtPath: destination.path) else {
            throw UpdateError.io(path: destination.path, reason: "cannot create the file")
        }
        defer { try? output.close() }
        var hasher = SHA256()
        var count = 0
        while count < cap {
            try stop.check()
            let chunk: Data
            do { chunk = try input.read(upToCount: min(Self.copyChunk, cap - count)) ?? Data() } catch {
                throw UpdateError.unreachable(source: source.path, reason: error.localizedDescription)
            }
            if chunk.isEmpty { break }
            hasher.update(chunk)
            do { try output.write(contentsOf: chunk) } catch {
                throw UpdateError.io(path: destination.path, reason: error.localizedDescription)
            }
            count += chunk.count
            progress(count)
        }
        return (count, hasher.finalize())
    }
}
