import Foundation

/// A tree of the mirror's linked files as served under `/sprites/` or `/cries/`: a path is a list of plain names
/// (letters, digits, `-`, `_`, `.`, never starting with a dot), opened one folder at a
/// time without following links, and only a regular file is read. Nothing else of the
/// file system is reachable.
struct SpriteFiles: Sendable {
    let root: URL
    /// Larger files are not served (the biggest upstream sprite is a few MB).
    let maximumSize = 32 << 20

    /// The bytes of the sprite at `path` (below `/sprites/`, decoded), or nil.
    func read(_ path: String) -> [UInt8]? {
        let names = path.split(separator: "/", omittingEmptySubsequences: false)
        guard !names.isEmpty, names.count <= 16, names.allSatisfy(Self.isPlainName) else { return nil }
        // The tree's own folder is not followed either: `sprites` made a link elsewhere
        // (/etc, say) serves nothing.
        var folder = open(root.path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard folder >= 0 else { return nil }
        for name in names.dropLast() {
            let next = openat(folder, String(name), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            close(folder)
            guard next >= 0 else { return nil }
            folder = next
        }
        let file = openat(folder, String(names.last!), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK)
        close(folder)
        guard file >= 0 else { return nil }
        defer { close(file) }
        var info = stat()
        guard fstat(file, &info) == 0, info.st_mode & S_IFMT == S_IFREG, Int(info.st_size) <= maximumSize else { return nil }
        var bytes = [UInt8](repeating: 0, count: Int(info.st_size))
        var done = 0
        while done < bytes.count {
            let count = bytes.withUnsafeMutableBytes { Foundation.read(file, $0.baseAddress! + done, $0.count - done) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return nil }
            done += count
        }
        return bytes
    }

    static func isPlainName(_ name: Substring) -> Bool {
        guard let first = name.utf8.first, first != UInt8(ascii: "."), name.utf8.count <= 255 else { return false }
        return name.utf8.allSatisfy { byte in
            switch byte {
            case 0x30...0x39, 0x41...0x5A, 0x61...0x7A, UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."): return true
            default: return false
            }
        }
    }

    static func contentType(_ path: String) -> String {
        switch path.split(separator: ".").last?.lowercased() {
        case "png": return "image/png"
        case "gif": return "image/gif"
        case "svg": return "image/svg+xml"
        case "jpg", "jpeg": return "image/jpeg"
        case "webp": return "image/webp"
        case "ogg": return "audio/ogg"
        default: return "application/octet-stream"
        }
    }
}
