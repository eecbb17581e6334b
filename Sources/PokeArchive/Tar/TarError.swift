import Foundation

/// A failure while writing, reading, listing or extracting a `.tar.gz` archive.
///
/// Every case prints as one line naming the archive (the path as the caller gave it) and,
/// where there is one, the entry: `pokedex-7.tar.gz: entry "../x": a name that leaves the
/// folder`. Entry names are quoted with control characters and invalid UTF-8 escaped, so a
/// hostile name cannot break the line. The cases are the categories a caller maps to exit
/// codes: a damaged archive, an entry refused for safety, a cap exceeded, an I/O failure.
public enum TarError: Error, CustomStringConvertible, Equatable, Sendable {
    /// The bytes are not a valid gzip'd ustar archive: bad gzip data or checksum, a header
    /// whose checksum does not match, no ustar magic, a number field that is not octal,
    /// data after the end-of-archive marker, or an archive that changed while being read.
    case corrupt(archive: String, entry: String?, reason: String)
    /// The archive ends inside an entry (`entry` set) or before its end-of-archive marker.
    case truncated(archive: String, entry: String?)
    /// An entry that is refused for safety: a link, a device, a FIFO, an extension header,
    /// an absolute name, a `..` component, a duplicate, a file used as a folder.
    case unsafeEntry(archive: String, entry: String, reason: String)
    /// The archive goes past one of its `TarLimits`: too many entries, too many unpacked
    /// bytes, too many compressed bytes, a stream that expands too far, an entry too large.
    case overLimit(archive: String, entry: String?, reason: String)
    /// The writer was given an entry it cannot write: out of order, a name that does not fit
    /// a ustar header, content larger than ustar allows, a source file that changed size.
    case invalidEntry(archive: String, entry: String, reason: String)
    /// The archive holds no file entry of that name.
    case entryNotFound(archive: String, entry: String)
    /// Opening, reading, writing, creating or syncing a file or folder failed.
    case io(path: String, operation: String, reason: String)

    public var description: String {
        switch self {
        case .corrupt(let archive, let entry, let reason):
            "\(archive): \(Self.entryPart(entry))corrupt archive: \(reason)"
        case .truncated(let archive, let entry?):
            "\(archive): the archive ends inside entry \(Self.quoted(entry)) (truncated)"
        case .truncated(let archive, nil):
            "\(archive): the archive ends before its end-of-archive marker (truncated)"
        case .unsafeEntry(let archive, let entry, let reason):
            "\(archive): entry \(Self.quoted(entry)): \(reason)"
        case .overLimit(let archive, let entry, let reason):
            "\(archive): \(Self.entryPart(entry))\(reason)"
        case .invalidEntry(let archive, let entry, let reason):
            "\(archive): entry \(Self.quoted(entry)): \(reason)"
        case .entryNotFound(let archive, let entry):
            "\(archive): no file \(Self.quoted(entry)) in the archive"
        case .io(let path, let operation, let reason):
            "cannot \(operation) \(path): \(reason)"
        }
    }

    private static func entryPart(_ entry: String?) -> String {
        entry.map { "entry \(quoted($0)): " } ?? ""
    }

    /// `name` in double quotes, with `"`, `\` and control characters escaped so that the
    /// message stays on one line whatever bytes a hostile archive put in a name.
    static func quoted(_ name: String) -> String {
        var text = "\""
        for scalar in name.unicodeScalars {
            switch scalar {
            case "\"": text += "\\\""
            case "\\": text += "\\\\"
            case "\u{0}"..."\u{1F}", "\u{7F}"..."\u{9F}", "\u{2028}", "\u{2029}":
                text += "\\u{\(String(scalar.value, radix: 16))}"
            default: text.unicodeScalars.append(scalar)
            }
        }
        return text + "\""
    }

    /// A readable rendering of raw name bytes: invalid UTF-8 shows as U+FFFD.
    static func displayName(_ bytes: some Collection<UInt8>) -> String {
        String(decoding: Array(bytes), as: UTF8.self)
    }

    /// The text of `bytes` if they are valid UTF-8, else nil. (`String(validating:)` needs
    /// macOS 15, above the reader's floor.)
    static func utf8String(_ bytes: [UInt8]) -> String? {
        let text = String(decoding: bytes, as: UTF8.self)
        return text.utf8.elementsEqual(bytes) ? text : nil
    }
}

extension TarError {
    /// Maps a gzip-layer failure while reading `archive` (inside `entry`, if known).
    static func reading(_ error: CompressionError, archive: String, entry: String?) -> TarError {
        switch error {
        case .truncated: .truncated(archive: archive, entry: entry)
        // A checksum of the whole stream (CRC-32, length) is only checked at its end: it
        // says nothing of where the damage is, so no entry is named.
        case .corruptData(let detail) where detail.hasPrefix("incorrect data check") || detail.hasPrefix("incorrect length check"):
            .corrupt(archive: archive, entry: nil,
                     reason: "gzip data: \(detail) (the stream's checksum does not match: the damage may be anywhere in it)")
        // Invalid deflate data is found where it is read: while reading that entry.
        case .corruptData(let detail): .corrupt(archive: archive, entry: entry, reason: "gzip data: \(detail)")
        case .outputTooLarge(let limit):
            .overLimit(archive: archive, entry: entry, reason: "the gzip stream expands to more than \(limit) bytes")
        case .zlib(_, let message): .io(path: archive, operation: "decompress", reason: message)
        case .fileAccess(let path, let operation, let reason): .io(path: path, operation: operation, reason: reason)
        }
    }

    /// An `.io` error for `path` with the current `errno` text.
    static func posix(_ path: String, _ operation: String, code: Int32 = errno) -> TarError {
        .io(path: path, operation: operation, reason: String(cString: strerror(code)))
    }
}
