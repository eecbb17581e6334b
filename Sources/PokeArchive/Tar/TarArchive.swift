/// A `.tar.gz` file on disk, read under `TarLimits` with the safety rules applied: for
/// checking a bundle in place (`verify`) and reading one entry without extracting it
/// (`show --bundle`).
///
/// Every operation reads the whole archive and applies the same checks as
/// `SafeExtractor`, so an archive accepted here is one extraction accepts too: only regular
/// files and folders, safe unique names (see `TarEntry`), every cap respected, a valid end.
public struct TarArchive: Sendable {
    public let path: String
    public let limits: TarLimits
    /// Asked before each chunk read: true ends the read with `CancellationError`.
    public let stop: (@Sendable () -> Bool)?

    /// Names the archive at `path`; nothing is read yet.
    /// - Parameter stop: asked before each chunk read; true stops with `CancellationError`.
    public init(path: String, limits: TarLimits, stop: (@Sendable () -> Bool)? = nil) {
        self.path = path
        self.limits = limits
        self.stop = stop
    }

    /// Reads and checks the whole archive and returns its entries in archive order.
    /// - Throws: `TarError.corrupt` or `.truncated` for a damaged archive, `.unsafeEntry`
    ///   for a refused entry, `.overLimit` past a cap, `.io` if the file cannot be read.
    public func entries() throws -> [TarEntry] {
        var entries: [TarEntry] = []
        try forEachEntry { entry, _ in entries.append(entry) }
        return entries
    }

    /// Returns the content of the file entry `name`, after checking the whole archive.
    /// - Parameter maxBytes: the most bytes accepted for that entry.
    /// - Throws: `TarError.entryNotFound` if no file has that name, `.overLimit` if it is
    ///   larger than `maxBytes`, and the errors of `entries()`.
    public func contents(of name: String, maxBytes: Int) throws -> [UInt8] {
        var contents: [UInt8]?
        try forEachEntry { entry, reader in
            guard entry.kind == .file && entry.name == name else { return }
            guard entry.size <= maxBytes else {
                throw TarError.overLimit(archive: path, entry: entry.name,
                                         reason: "\(entry.size) bytes, more than the \(maxBytes) accepted")
            }
            var bytes: [UInt8] = []
            bytes.reserveCapacity(entry.size)
            while let chunk = try reader.readContent() { bytes += chunk }
            contents = bytes
        }
        guard let contents else { throw TarError.entryNotFound(archive: path, entry: name) }
        return contents
    }

    /// Streams the content of the file entry `name` to `body` chunk by chunk, then checks
    /// the rest of the archive. If this throws after `body` was called, the archive was
    /// refused: discard what `body` received.
    /// - Throws: `TarError.entryNotFound` if no file has that name, what `body` throws,
    ///   and the errors of `entries()`.
    public func streamContents(of name: String, _ body: ([UInt8]) throws -> Void) throws {
        var found = false
        try forEachEntry { entry, reader in
            guard entry.kind == .file && entry.name == name else { return }
            found = true
            while let chunk = try reader.readContent(maxBytes: 256 * 1024) { try body(chunk) }
        }
        guard found else { throw TarError.entryNotFound(archive: path, entry: name) }
    }

    /// Reads the archive to its end, passing each accepted entry (and the reader positioned
    /// at its content) to `body`.
    func forEachEntry(_ body: (TarEntry, TarReader) throws -> Void) throws {
        let reader = try TarReader(path: path, limits: limits, stop: stop)
        var filter = TarEntryFilter(archive: path)
        while let header = try reader.next() {
            try body(try filter.admit(header), reader)
        }
    }
}
