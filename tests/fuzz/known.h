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
	{"shape.hull_holds_points:box3", 3},                                                          \
	{"shape.hull_holds_points:polygon", 4},                                                       \
	{"equivalent.distance:box3", 3},                                                              \
	{"shape.hull_holds_points:box2", 5}, /* half sizes of 1e-200: the same underflow as 5 */         \
	{"closest.finite", 6},                                                                        \
	{"toi.finite", 6},                                                                            \
	{"closest.witness", 6},                                                                       \
	{"world.distance_finite", 6},                                                                 \
	{"shape.aabb:ellipsoid", 5},                                                                  \
	{"shape.aabb_finite:ellipsoid", 5},                                                           \
	{"world.leak", 8},                                                                            \
	{"world.failed_call_hash:update", 9},                                                         \
	{"world.failed_call_hash:step", 9},                                                           \
	{"world.ray_point", 11},                                                                      \
	{"cache.closest:penetration", 15},                                                            \
	/* 16: not in the issue's list, found by fuzz_pairwise: an EPA stopped by                      \
	   epa_max_iterations answers IMP_STATE_OVERLAPPING, not IMP_STATE_ITERATION_LIMIT, with a       \
	   depth 18% off (finding-cylinders-epa-limit) */                                              \
	{"options.closest", 16},                                                                      \
	/* 17: not in the issue's list, found by fuzz_world and not analysed yet: imp_world_nearest2   \
	   answers -144211.9 where the deepest imp_closest2 of the bodies is -6.56                    \
	   (finding-nearest-deeper) */                                                                 \
	{"world.nearest", 17},                                                                        \
	{NULL, 0},                                                                                    \
}

#define FZ_KNOWN_FILES {                                                                             \
	{"finding-query-leak", 8}, /* LeakSanitizer fails the sanitizer builds at exit */               \
	{"finding-hash-beta-oom", 13}, /* over 2 GB */                                                  \
	{"seed-d13-hash-beta", 13},                                                                   \
	{"finding-ellipsoid-stack-overflow", 2}, /* AddressSanitizer: closest3_general */              \
	{"finding-epa-count-segv", 2}, /* a segmentation fault in the plain -O2 gcc build too */        \
	{NULL, 0},                                                                                    \
}

#endif
