/// The caps a reader or extractor enforces on an untrusted archive, before and while it
/// reads: a hostile or damaged archive stops at the first cap it passes, having used no
/// more memory or disk than the cap.
///
/// For a bundle, `maxUnpackedBytes` is the manifest's (or index's) `unpacked_size` and
/// `maxCompressedBytes` the index's `size`.
public struct TarLimits: Sendable, Equatable {
    /// The most content bytes all entries together may declare (the sum of header sizes).
    public var maxUnpackedBytes: Int
    /// The most entries (headers) the archive may hold.
    public var maxEntryCount: Int
    /// The most compressed bytes read from the `.tar.gz` file.
    public var maxCompressedBytes: Int

    /// Creates limits.
    /// - Parameters:
    ///   - maxUnpackedBytes: the most content bytes over all entries.
    ///   - maxEntryCount: the most entries.
    ///   - maxCompressedBytes: the most bytes of the gzip file itself.
    public init(maxUnpackedBytes: Int, maxEntryCount: Int, maxCompressedBytes: Int) {
        self.maxUnpackedBytes = max(0, maxUnpackedBytes)
        self.maxEntryCount = max(0, maxEntryCount)
        self.maxCompressedBytes = max(0, maxCompressedBytes)
    }

    /// The most bytes the gzip stream may expand to: every entry's header and padding, the
    /// content, the end-of-archive marker and record padding. An archive within the other
    /// caps never reaches it; a gzip bomb stops here, having expanded no further.
    public var maxStreamBytes: Int {
        let block = TarLayout.blockSize
        // A header plus at most one block of padding per entry.
        let (perEntry, overflow1) = maxEntryCount.multipliedReportingOverflow(by: 2 * block)
        let (withContent, overflow2) = perEntry.addingReportingOverflow(maxUnpackedBytes)
        let (total, overflow3) = withContent.addingReportingOverflow(2 * block + TarLayout.maxTrailingPadding)
        return overflow1 || overflow2 || overflow3 ? .max : total
    }
}
