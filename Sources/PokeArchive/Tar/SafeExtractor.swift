import Foundation

/// Extracts an untrusted `.tar.gz` into a new folder, safely, following CPython tarfile's
/// `data_filter` (PEP 706) and libarchive's `ARCHIVE_EXTRACT_SECURE_*` rules, stricter
/// where a bundle never needs the leniency.
///
/// - Two passes. The first reads the whole archive and checks every header, name and cap
///   (see `TarArchive`) before anything is written; the second writes, checking it all
///   again, and refuses an archive that changed between the passes.
/// - Only regular files (mode 0644) and folders (mode 0755); links, devices, FIFOs and
///   pax or GNU extension entries are refused. No owner, time or mode from the archive.
/// - Everything is created inside the new folder through descriptors: folders with
///   `mkdirat` and opened with `O_NOFOLLOW | O_DIRECTORY`, files with
///   `O_CREAT | O_EXCL | O_NOFOLLOW`, so nothing is ever written through a link or outside.
/// - On any failure the new folder is removed; the caller sees either a complete folder
///   or none.
public struct SafeExtractor: Sendable {
    public let limits: TarLimits
    /// Whether files and folders are fsynced before `extract` returns, so that a rename
    /// into place after it cannot expose empty files after a power loss.
    public var synchronizes: Bool
    /// Asked before each 64 kB chunk of either pass: true stops the extraction with
    /// `CancellationError`, the destination removed (a cancelled install).
    public var stop: (@Sendable () -> Bool)?

    /// Creates an extractor.
    /// - Parameters:
    ///   - limits: the caps; for a bundle, its `unpacked_size`, its file size, an entry count.
    ///   - synchronizes: fsync what was written before returning (default true).
    ///   - stop: asked before each chunk; true stops with `CancellationError`.
    public init(limits: TarLimits, synchronizes: Bool = true, stop: (@Sendable () -> Bool)? = nil) {
        self.limits = limits
        self.synchronizes = synchronizes
        self.stop = stop
    }

    /// Extracts `archive` into `destination`, a folder that must not exist yet and whose
    /// parent must.
    /// - Parameter only: when given, only the top-level files of these names are written
    ///   (every entry is still read and checked); for a reader that needs the database and
    ///   not the sprites.
    /// - Returns: the entries of the archive (all of them, written or not), in archive order.
    /// - Throws: `TarError.corrupt` or `.truncated` for a damaged archive, `.unsafeEntry`
    ///   for a refused entry, `.overLimit` past a cap, `.io` if `destination` exists or a
    ///   file cannot be read, created or written; `CancellationError` when ``stop`` says
    ///   so. The destination is then absent.
    @discardableResult
    public func extract(archive: String, to destination: String, only: Set<String>? = nil) throws -> [TarEntry] {
        // Pass 1: everything checked, nothing written.
        let planned = try TarArchive(path: archive, limits: limits, stop: stop).entries()

        let folder = try ExtractionFolder(creating: destination)
        do {
            try write(archive: archive, into: folder, planned: planned, only: only)
            if synchronizes { try folder.synchronize() }
            folder.close()
            return planned
        } catch {
            folder.close()
            folder.remove()
            throw error
        }
    }

    /// Pass 2: reads the archive again, checks each entry as pass 1 did, and writes it.
    private func write(archive: String, into folder: ExtractionFolder, planned: [TarEntry], only: Set<String>?) throws {
        let changed = TarError.corrupt(archive: archive, entry: nil, reason: "the archive changed while it was extracted")
        let reader = try TarReader(path: archive, limits: limits, stop: stop)
        var filter = TarEntryFilter(archive: archive)
        var index = 0
        while let header = try reader.next() {
            let entry = try filter.admit(header)
            guard index < planned.count, planned[index] == entry else { throw changed }
            index += 1
            let components = entry.components.map(String.init)
            // Not asked for: its content is skipped by the next `next()`.
            if let only, entry.kind != .file || components.count != 1 || !only.contains(entry.name) { continue }
            switch entry.kind {
            case .directory:
                try folder.makeDirectory(components)
            case .file:
                let file = try folder.createFile(components)
                do {
                    while let chunk = try reader.readContent(maxBytes: 256 * 1024) { try file.write(chunk) }
                    if synchronizes { try file.synchronize() }
                    try file.close()
                } catch {
                    file.closeIgnoringErrors()
                    throw error
                }
            }
        }
        guard index == planned.count else { throw changed }
    }
}
