// SPDX-License-Identifier: MIT
/// @file scene_pile.h
/// The pile scenes of bench/toi (its section (d)), shared with bench/threads:
/// n dynamic bodies (2D: discs, boxes, convex polygons; 3D: spheres, boxes,
/// capsules; kind i % 3), SP_SIZE_LO to SP_SIZE_HI across, random
/// rotations, dropped from a grid into a closed container of 4 (2D) or 6
/// (3D) static wall boxes, and the physics that piles them up: gravity added
/// to the velocities before each frame, and an impulse at each contact (the
/// step's contact callback, sp_on_contact, or sp_contact for a caller that
/// finds the contacts itself).
///
/// The physics is tests/test_impulse.c's physics_on_contact (the bench's own
/// code, the same constants): linear sequential impulses, no angular
/// velocity, mass proportional to area (2D) or volume (3D), static walls of
/// infinite mass, restitution only for an approach faster than
/// SP_RESTITUTION_SPEED, a push-out of overlapping contacts, and warm
/// starting from a per-pair memory (sp_memory).
///
/// Everything comes from a fixed seed (sp_pile_seed), drawn in a fixed
/// order, so that every program and every world sees the same bodies.
/// Include bench_util.h (which needs _POSIX_C_SOURCE) first.
#ifndef IMPACT_BENCH_SCENE_PILE_H
#define IMPACT_BENCH_SCENE_PILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <impact/impact.h>

#include "bench_util.h"

