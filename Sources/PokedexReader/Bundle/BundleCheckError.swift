import Foundation

/// A bundle file (an `index.json`, a manifest, an archive's contents) that is not what
/// the format allows or what its index promises. The one error the reader library's
/// bundle checks throw; the updater and `pokesync verify` both report it as bad data.
package struct BundleCheckError: Error, CustomStringConvertible, Sendable, Equatable {
    /// The file, URL or bundle name the problem is in.
    package var file: String
    /// What is wrong, as the end of a sentence starting with the file's name.
    package var reason: String

    package init(file: String, reason: String) {
        self.file = file
        self.reason = reason
    }

    package var description: String { "\(file) \(reason)" }
}

/// The bounds every number and name read from an index or a manifest must keep before
/// anything adds, compares or allocates with it (an index saying `size: 2^63-1` would
/// otherwise overflow `size + 1` and crash the app at every check).
package enum BundleLimits {
    /// The largest download an index may name (a `--sprites all` bundle is a few hundred MB).
    package static let maxFileBytes = 1 << 40
    /// The largest size an archive may unpack to, and any one file in it.
    package static let maxUnpackedBytes = 1 << 42
    /// The highest version number (versions count up by one a day).
    package static let maxVersion = Int(Int32.max)
    /// The most deltas one index may name.
    package static let maxDeltas = 10_000
    /// The most files one manifest may list.
    package static let maxFiles = 2_000_000
    /// The longest file name an index may give (most file systems stop at 255 bytes).
    package static let maxNameBytes = 255

    /// Why `name` is not a plain file name an index may give, or nil.
    package static func fileNameProblem(_ name: String) -> String? {
        if name.isEmpty { return "is an empty file name" }
        if name.utf8.count > maxNameBytes { return "is a file name of \(name.utf8.count) bytes, more than \(maxNameBytes)" }
        if name.contains("/") || name.contains("\\") || name.hasPrefix(".")
            || name.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) {
            return "is not a plain file name"
        }
        return nil
    }

    /// Why a file's `format_version` is not one this reader knows (1 to `current`), or nil.
    static func formatVersionProblem(_ formatVersion: Int, current: Int) -> String? {
        (1...current).contains(formatVersion) ? nil
            : "is format version \(formatVersion), not one this reader knows (1...\(current))"
    }

    /// Why a file's `schema_version` is not a version at all, or nil. A newer one is not
    /// refused here: the caller decides (an app says an update is needed; `verify` says the
    /// build is too old).
    static func schemaVersionProblem(_ schemaVersion: Int) -> String? {
        schemaVersion < 1 ? "has schema_version \(schemaVersion), not a positive number" : nil
    }

    /// Decodes an `index.json` or a `manifest.json` of `file` and checks it: at most
    /// `maxBytes`, JSON of `Value`'s shape, and no `problem`. Index and manifest say each
    /// failure in their own words (`tooLarge`, `unreadable`, `broken`).
    static func decode<Value: Decodable>(_ data: Data, as _: Value.Type, file: String, maxBytes: Int,
                                         tooLarge: (Int) -> String, unreadable: (String) -> String,
                                         broken: (String) -> String,
                                         problem: (Value) -> String?) throws(BundleCheckError) -> Value {
        guard data.count <= maxBytes else { throw BundleCheckError(file: file, reason: tooLarge(data.count)) }
        let value: Value
        do { value = try JSONDecoder().decode(Value.self, from: data) } catch {
            throw BundleCheckError(file: file, reason: unreadable(DecodingFailure.describe(error, in: data)))
        }
        if let problem = problem(value) { throw BundleCheckError(file: file, reason: broken(problem)) }
        return value
    }

    /// Whether `text` is 64 hex digits (a SHA-256).
    static func isSHA256(_ text: String) -> Bool {
        text.utf8.count == 64 && text.utf8.allSatisfy { (48...57).contains($0) || (97...102).contains($0) || (65...70).contains($0) }
    }
}
