// SPDX-License-Identifier: MIT
/// @file fuzz.h
/// What the fuzz targets share: a reader that turns bytes into mostly
/// sensible values (small integers, a few exponents) with some chance of
/// extreme ones, shapes and poses made from it, and the report of a broken
/// invariant. Each target is one LLVMFuzzerTestOneInput; libFuzzer drives
/// it in the clang fuzz build, replay.c over the committed corpus in every
/// build (docs/fuzzing.md).
#ifndef IMPACT_TESTS_FUZZ_H
#define IMPACT_TESTS_FUZZ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <impact/impact.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/// The bytes of one input, read front to back; zeros once they run out.
typedef struct fz {
	const uint8_t *p;
	size_t n, i;
} fz;

uint8_t fz_u8(fz *f);
uint32_t fz_u32(fz *f);
bool fz_done(const fz *f);
/// An integer in [0, n).
int fz_int(fz *f, int n);
/// True with probability about k / 256.
bool fz_chance(fz *f, int k);
/// A coordinate: mostly a multiple of 1/64 in [-16, 16) times a power of
/// two near 1; sometimes a wide exponent; rarely an extreme value
/// (subnormals, 1e-300 .. 1e300, IMP_MAX_COORDINATE and beyond) or raw bits
/// (NaN, infinities).
double fz_num(fz *f);
/// A size: |fz_num|, mostly away from 0.
double fz_size(fz *f);
/// A rounding radius: mostly 0, else a size.
double fz_radius(fz *f);
imp_vec2 fz_vec2(fz *f);
imp_vec3 fz_vec3(fz *f);
/// A pose: mostly valid (a rotation from an angle or a normalised
/// quaternion), sometimes not (raw rotation components).
imp_pose2 fz_pose2(fz *f);
imp_pose3 fz_pose3(fz *f);

/// The absolute part of every tolerance: rounding below it (subnormal
/// results, far below the 1e-150 the guarantees start at) is not a finding.
#define FZ_TINY 1e-290

/// The relative part of the exactness checks' tolerances for a scene whose
/// largest coordinate is `scale`: 1e-9, but 1e-4 for a 3D scene beyond
/// 1e6, where docs/guarantees.md promises finite answers and their
/// invariants to 1e-4 of the scene, not exactness (a box plate 3.2e14 long
/// and 2.2e-308 thin, needle ellipsoids 1e16 to 1e22 long: up to 1.8e-5
/// seen).
double fz_rel_tol(int dim, double scale);

/// What fz_shape made, kept alive by the caller (user shapes point into it).
typedef struct fz_made {
	int kind;       ///< the constructor (FZ_* below)
	double h[3];    ///< user shapes: half sizes of a box (3D) or semi-axes of an ellipse (2D);
	                ///< cylinders and cones: their two sizes, as given to the constructor (printed only)
	int n;          ///< points: the input of a polygon or polytope, or the core's corners
	imp_vec3 pts[20]; ///< (z = 0 in 2D)
	bool equiv;     ///< the shape equals the polygon or polytope of pts rounded by radius
	double radius;
} fz_made;

/// A shape of the dimension asked (2 or 3) from the bytes, by any
/// constructor of shape.h; NULL when the library refused the arguments
/// (the refusal is checked: *out untouched). Checks what a shape promises
/// on its own: a finite box holding its supports, and a polygon or
/// polytope holding every input point.
imp_shape *fz_shape(fz *f, int dim, fz_made *m);

/// The constructors fz_shape picks from.
enum {
	FZ_POLYGON, FZ_CIRCLE, FZ_CAPSULE2, FZ_SEGMENT2, FZ_BOX2, FZ_USER2,
	FZ_POLYTOPE, FZ_SPHERE, FZ_CAPSULE3, FZ_BOX3, FZ_CYLINDER, FZ_CONE, FZ_ELLIPSOID, FZ_USER3,
};

/// The scale of the shape at the pose for relative tolerances: the
/// largest |coordinate| of its box there, of its own box and of the pose's
/// position (every number the queries form; 0 for none).
double fz_extent2(const imp_shape *s, imp_pose2 p);
double fz_extent3(const imp_shape *s, imp_pose3 p);

/// A broken invariant: `check` names it (known.h lists the ones known to
/// fail on today's code). Prints one line (the check, the message, the
/// input being replayed) and aborts, unless the check is listed as known
/// and IMPACT_FUZZ_STRICT is not set in the environment: then it is
/// counted and the run goes on. Once a known check has failed on an input,
/// the checks after it on that input are taken to follow from the same
/// defect (a flat box's wrong support makes its distances wrong too) and
/// are not fatal either.
void fz_finding(const char *check, const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 2, 3)))
#endif
	;

/// A check's name with a constructor's ("shape.aabb_finite:ellipsoid"), so
/// that known.h can list a check for one kind of shape (a static buffer).
const char *fz_named(const char *check, int kind);

/// What the target is doing, printed with a finding (a static buffer).
extern char fz_context[160];
/// The name of a constructor (FZ_*).
const char *fz_kind_name(int kind);

/// Starts an input: forgets the known defect the last one met.
void fz_begin(void);

/// The name of the input replay.c is running (for the report line).
extern const char *fz_input_name;
/// Known findings seen so far (replay.c prints the count).
extern long fz_known_count;

#endif
