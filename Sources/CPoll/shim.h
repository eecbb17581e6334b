// The readiness interface `serve` waits on: epoll on Linux (Glibc's module does not
// include it). Other platforms use poll(2) from their C library and need nothing here.
#ifdef __linux__
#include <sys/epoll.h>
#endif
