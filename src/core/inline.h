// SPDX-License-Identifier: MIT
// Compiler hints for the hot paths, with plain fallbacks.
#ifndef IMPACT_CORE_INLINE_H
#define IMPACT_CORE_INLINE_H

/// For the few small functions on the hot paths, where the compiler's own
/// choice was measured to cost a call each time (a support in GJK, an
/// end-point exchange in the sweep).
#if defined(__GNUC__)
#define IMP_ALWAYS_INLINE static inline __attribute__((always_inline))
#else
#define IMP_ALWAYS_INLINE static inline
#endif

/// For a cold path split out of a hot function, so that the hot one keeps
/// a small frame.
#if defined(__GNUC__)
#define IMP_NOINLINE __attribute__((noinline))
#else
#define IMP_NOINLINE
#endif

/// Asks for the cache line at p ahead of its use (no effect on the program's
/// meaning; p need not be dereferenceable).
#if defined(__GNUC__)
#define IMP_PREFETCH(p) __builtin_prefetch(p)
#else
#define IMP_PREFETCH(p) ((void)(p))
#endif

#endif
