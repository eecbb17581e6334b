// What `serve`'s event loops need from Linux beyond Glibc's module: epoll, and glibc's
// allocator settings (mallopt, malloc_trim). Other platforms use poll(2) from their C
// library and their own allocator, and need nothing here.
#ifdef __linux__
#include <sys/epoll.h>
#include <malloc.h>
#endif
