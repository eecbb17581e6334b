/// An entry that passed the safety rules: a regular file or a folder with a safe name.
public struct TarEntry: Sendable, Equatable, Hashable {
    /// What an accepted entry is: pokesync archives hold nothing else.
    public enum Kind: String, Sendable, Hashable {
        case file, directory
    }

    /// The relative path, components joined by "/", without a trailing "/" for folders.
    public let name: String
    public let kind: Kind
    /// Content bytes (0 for folders).
    public let size: Int

    /// Creates an entry description (for comparing with what an archive holds).
    public init(name: String, kind: Kind, size: Int) {
        self.name = name
        self.kind = kind
        self.size = size
    }

    /// The name split into its components.
    public var components: [Substring] { name.split(separator: "/", omittingEmptySubsequences: false) }
}

/// The names pokesync writes and accepts, after CPython tarfile's `data_filter` (PEP 706)
/// and libarchive's `ARCHIVE_EXTRACT_SECURE_*`, made stricter where a bundle never needs the
/// leniency: relative UTF-8 paths of plain components, no `.`, `..`, empty components,
/// backslashes, NUL or control characters.
enum TarNamePolicy {
    /// A path component longer than this cannot be created on common file systems.
    static let maxComponentBytes = 255

    /// Checks `bytes` (a folder may end in one "/") and returns the clean name, or the reason
    /// it is refused, worded to follow `entry "name": `.
    static func check(_ bytes: [UInt8], isDirectory: Bool) -> Result<String, UnsafeNameError> {
        guard !bytes.isEmpty else { return .failure("an empty name") }
        if bytes.contains(0) { return .failure("a NUL byte in the name") }
        guard let text = TarError.utf8String(bytes) else { return .failure("a name that is not valid UTF-8") }
        if bytes.first == UInt8(ascii: "/") { return .failure("an absolute name") }
        if bytes.contains(UInt8(ascii: "\\")) { return .failure("a backslash in the name") }
        if text.unicodeScalars.contains(where: { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }) {
            return .failure("a control character in the name")
        }
        var name = Substring(text)
        if name.hasSuffix("/") {
            guard isDirectory else { return .failure("a file name ending in \"/\"") }
            name = name.dropLast()
        }
        for component in name.split(separator: "/", omittingEmptySubsequences: false) {
            switch component {
            case "..": return .failure("a name that leaves the folder")
            case ".": return .failure("a \".\" component in the name")
            case "": return .failure("an empty component in the name")
            default:
                if component.utf8.count > maxComponentBytes {
                    return .failure("a name component longer than \(maxComponentBytes) bytes")
                }
            }
        }
        return .success(String(name))
    }

    /// A refusal reason (a `Result` failure needs an `Error`).
    struct UnsafeNameError: Error, ExpressibleByStringInterpolation {
        let reason: String
        init(stringLiteral value: String) { reason = value }
    }
}

/// Tracks the names seen so far in one archive and refuses the ones that would collide on
/// disk: a duplicate, a file where a folder is needed (`a` then `a/b`), a folder where a
/// file was (`a/b` then `a`).
///
/// Memory grows with the entry count, which `TarLimits.maxEntryCount` caps.
struct TarNameTracker {
    private var files: Set<String> = []
    private var explicitDirectories: Set<String> = []
    /// Folders implied by the names below them, with or without their own entry.
    private var impliedDirectories: Set<String> = []

    /// Records `name`, or returns why it cannot live beside the names already seen.
    mutating func admit(_ name: String, kind: TarEntry.Kind) -> String? {
        if files.contains(name) || explicitDirectories.contains(name) { return "a duplicate name" }
        if kind == .file && impliedDirectories.contains(name) { return "a file with the name of a folder" }
        var ancestor = Substring(name)
        var ancestors: [String] = []
        while let slash = ancestor.lastIndex(of: "/") {
            ancestor = ancestor[..<slash]
            let path = String(ancestor)
            if files.contains(path) { return "a name inside \(TarError.quoted(path)), which is a file" }
            ancestors.append(path)
        }
        impliedDirectories.formUnion(ancestors)
        switch kind {
        case .file: files.insert(name)
        case .directory: explicitDirectories.insert(name)
        }
        return nil
    }
}

/// Applies the safety rules to each header of one archive, in order.
struct TarEntryFilter {
    let archive: String
    private var tracker = TarNameTracker()

    init(archive: String) { self.archive = archive }

    /// The entry for `header`, or throws `TarError.unsafeEntry` naming it and the cause.
    mutating func admit(_ header: TarHeader) throws(TarError) -> TarEntry {
        let kind: TarEntry.Kind
        switch header.type {
        case .regularFile: kind = .file
        case .directory: kind = .directory
        default:
            throw .unsafeEntry(archive: archive, entry: header.name,
                               reason: "\(header.type.label), which extraction refuses")
        }
        if kind == .directory && header.size != 0 {
            throw .unsafeEntry(archive: archive, entry: header.name, reason: "a folder entry with content")
        }
        let name: String
        switch TarNamePolicy.check(header.nameBytes, isDirectory: kind == .directory) {
        case .success(let clean): name = clean
        case .failure(let refusal): throw .unsafeEntry(archive: archive, entry: header.name, reason: refusal.reason)
        }
        if let reason = tracker.admit(name, kind: kind) {
            throw .unsafeEntry(archive: archive, entry: header.name, reason: reason)
        }
        return TarEntry(name: name, kind: kind, size: header.size)
    }
}
