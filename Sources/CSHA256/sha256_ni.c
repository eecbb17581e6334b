// SHA-256 compression with the x86 SHA extensions (FIPS 180-4 rounds, done by
// sha256rnds2 two at a time; the message schedule by sha256msg1/sha256msg2).
//
// The instructions keep the eight working variables in two registers ordered ABEF and
// CDGH, so the state is shuffled into that order once per call and back at the end, not
// per block. Each group of four rounds adds four round constants to four schedule words
// and runs two sha256rnds2 (the second on the upper half, moved down by a shuffle).
// The schedule words for group i+1 are finished while group i runs: msg1 does the
// sigma0 part three groups ahead, msg2 the sigma1 part, with the W[t-7] term taken by
// alignr from the two previous groups.
//
// The function carries its own target attribute, so no global compiler flags are
// needed and the rest of the package keeps the baseline ISA; callers check
// csha256_ni_available() first.
#include "csha256.h"

#if defined(__x86_64__) || defined(__i386__)

#include <immintrin.h>

static const uint32_t round_constants[64] __attribute__((aligned(16))) = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

int csha256_ni_available(void) {
    __builtin_cpu_init();
    return __builtin_cpu_supports("sha") && __builtin_cpu_supports("sse4.1") && __builtin_cpu_supports("ssse3");
}

// Four rounds: schedule words `words` (W[4g..4g+3]) plus their constants; the first
// sha256rnds2 takes the low two sums, the second the high two.
#define FOUR_ROUNDS(words, group)                                                              \
    do {                                                                                       \
        __m128i sums = _mm_add_epi32((words),                                                  \
            _mm_load_si128((const __m128i *)&round_constants[4 * (group)]));                   \
        cdgh = _mm_sha256rnds2_epu32(cdgh, abef, sums);                                        \
        abef = _mm_sha256rnds2_epu32(abef, cdgh, _mm_shuffle_epi32(sums, 0x0E));               \
    } while (0)

// next = W for the group after `current`: adds W[t-7] (alignr of current and previous)
// to next's sigma0 part (from msg1) and lets msg2 add the sigma1 terms.
#define SCHEDULE_NEXT(next, current, previous)                                                 \
    (next) = _mm_sha256msg2_epu32(_mm_add_epi32((next), _mm_alignr_epi8((current), (previous), 4)), (current))

// older = W[t-16] + sigma0(W[t-15]) for the group three ahead.
#define SCHEDULE_SIGMA0(older, current) (older) = _mm_sha256msg1_epu32((older), (current))

__attribute__((target("sha,sse4.1,ssse3")))
void csha256_ni_compress(uint32_t state[8], const uint8_t *blocks, size_t count) {
    // Message words are big-endian: byte-swap each 32-bit lane on load.
    const __m128i byte_swap = _mm_set_epi64x(0x0c0d0e0f08090a0bLL, 0x0405060700010203LL);

    // state[0..3] = A B C D and state[4..7] = E F G H (lane 0 first) into ABEF / CDGH
    // (lane 3 first, as sha256rnds2 reads them).
    __m128i dcba = _mm_loadu_si128((const __m128i *)&state[0]);
    __m128i hgfe = _mm_loadu_si128((const __m128i *)&state[4]);
    __m128i cdab = _mm_shuffle_epi32(dcba, 0xB1);
    __m128i efgh = _mm_shuffle_epi32(hgfe, 0x1B);
    __m128i abef = _mm_alignr_epi8(cdab, efgh, 8);
    __m128i cdgh = _mm_blend_epi16(efgh, cdab, 0xF0);

    while (count > 0) {
        count -= 1;
        const __m128i abef_before = abef;
        const __m128i cdgh_before = cdgh;

        __m128i w0 = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(blocks + 0)), byte_swap);
        __m128i w1 = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(blocks + 16)), byte_swap);
        __m128i w2 = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(blocks + 32)), byte_swap);
        __m128i w3 = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(blocks + 48)), byte_swap);

        // Groups 0-3 use the block's own words; from group 1 on, msg1 starts the words
        // three groups ahead, and from group 3 on msg2 finishes the next group's.
        FOUR_ROUNDS(w0, 0);
        FOUR_ROUNDS(w1, 1);  SCHEDULE_SIGMA0(w0, w1);
        FOUR_ROUNDS(w2, 2);  SCHEDULE_SIGMA0(w1, w2);
        FOUR_ROUNDS(w3, 3);  SCHEDULE_NEXT(w0, w3, w2); SCHEDULE_SIGMA0(w2, w3);
        FOUR_ROUNDS(w0, 4);  SCHEDULE_NEXT(w1, w0, w3); SCHEDULE_SIGMA0(w3, w0);
        FOUR_ROUNDS(w1, 5);  SCHEDULE_NEXT(w2, w1, w0); SCHEDULE_SIGMA0(w0, w1);
        FOUR_ROUNDS(w2, 6);  SCHEDULE_NEXT(w3, w2, w1); SCHEDULE_SIGMA0(w1, w2);
        FOUR_ROUNDS(w3, 7);  SCHEDULE_NEXT(w0, w3, w2); SCHEDULE_SIGMA0(w2, w3);
        FOUR_ROUNDS(w0, 8);  SCHEDULE_NEXT(w1, w0, w3); SCHEDULE_SIGMA0(w3, w0);
        FOUR_ROUNDS(w1, 9);  SCHEDULE_NEXT(w2, w1, w0); SCHEDULE_SIGMA0(w0, w1);
        FOUR_ROUNDS(w2, 10); SCHEDULE_NEXT(w3, w2, w1); SCHEDULE_SIGMA0(w1, w2);
        FOUR_ROUNDS(w3, 11); SCHEDULE_NEXT(w0, w3, w2); SCHEDULE_SIGMA0(w2, w3);
        FOUR_ROUNDS(w0, 12); SCHEDULE_NEXT(w1, w0, w3); SCHEDULE_SIGMA0(w3, w0);
        FOUR_ROUNDS(w1, 13); SCHEDULE_NEXT(w2, w1, w0);
        FOUR_ROUNDS(w2, 14); SCHEDULE_NEXT(w3, w2, w1);
        FOUR_ROUNDS(w3, 15);

        abef = _mm_add_epi32(abef, abef_before);
        cdgh = _mm_add_epi32(cdgh, cdgh_before);
        blocks += 64;
    }

    // Back from ABEF / CDGH to A..D and E..H in lane order.
    __m128i feba = _mm_shuffle_epi32(abef, 0x1B);
    __m128i dchg = _mm_shuffle_epi32(cdgh, 0xB1);
    _mm_storeu_si128((__m128i *)&state[0], _mm_blend_epi16(feba, dchg, 0xF0));
    _mm_storeu_si128((__m128i *)&state[4], _mm_alignr_epi8(dchg, feba, 8));
}

#else

// Not x86: no SHA-NI. PokeArchive checks availability first and uses its Swift rounds.
int csha256_ni_available(void) {
    return 0;
}

void csha256_ni_compress(uint32_t state[8], const uint8_t *blocks, size_t count) {
    (void)state;
    (void)blocks;
    (void)count;
    __builtin_trap();  // never called: csha256_ni_available() is 0 here
}

#endif
