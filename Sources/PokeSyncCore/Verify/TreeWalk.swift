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
    /// is not a folder. A file's type and inode come from `readdir` where the file system
    /// gives them (then no `lstat` is made), its device is its folder's (each folder is
    /// `lstat`ed: a few hundred, against 56,000 files).
    static func files(under root: String) -> [File] {
        var files: [File] = []
        var pending = [""]
        while let relative = pending.popLast() {
            let folder = relative.isEmpty ? root : root + "/" + relative
            var folderInfo = stat()
            guard lstat(folder, &folderInfo) == 0, folderInfo.st_mode & S_IFMT == S_IFDIR else { continue }
            let device = UInt64(folderInfo.st_dev)
            guard let handle = opendir(folder) else { continue }
            defer { closedir(handle) }
            while let entry = readdir(handle) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                    String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
                }
                if name == "." || name == ".." { continue }
                let path = relative.isEmpty ? name : relative + "/" + name
                let type = entry.pointee.d_type
                if type == UInt8(DT_DIR) {
                    pending.append(path)
                } else if type != UInt8(DT_UNKNOWN) {
                    files.append(File(relative: path, device: device, inode: UInt64(entry.pointee.d_ino)))
                } else {
                    var info = stat()
                    guard lstat(root + "/" + path, &info) == 0 else { continue }
                    if info.st_mode & S_IFMT == S_IFDIR {
                        pending.append(path)
                    } else {
                        files.append(File(relative: path, device: UInt64(info.st_dev), inode: UInt64(info.st_ino)))
                    }
                }
            }
        }
        return files
    }

    /// The objects folder's files by name (`ab/abcdef...`): device and inode.
    static func identities(under root: String) -> [String: (UInt64, UInt64)] {
        Dictionary(files(under: root).map { ($0.relative, ($0.device, $0.inode)) }, uniquingKeysWith: { first, _ in first })
    }
}
