import Foundation

// The one place an `index.json` is read: install, verify, the bundles folder and
// `show --bundle` all decode through here, so one set of rules holds everywhere.

extension BundleIndex {
    /// The largest `index.json` read (a year of deltas is a few hundred kB).
    package static let maxBytes = 1 << 20

    /// Decodes and checks an index: its format, every number (non-negative, within
    /// ``BundleLimits``), every file name (plain, short), every hash, and that its
    /// versions agree. A newer `schema_version` is not refused here: the caller decides
    /// (an app says an update is needed; `verify` says the build is too old).
    /// - Parameters:
    ///   - data: the file's bytes.
    ///   - source: the index's path or URL, for messages.
    /// - Throws: ``BundleCheckError`` naming `source` and the first problem.
    package init(validating data: Data, source: String) throws(BundleCheckError) {
        self = try BundleLimits.decode(data, as: BundleIndex.self, file: source, maxBytes: Self.maxBytes,
                                       tooLarge: { "is \($0) bytes, more than an index may be (\(Self.maxBytes))" },
                                       unreadable: { "is not a pokesync index: \($0)" }, broken: { $0 },
                                       problem: \.validationProblem)
    }

    /// Why this index breaks a rule of the format, or nil.
    package var validationProblem: String? {
        if format != Self.format { return "has format \(format), not \(Self.format)" }
        if let problem = BundleLimits.formatVersionProblem(formatVersion, current: Self.currentFormatVersion)
            ?? BundleLimits.schemaVersionProblem(schemaVersion) { return problem }
        if lineage.isEmpty || lineage.utf8.count > 200 { return "has a lineage that is empty or too long" }
        if !(0...BundleLimits.maxVersion).contains(latest) { return "has latest \(latest), out of range" }
        if deltas.count > BundleLimits.maxDeltas { return "names \(deltas.count) deltas, more than \(BundleLimits.maxDeltas)" }
        for entry in [full] + deltas {
            if let problem = entry.validationProblem { return problem }
        }
        if Set(files).count != files.count { return "names one file twice" }
        return inconsistency
    }

    /// The index's source text read from disk, checked.
    /// - Throws: ``BundleCheckError`` for a file that cannot be read or is not a sound index.
    package init(validatingFile url: URL) throws(BundleCheckError) {
        let data: Data
        do { data = try Data(contentsOf: url) } catch {
            throw BundleCheckError(file: url.path, reason: "cannot be read: \(error.localizedDescription)")
        }
        try self.init(validating: data, source: url.path)
    }
}

extension BundleIndex.Entry {
    /// Why this entry's numbers, name or hash break the format's rules, or nil.
    package var validationProblem: String? {
        if let problem = BundleLimits.fileNameProblem(file) {
            return "names \"\(file.prefix(40))\(file.count > 40 ? "..." : "")\", which \(problem)"
        }
        if !(0...BundleLimits.maxVersion).contains(to) { return "names \(file) for version \(to), out of range" }
        if let from, !(0..<to).contains(from) { return "names \(file) from version \(from) to \(to), not an older base" }
        if !(1...BundleLimits.maxFileBytes).contains(size) { return "gives \(file) the size \(size), out of range" }
        if !(0...BundleLimits.maxUnpackedBytes).contains(unpackedSize) {
            return "gives \(file) the unpacked_size \(unpackedSize), out of range"
        }
        if !BundleLimits.isSHA256(sha256) { return "gives \(file) a sha256 that is not 64 hex digits" }
        return nil
    }
}
