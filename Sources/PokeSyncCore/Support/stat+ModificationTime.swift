#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension stat {
    /// The modification time in nanoseconds since 1970. glibc names the field `st_mtim`,
    /// Darwin `st_mtimespec`: every reader of the time goes through here, so that the
    /// command line builds on both.
    package var modificationNanoseconds: Int64 {
        #if canImport(Darwin)
        let time = st_mtimespec
        #else
        let time = st_mtim
        #endif
        return Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec)
    }
}
