// SPDX-License-Identifier: MIT
/// @file known.h
/// The invariant checks of the fuzz targets that fail on today's code, each
/// with the defect of issue 20 that breaks it. A failing check listed here
/// is counted and printed, not fatal, so that the corpus replay tests stay
/// green while the fixes are made; IMPACT_FUZZ_STRICT=1 makes them fatal.
/// Remove an entry once its defect's fix is merged, and run the replay.
/// Defects 16 to 18 are not in the issue: this campaign found them.
///
/// FZ_KNOWN_FILES lists corpus inputs the replay skips: ones that crash today
/// (a sanitizer report or an abort the check list cannot hold back), or too
/// slow for the suite.
#ifndef IMPACT_TESTS_FUZZ_KNOWN_H
#define IMPACT_TESTS_FUZZ_KNOWN_H

typedef struct fz_known {
	const char *name; ///< a check name, or a corpus file name (FZ_KNOWN_FILES)
	int defect;       ///< issue 20's defect number
} fz_known;

#define FZ_KNOWN_CHECKS {                                                                            \
	{NULL, 0},                                                                                    \
}

#define FZ_KNOWN_FILES {                                                                             \
	/* 35: not a wrong answer but a slow one (2.7 s of CPU at -O2, 12 s under the sanitizers): its \
	   steps look at one pair 196,624 times (three steps at the per-pair cap, max_pair_calls =   \
	   65,536), a user disc 144,225 deep in a box, each look an EPA on the curved user shape. The \
	   replay skips it to keep the suite fast. */                                                  \
	{"finding-world-slow", 35},                                                                   \
	/* 43, 44 (a 10-minute local run, seed 20): a curved user shape's depth after the expanding \
	   polygon's limit, refined to another local minimum: a user circle of radius 510 in a thin     \
	   polygon, 510.125 with the options against 510 with the defaults; a user ellipse and a      \
	   segment, 3480.16 against 3476.63. A check that every other edge allows the refined depth   \
	   fixed both but doubled the answers at the iteration limit elsewhere; not fixed yet. */        \
	{"finding-user2-polygon-refine-options", 43},                                                 \
	{"finding-user2-segment-refine-options", 44},                                                 \
	/* 45 (a 10-minute local run, seed 31): an ellipsoid at the centre of a box plate 3.2e14 x 3  \
	   x 2.2e-308, about 2.90 deep, answered -1.498 touching one way and -2.2e-308 the other, with  \
	   witnesses 5e8 apart. */                                                                     \
	{"finding-ellipsoid-flat-plate-depth", 45},                                                   \
	/* 47, 49 (15-minute fork-mode runs on the merged fixes, seeds 201 and 202): a needle cone  \
	   level with a cylinder's cap, 5.3e-8 apart warm and cold at 42 (47: the rim finish does not \
	   cover a curved side against the rim); a box and an ellipsoid with options,                 \
	   witnesses 1.1e15 apart at distance -2.3e-32 on a scene of 2e22 (49). */                     \
	{"finding-cone-cylinder-cache", 47},                                                          \
	{"finding-box3-ellipsoid-flat-witness", 49},                                                  \
	{NULL, 0},                                                                                    \
}

#endif
