// CSHA256: the SHA-256 compression function on the x86 SHA extensions (SHA-NI), for
// PokeArchive's SHA256. Our own code, no third-party sources. On other architectures (the
// reader's iOS/macOS arm64 builds) it compiles to a stub that reports itself unavailable,
// and PokeArchive uses its portable Swift rounds.
#ifndef CSHA256_H
#define CSHA256_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// 1 when this CPU has the SHA extensions with SSSE3 and SSE4.1 (checked at run time),
/// else 0. Always 0 on non-x86 builds.
int csha256_ni_available(void);

/// Runs the SHA-256 compression function over `count` consecutive 64-byte blocks at
/// `blocks` (any alignment), updating `state` (H0..H7 in order, native-endian words).
/// Call only when csha256_ni_available() returned 1.
void csha256_ni_compress(uint32_t state[8], const uint8_t *blocks, size_t count);

#ifdef __cplusplus
}
#endif

#endif
