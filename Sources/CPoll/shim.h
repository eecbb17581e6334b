// What `serve`'s event loops need from the system beyond Glibc's module: epoll, glibc's
// allocator settings (mallopt, malloc_trim) on Linux, and a counter any thread may add to
// without a lock (every platform). Other platforms use poll(2) from their C library and
// their own allocator.
#ifdef __linux__
#include <sys/epoll.h>
#include <malloc.h>
#endif

// A byte count shared by threads: each add is one atomic instruction, no lock (the
// compiler's builtins, so Swift needs neither the Synchronization module nor C11's
// _Atomic types it cannot import). Relaxed: the count orders nothing else.
static inline long cpoll_counter_add(long *counter, long amount) {
    return __atomic_add_fetch(counter, amount, __ATOMIC_RELAXED);
}

static inline long cpoll_counter_load(long *counter) {
    return __atomic_load_n(counter, __ATOMIC_RELAXED);
}