#ifdef __cplusplus
extern "C" {
#endif

/// bench/toi's default seed (its scenes' and piles' seeds derive from it).
#define SP_SEED UINT64_C(0x701c0de5)
/// bench/toi's pile sizes and frames (not --smoke).
#define SP_N2 500
#define SP_N3 200
#define SP_FRAMES 600
/// A frame.
#define SP_DT (1.0 / 60.0)
#define SP_RESTITUTION 0.5
#define SP_GRAVITY 9.81
/// The push-out of an overlapping contact (Baumgarte): a separating normal
/// speed of SP_PUSH_BETA x depth / dt (dt the frame's).
#define SP_PUSH_BETA 0.2
/// Below this approach speed a contact does not bounce (Box2D's velocity
/// threshold).
#define SP_RESTITUTION_SPEED 0.5
/// A pair reported in the last frame (bench/toi's fixed interval: the last
/// substep) with a normal within SP_WARM_NORMAL (the cosine) of the one it
/// has now, approaching slower than SP_RESTITUTION_SPEED, first takes this
/// much of the impulse it took then (warm starting).
#define SP_WARM_START 0.98
#define SP_WARM_NORMAL 0.99
/// Bodies are SP_SIZE_LO to SP_SIZE_HI across (the diameter of their bound
/// circle or sphere about the origin), on a grid of this pitch.
#define SP_SIZE_LO 0.2
#define SP_SIZE_HI 0.4
#define SP_PITCH 0.45
#define SP_WALL 0.25

/// A pile scene: the dynamic bodies (0 .. n-1) and the walls (n .. count-1).
typedef struct sp_pile {
	int dim, n, count;
	imp_shape **shape;  ///< one per body (random sizes), owned
	double *reach;      ///< bound radius about the origin
	double *inv_mass;   ///< 0 for the walls
	imp_pose2 *pose2;   ///< start poses, 2D only (rotations never change: no angular velocity)
	imp_pose3 *pose3;   ///< 3D only
	double inside[3];   ///< the container's inside: [0, inside[a]] on each axis
	double drop;        ///< the highest start height of a body's origin
	double tol_min, tol_max; ///< the range of the pairs' contact tolerances
	int kinds[3];       ///< bodies of each shape kind
} sp_pile;

/// What the physics remembers of a pair (tests/test_impulse.c's
/// contact_memory): the impulse it gave the pair in the frame it was last
/// reported in (bench/toi's fixed interval: the substep), to warm-start the
/// next.
typedef struct sp_memory {
	uint64_t key;   ///< a.index << 32 | b.index (the ids' indices; 0: empty slot)
	long frame;     ///< the frame it was last reported in
	double impulse; ///< the impulse it took then, along the normal
	imp_vec3 normal;
} sp_memory;

/// A world holding a pile, and the physics' state.
typedef struct sp_sim {
	const sp_pile *p;
	imp_world *w;
	imp_body_id *ids;
	int *body_of; ///< id index - 1 -> body
	int slots;
	double dt;    ///< SP_DT
	sp_memory *memory; ///< open addressing, memory_size slots (a power of two)
	size_t memory_size, memory_used;
	long frame;    ///< the frame being stepped, from 1: the caller counts it
	imp_status bad; ///< the first error of a call made inside the step's callback
} sp_sim;

/// A uniformly random rotation (Shoemake 1992), normalised: bench/toi's.
imp_quat sp_random_quat(bench_rng *r);

/// The contact tolerance of a pair with the default step options
/// (imp_step_opts.tolerance 0; world.h): 1e-6 x the smaller of the two
/// shapes' bound diameters, the larger when one is a point (bound radius, or
/// reach: the largest distance of a point of the shape from the body's
/// origin).
double sp_contact_tolerance(double reach_a, double reach_b);

/// bench/toi's seed of its dim-D pile of n bodies.
uint64_t sp_pile_seed(int dim, int n);

/// Makes a pile scene of n dynamic bodies: a grid of them (random shapes,
/// sizes and rotations, no two overlapping) in a closed container of 4 (2D)
/// or 6 (3D) static wall boxes. False when out of memory or a shape failed
/// (free it with sp_pile_free all the same).
bool sp_pile_make(sp_pile *p, int dim, int n, uint64_t seed);
void sp_pile_free(sp_pile *p);

/// A world of the pile's bodies (the dynamic ones at rest), the given broad
/// phase, margin and worker count. False (with a message on stderr, `who`
/// its prefix) on a failure, the sim destroyed.
bool sp_sim_create(sp_sim *s, const sp_pile *p, imp_broad_kind kind, double margin, int workers, const char *who);
void sp_sim_destroy(sp_sim *s);

/// The body of a world id, -1 when it is none of the pile's.
int sp_body_of(const sp_sim *s, imp_body_id id);

/// Body i's linear velocity in the world (0 for a wall); a failure is kept
/// in s->bad.
imp_vec3 sp_velocity(sp_sim *s, int i);
/// Sets body i's linear velocity in the world (nothing for a wall).
void sp_set_velocity(sp_sim *s, int i, imp_vec3 v);

/// Gravity for a frame: every dynamic body's velocity in the world gets
/// -SP_GRAVITY x dt along y.
void sp_gravity(sp_sim *s);

/// The physics (tests/test_impulse.c's physics_on_contact): the contact of
/// bodies a and b (ids ia, ib) whose normal n points from a to b, at signed
/// distance `distance`, with relative normal speed vn (b's point relative to
/// a's; negative when they approach) and velocities *va, *vb. On the pair's
/// first report in the frame, when it was reported in the last one with a
/// normal within SP_WARM_NORMAL of n and approaches slower than
/// SP_RESTITUTION_SPEED, it first takes SP_WARM_START x the impulse it took
/// then. Then vn is raised to max(bounce, push-out) by an impulse
/// j = (target - vn) / (1/ma + 1/mb) along n: bounce = -restitution vn for
/// an approach faster than SP_RESTITUTION_SPEED (else 0), push-out =
/// SP_PUSH_BETA x depth / dt for an overlap. A contact separating fast
/// enough is left alone. Returns whether the velocities changed; sets
/// s->bad when out of memory.
bool sp_contact(sp_sim *s, int a, int b, imp_body_id ia, imp_body_id ib, imp_vec3 n, double distance, double vn,
		imp_vec3 *va, imp_vec3 *vb);

/// The step's contact callback (imp_step_opts.on_contact, user an sp_sim):
/// sp_contact on the velocities in the world, at the contact's time.
void sp_on_contact(const imp_contact_event *e, void *user);

#ifdef __cplusplus
}
#endif

#endif
