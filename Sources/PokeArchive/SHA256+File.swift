import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension SHA256 {
    /// The size and digest of the file at `path`, read in 1 MiB chunks (a bundle or a
    /// database is never held whole). Nil when the file cannot be opened or read: the
    /// caller says what that means for it (a missing bundle file, a damaged download).
    public static func hashFile(atPath path: String) -> (size: Int, digest: SHA256Digest)? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 16)
        defer { buffer.deallocate() }
        var hasher = SHA256()
        var size = 0
        while true {
            let count = read(descriptor, buffer.baseAddress, buffer.count)
            if count < 0 {
                if errno == EINTR { continue }
                return nil
            }
            if count == 0 { return (size, hasher.finalize()) }
            size += count
            hasher.update(UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
        }
    }
}
