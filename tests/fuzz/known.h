// SPDX-License-Identifier: MIT
/// @file known.h
/// The invariant checks of the fuzz targets that fail on today's code, each
/// with the defect of issue 20 that breaks it. A failing check listed here
/// is counted and printed, not fatal, so that the corpus replay tests stay
/// green while the fixes are made; IMPACT_FUZZ_STRICT=1 makes them fatal.
/// Remove an entry once its defect's fix is merged, and run the replay.
/// Defects 16 to 18 are not in the issue: this campaign found them.
///
/// FZ_KNOWN_FILES lists corpus inputs that crash today (a sanitizer report
/// or an abort the check list cannot hold back): the replay skips them.
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
	/* found by a 10-minute run (seed 7) after the fixes, not analysed yet:                     \
	   NaN witnesses with IMP_OK (21: a box and a polytope, separated by 5e-312; 22: two polygons,    \
	   touching; 23: a box and a capsule, touching at -1.8e-40; 24: a world body's closest),      \
	   and a warm cache answering 2.5e20 where the cold query answers 0 (25: a cone and a          \
	   polytope). The replay skips them until they are fixed. */                                   \
	{"finding-cone-polytope-cache", 25},                                                          \
	/* the same run, also not analysed yet: a warm cache against a cold query (26: a polygon and \
	   a box, depth 41 against -2e21; 27: a capsule and a cone, 2.4e12 against 0); NaN witnesses \
	   (28: a sphere and a polytope); a normal of length 1.01 (29: an ellipsoid and a capsule);   \
	   options changing a depth of 5.56e21 in its fourth digit (30); an input slower than the   \
	   fuzzer's 30 s (35). */                                                                      \
	{"finding-polygon-box2-warm-depth", 26},                                                      \
	{"finding-capsule3-cone-cache", 27},                                                          \
	{"finding-polytope-cone-options", 30},                                                        \
	{"finding-world-slow", 35},                                                                   \
	{NULL, 0},                                                                                    \
}

#endif
