#pragma once
// What the AVX-512 kernels (q3_avx512.cpp, q4o_avx512.cpp) take from the compiler: the target
// their functions carry, as the AVX2 kernels carry theirs instead of building with -mavx2, so no
// AVX-512 code can leak into inline functions shared with the rest of the program. Include only
// in x86-64 builds with GCC or clang, and call only when avx512_q4o_kernels() is set.

// GCC 12's AVX-512 intrinsics start from _mm512_undefined_* values, which its uninitialized-use
// analysis reports once they are inlined into a kernel.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <immintrin.h>

#define KVSCOPE_AVX512_TARGET "avx512f,avx512bw,avx512dq,avx512vl,avx512vbmi,avx2,f16c,fma"
#define KVSCOPE_AVX512 __attribute__((target(KVSCOPE_AVX512_TARGET)))
#define KVSCOPE_AVX512_INLINE __attribute__((target(KVSCOPE_AVX512_TARGET), always_inline)) inline
