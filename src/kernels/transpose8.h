/* transpose8.h — an 8 x 8 block of floats transposed in AVX2 registers: gemm.c's transposes of
 * constant weights, wgemm.c's stores of its tiles. Internal to src/kernels/; x86-64 with GCC or
 * clang. */
#ifndef EIR_KERNELS_TRANSPOSE8_H
#define EIR_KERNELS_TRANSPOSE8_H

#include <immintrin.h>
#include <stdint.h>

/* the 8 x 8 block at src (rows ls apart) into dst (rows ld apart), transposed */
__attribute__((target("avx2"))) static inline void eir_transpose8(float *dst, int64_t ld, const float *src, int64_t ls) {
    __m256 r0 = _mm256_loadu_ps(src), r1 = _mm256_loadu_ps(src + ls), r2 = _mm256_loadu_ps(src + 2 * ls),
           r3 = _mm256_loadu_ps(src + 3 * ls), r4 = _mm256_loadu_ps(src + 4 * ls), r5 = _mm256_loadu_ps(src + 5 * ls),
           r6 = _mm256_loadu_ps(src + 6 * ls), r7 = _mm256_loadu_ps(src + 7 * ls);
    /* pairs of rows interleaved, then pairs of pairs: s_c holds columns c and c + 4 of the rows'
     * 128-bit halves; the halves are then put together per column */
    __m256 t0 = _mm256_unpacklo_ps(r0, r1), t1 = _mm256_unpackhi_ps(r0, r1), t2 = _mm256_unpacklo_ps(r2, r3),
           t3 = _mm256_unpackhi_ps(r2, r3), t4 = _mm256_unpacklo_ps(r4, r5), t5 = _mm256_unpackhi_ps(r4, r5),
           t6 = _mm256_unpacklo_ps(r6, r7), t7 = _mm256_unpackhi_ps(r6, r7);
    __m256 s0 = _mm256_shuffle_ps(t0, t2, 0x44), s1 = _mm256_shuffle_ps(t0, t2, 0xEE),
           s2 = _mm256_shuffle_ps(t1, t3, 0x44), s3 = _mm256_shuffle_ps(t1, t3, 0xEE),
           s4 = _mm256_shuffle_ps(t4, t6, 0x44), s5 = _mm256_shuffle_ps(t4, t6, 0xEE),
           s6 = _mm256_shuffle_ps(t5, t7, 0x44), s7 = _mm256_shuffle_ps(t5, t7, 0xEE);
    _mm256_storeu_ps(dst, _mm256_permute2f128_ps(s0, s4, 0x20));
    _mm256_storeu_ps(dst + ld, _mm256_permute2f128_ps(s1, s5, 0x20));
    _mm256_storeu_ps(dst + 2 * ld, _mm256_permute2f128_ps(s2, s6, 0x20));
    _mm256_storeu_ps(dst + 3 * ld, _mm256_permute2f128_ps(s3, s7, 0x20));
    _mm256_storeu_ps(dst + 4 * ld, _mm256_permute2f128_ps(s0, s4, 0x31));
    _mm256_storeu_ps(dst + 5 * ld, _mm256_permute2f128_ps(s1, s5, 0x31));
    _mm256_storeu_ps(dst + 6 * ld, _mm256_permute2f128_ps(s2, s6, 0x31));
    _mm256_storeu_ps(dst + 7 * ld, _mm256_permute2f128_ps(s3, s7, 0x31));
}

#endif
