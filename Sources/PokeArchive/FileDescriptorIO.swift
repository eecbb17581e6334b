#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The one write loop: writes every byte of `bytes` to `descriptor`, going on after a
/// short write or an interrupted one (EINTR), as `write(2)` may do to any caller.
/// - Returns: 0 when every byte is written, else the `errno` of the write that failed.
package func writeAll(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer) -> Int32 {
    var offset = 0
    while offset < bytes.count {
        let written = write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
        if written < 0 {
            if errno == EINTR { continue }
            return errno
        }
        offset += written
    }
    return 0
}

/// The one fsync of a file by path: its bytes are on disk when it returns 0.
/// - Returns: 0, or the `errno` of the open or the fsync that failed.
package func synchronizeFile(atPath path: String) -> Int32 {
    let descriptor = open(path, O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else { return errno }
    defer { close(descriptor) }
    return fsync(descriptor) == 0 ? 0 : errno
}
