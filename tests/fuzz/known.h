// SPDX-License-Identifier: MIT
/// @file known.h
/// The invariant checks of the fuzz targets that fail on today's code, each
/// with the defect of issue 20 that breaks it. A failing check listed here
/// is counted and printed, not fatal, so that the corpus replay tests stay
/// green while the fixes are made; IMPACT_FUZZ_STRICT=1 makes them fatal.
/// Remove an entry once its defect's fix is merged, and run the replay.
/// Defects 16 and 17 are not in the issue: this campaign found them.
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
	/* 17: not in the issue's list, found by fuzz_world: imp_world_nearest2 answers -144211.9      \
	   where the deepest imp_closest2 of the bodies is -6.56 (finding-nearest-deeper) */           \
	{"world.nearest", 17},                                                                        \
	/* 19: found by fuzz_world in CI's 60 s run: a ray's hit point 0.0015 off the ray at scale    \
	   50 (finding-ray-point-off) */                                                               \
	{"world.ray_point", 19},                                                                      \
	{NULL, 0},                                                                                    \
}

#define FZ_KNOWN_FILES {                                                                             \
	{NULL, 0},                                                                                    \
}

#endif
