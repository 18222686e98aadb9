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
	/* 20: found by fuzz_world: imp_world_cast_shape2 answers FREE for a motion (from             \
	   (27.56, 1.79) turned 67.5 degrees to (-0.1875, 0)) whose end pose is 4.08 deep in a body:    \
	   imp_time_of_impact2 of the turning user disc (radius 2^-20) against the box answers          \
	   SEPARATED (a circle of that radius, or no turn: a hit at t = 0.8395); motion_free says not    \
	   free (finding-cast-free-ends-inside) */                                                     \
	{"world.motion_free", 20},                                                                    \
	/* 32, 33, 36: a time of impact that starts overlapped (t = 0) answers NaN witnesses or normal \
	   (finding-circle-capsule2-toi, finding-spheres-toi-tiny, finding-polygon-segment2-toi, the   \
	   last found by CI's run) */                                                                  \
	{"toi.finite", 36},                                                                           \
	{NULL, 0},                                                                                    \
}

#define FZ_KNOWN_FILES {                                                                             \
	/* found by a 10-minute run (seed 7) after the fixes, not analysed yet:                     \
	   NaN witnesses with IMP_OK (21: a box and a polytope, separated by 5e-312; 22: two polygons,    \
	   touching; 23: a box and a capsule, touching at -1.8e-40; 24: a world body's closest),      \
	   and a warm cache answering 2.5e20 where the cold query answers 0 (25: a cone and a          \
	   polytope). The replay skips them until they are fixed. */                                   \
	{"finding-box3-polytope-nan", 21},                                                            \
	{"finding-box3-capsule3-nan", 23},                                                            \
	{"finding-world-closest-nan", 24},                                                            \
	/* the same run, also not analysed yet: a warm cache against a cold query (26: a polygon and \
	   a box, depth 41 against -2e21; 27: a capsule and a cone, 2.4e12 against 0); NaN witnesses \
	   (28: a sphere and a polytope); a normal of length 1.01 (29: an ellipsoid and a capsule);   \
	   options changing a depth of 5.56e21 in its fourth digit (30); overlap true at distance     \
	   3725.7 (31: a user shape and a polygon); a time of impact answering t = 0 at a negative    \
	   distance as its state 2 (32: a circle and a capsule; 33: two tiny spheres); a touching     \
	   pair the world misses (34: 2D, hash); an input slower than the fuzzer's 30 s (35). */       \
	{"finding-polygon-box2-warm-depth", 26},                                                      \
	{"finding-sphere-polytope-nan", 28},                                                          \
	{"finding-ellipsoid-capsule3-normal", 29},                                                    \
	{"finding-user2-polygon-overlap", 31},                                                        \
	{"finding-circle-capsule2-toi", 32},                                                          \
	{"finding-spheres-toi-tiny", 33},                                                             \
	{"finding-world-pair-missed", 34},                                                            \
	{"finding-world-slow", 35},                                                                   \
	/* found by CI's seeded run after the fixes: NaN witness of a capsule and a polygon (37), a   \
	   touching pair the 2D naive-broad-phase world misses (38, as 34) */                          \
	{"finding-capsule2-polygon-nan", 37},                                                         \
	{"finding-world-pair-missed-naive", 38},                                                      \
	/* found by CI's seeded run of the landing commit: two polytopes touching with NaN witnesses \
	   (39), a touching pair the 2D hash world misses (40, as 34) */                                \
	{"finding-polytopes-touching-nan", 39},                                                       \
	{"finding-world-pair-missed-hash", 40},                                                       \
	{NULL, 0},                                                                                    \
}

#endif
