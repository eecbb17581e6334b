// pokesync's process start (start.c): code the loader runs before Swift's main, nothing to
// call. The header exists because a C target needs one; Swift imports nothing from it.
#ifndef CPROCESSSTART_H
#define CPROCESSSTART_H
#endif
