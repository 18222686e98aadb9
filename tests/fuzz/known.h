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
	{NULL, 0},                                                                                    \
}

#endif
