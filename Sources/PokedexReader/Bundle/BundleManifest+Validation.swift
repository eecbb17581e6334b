import Foundation

// The one place a `manifest.json` is read and held against the index entry that named
// its archive: the updater and `pokesync verify` both call these.

extension BundleManifest {
    /// The largest `manifest.json` read (one line per file: 52,000 sprites fit in 10 MB).
    package static let maxBytes = 64 << 20

    /// Decodes and checks a manifest on its own: format, every number, every path.
    /// - Parameters:
    ///   - data: the bytes of `manifest.json`.
    ///   - file: the bundle it came from, for messages.
    /// - Throws: ``BundleCheckError`` naming `file` and the first problem.
    package init(validating data: Data, file: String) throws(BundleCheckError) {
        self = try BundleLimits.decode(data, as: BundleManifest.self, file: file, maxBytes: Self.maxBytes,
                                       tooLarge: { "has a manifest.json of \($0) bytes, more than \(Self.maxBytes)" },
                                       unreadable: { "has no readable manifest.json: \($0)" },
                                       broken: { "has a manifest that \($0)" }, problem: \.validationProblem)
    }

    /// Why this manifest breaks a rule of the format, or nil. A newer `schema_version`
    /// is not refused here (the caller says an app update is needed).
    package var validationProblem: String? {
        if format != Self.fullFormat && format != Self.deltaFormat { return "is format \(format), not a bundle or delta" }
        if let problem = BundleLimits.formatVersionProblem(formatVersion, current: Self.currentFormatVersion)
            ?? BundleLimits.schemaVersionProblem(schemaVersion) { return problem }
        if !(0...BundleLimits.maxVersion).contains(version) { return "has version \(version), out of range" }
        if isDelta != (baseVersion != nil) { return "is a \(isDelta ? "delta without" : "full bundle with") a base_version" }
        if let baseVersion, !(0..<version).contains(baseVersion) { return "has base_version \(baseVersion), not older than \(version)" }
        if !(0...BundleLimits.maxUnpackedBytes).contains(unpackedSize) { return "has unpacked_size \(unpackedSize), out of range" }
        if files.count > BundleLimits.maxFiles { return "lists \(files.count) files, more than \(BundleLimits.maxFiles)" }
        var total = 0
        for file in files {
            guard (0...BundleLimits.maxUnpackedBytes).contains(file.size) else { return "gives \(file.path) the size \(file.size), out of range" }
            total += file.size  // cannot overflow: at most 2M files of at most 2^42 bytes
            guard BundleLimits.isSHA256(file.sha256) else { return "gives \(file.path) a sha256 that is not 64 hex digits" }
            let parts = file.path.split(separator: "/", omittingEmptySubsequences: false)
            guard !file.path.isEmpty, file.path.utf8.count <= 1024, !file.path.hasPrefix("/"),
                  parts.allSatisfy({ !$0.isEmpty && $0 != "." && $0 != ".." }) else {
                return "lists \(file.path.prefix(60)), which is not a safe relative path"
            }
        }
        if total > unpackedSize { return "lists files of \(total) bytes, more than its unpacked_size \(unpackedSize)" }
        if Set(files.map(\.path)).count != files.count { return "lists one path twice" }
        if let problem = fileListProblem { return problem }
        return nil
    }

    /// Holds the manifest against the index entry that named its archive (and the
    /// index's lineage and profile): the format a full bundle or a delta has, the
    /// versions, `unpacked_size`, lineage and profile must all be the index's.
    /// - Throws: ``BundleCheckError`` naming `entry.file` and what differs.
    package func check(against entry: BundleIndex.Entry, lineage: String, profile: BundleProfile) throws(BundleCheckError) {
        var mismatches: [String] = []
        if format != (entry.from != nil ? Self.deltaFormat : Self.fullFormat) { mismatches.append("format \(format)") }
        if self.lineage != lineage { mismatches.append("lineage \(self.lineage)") }
        if version != entry.to { mismatches.append("version \(version)") }
        if baseVersion != entry.from { mismatches.append("base_version \(baseVersion.map(String.init) ?? "none")") }
        if self.profile != profile { mismatches.append("profile \(self.profile.json)") }
        if unpackedSize != entry.unpackedSize { mismatches.append("unpacked_size \(unpackedSize)") }
        guard mismatches.isEmpty else {
            throw BundleCheckError(file: entry.file, reason: "does not match the index: its manifest has \(mismatches.joined(separator: ", "))")
        }
    }
}
