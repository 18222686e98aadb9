// SPDX-License-Identifier: MIT
// The tests' random numbers: a 64-bit linear congruential generator (Knuth's
// MMIX constants), its top 53 bits as a double in [0, 1). Each test seeds
// its own, so that every run draws the same cases.
#ifndef IMPACT_TEST_RNG_H
#define IMPACT_TEST_RNG_H

#include <stdint.h>

typedef struct rng {
	uint64_t s;
} rng;

static inline double uniform(rng *r)
{
	r->s = r->s * 6364136223846793005ULL + 1442695040888963407ULL;
	return (double)(r->s >> 11) * (1.0 / 9007199254740992.0);
}

/// Uniform in [lo, hi).
static inline double range(rng *r, double lo, double hi)
{
	double u = uniform(r);
	return lo + (hi - lo) * u;
}

#endif
