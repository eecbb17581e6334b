import Foundation

/// The regular files below a folder, read with `opendir`/`readdir` and `lstat`: what
/// `verify` walks in a tree of 56,000 files. Foundation's enumerator and `resourceValues`
/// cost about ten times the system calls they make, and were most of a verify's time.
enum TreeWalk {
    /// A file below the root: its path relative to the root, and its inode.
    struct File {
        var relative: String
        var device: UInt64
        var inode: UInt64
    }

    /// Every entry below `root` that is not a folder (links and other types included, so
    /// that `verify` names them), depth first; no links are followed. Empty when `root`
    /// is not a folder.
    static func files(under root: String) -> [File] {
        var files: [File] = []
        var pending = [""]
        while let relative = pending.popLast() {
            let folder = relative.isEmpty ? root : root + "/" + relative
            guard let handle = opendir(folder) else { continue }
            defer { closedir(handle) }
            while let entry = readdir(handle) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                    String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
                }
                if name == "." || name == ".." { continue }
                let path = relative.isEmpty ? name : relative + "/" + name
                var info = stat()
                guard lstat(root + "/" + path, &info) == 0 else { continue }
                if info.st_mode & S_IFMT == S_IFDIR {
                    pending.append(path)
                } else {
                    files.append(File(relative: path, device: UInt64(info.st_dev), inode: UInt64(info.st_ino)))
                }
            }
        }
        return files
    }

    /// The (device, inode) of `path`, following links; nil when it is not there.
    static func identity(_ path: String) -> (UInt64, UInt64)? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return (UInt64(info.st_dev), UInt64(info.st_ino))
    }
}
