#if canImport(Glibc)
import CPoll
#endif
import Dispatch
import PokeLocking

/// Gives the pages the allocator holds free back to the system, every 25 ms at most and
/// only after the body cache has let go of a megabyte or more: glibc returns free memory
/// at the top of its heap, not the holes evicted bodies leave inside it. A crawl fills the
/// cache with small bodies, then the documents clients ask for push them out: without this,
/// those holes stayed resident (about 10 MB in the first 8 s after a whole-API crawl, peak
/// RSS 99 to 109 MB, see Serving.md). Bodies kept gzip'd only are many and small: a plain
/// run that pushes them out took serve past 100 MB with 0.1 s between trims. Runs on its
/// own queue, never a worker's; a trim walks the allocator's free lists.
final class FreedMemoryTrimmer {
    private let timer: any DispatchSourceTimer
    static let intervalSeconds = 0.025
    static let evictedBytesBetweenTrims = 1 << 20

    init(cache: BodyCache) {
        timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "pokesync-serve-trim"))
        timer.schedule(deadline: .now() + Self.intervalSeconds, repeating: Self.intervalSeconds, leeway: .milliseconds(20))
        let trimmedAt = Locked(0)
        timer.setEventHandler {
            let evicted = cache.evictedBytes
            guard trimmedAt.withLock({ last in
                guard evicted - last >= Self.evictedBytesBetweenTrims else { return false }
                last = evicted
                return true
            }) else { return }
            #if os(Linux)
            _ = malloc_trim(0)
            #endif
        }
        timer.resume()
    }

    func stop() { timer.cancel() }
}
