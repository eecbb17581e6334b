import Foundation
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

    /// The index, decoded.
    /// - Throws: ``UpdateError/unreachable`` when it cannot be fetched,
    ///   ``UpdateError/badBundle`` when it is not a pokesync index.
    func readIndex() async throws -> BundleIndex {
        let data: Data
        if isRemote {
            data = try await fetch(indexURL, to: nil, cap: 1 << 20).data
        } else {
            do { data = try Data(contentsOf: indexURL) } catch {
                throw UpdateError.unreachable(source: indexURL.path, reason: error.localizedDescription)
            }
        }
        let index: BundleIndex
        do { index = try JSONDecoder().decode(BundleIndex.self, from: data) } catch {
            throw UpdateError.badBundle(path: indexURL.absoluteString, reason: "is not a pokesync index: \(error)")
        }
        guard index.format == BundleIndex.format else {
            throw UpdateError.badBundle(path: indexURL.absoluteString, reason: "has format \(index.format), not \(BundleIndex.format)")
        }
        return index
    }

    /// Downloads `entry` into `destination`, reading at most `size + 1` bytes, and checks
    /// its size and SHA-256.
    /// - Returns: the bytes received.
    /// - Throws: ``UpdateError/badBundle`` for a wrong size or hash, ``UpdateError/unreachable``
    ///   when it cannot be fetched, ``UpdateError/io`` when it cannot be written.
    func download(_ entry: BundleIndex.Entry, to destination: URL,
                  progress: @escaping @Sendable (Int) -> Void) async throws -> Int {
        guard !entry.file.contains("/"), !entry.file.hasPrefix(".") else {
            throw UpdateError.badBundle(path: entry.file, reason: "is not a plain file name")
        }
        let cap = entry.size + 1
        let (count, digest): (Int, SHA256Digest)
        if isRemote {
            let result = try await fetch(base.appendingPathComponent(entry.file), to: destination, cap: cap, progress: progress)
            (count, digest) = (result.count, result.digest)
        } else {
            (count, digest) = try copyCapped(base.appendingPathComponent(entry.file), to: destination, cap: cap, progress: progress)
        }
        guard count == entry.size else {
            throw UpdateError.badBundle(path: entry.file, reason: "is \(count >= cap ? "more than" : "") \(count) bytes, not the index's \(entry.size)")
        }
        guard digest.hex == entry.sha256.lowercased() else {
            throw UpdateError.badBundle(path: entry.file, reason: "has SHA-256 \(digest.hex), not the index's \(entry.sha256)")
        }
        return count
    }

    private func copyCapped(_ source: URL, to destination: URL, cap: Int,
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
            let chunk: Data
            do { chunk = try input.read(upToCount: min(1 << 20, cap - count)) ?? Data() } catch {
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

    /// GETs `url`, stopping past `cap` bytes; writes to `destination` when given, else returns the body.
    private func fetch(_ url: URL, to destination: URL?, cap: Int,
                       progress: @escaping @Sendable (Int) -> Void = { _ in }) async throws
        -> (data: Data, count: Int, digest: SHA256Digest) {
        let receiver = CappedDownload(url: url, destination: destination, cap: cap, progress: progress)
        return try await receiver.run()
    }
}
