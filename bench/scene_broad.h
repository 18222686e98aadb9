// SPDX-License-Identifier: MIT
/// @file scene_broad.h
/// The scenes of bench/broad: N axis-aligned boxes in 2D or 3D, moving a
/// little every frame, with about three overlaps per box.
///
/// Kinds:
/// - uniform: every side uniform in [0.5, 1.5], centres uniform in a cube
///   (square) world; every box moves each frame with its own constant
///   velocity of 1% of its mean side, bouncing off the world's walls.
/// - sizes: a scale log-uniform in [0.1, 10] per box, each side the scale
///   times a factor log-uniform in [0.8, 1.25] (sides 0.08 to 12.5); the
///   same motion.
/// - pile: the uniform kind's sizes, resting one box thick on the floor
///   y = 0 (y is up in 2D and 3D), spread over x (and z in 3D); every frame
///   each box is put back at its rest position plus a jitter uniform in
///   +-1e-3 of its side on every axis.
/// - jump: the uniform kind, and every frame 1% of the boxes (drawn at
///   random, from the scene's seed) jump to a place uniform in the world
///   (teleports, respawns): the case that costs a sort-and-sweep the
///   end-points passed, and a hash only the cells left and entered.
///
/// The density is calibrated so that the number of overlapping pairs is
/// about 1.5 N (each box overlaps about 3 others): the world's free sides
/// (all axes; x and z only for the pile, whose boxes all overlap in y) are
/// computed from the sizes, then corrected once from a measured count.
/// Everything comes from a fixed seed, so every method sees the same boxes
/// at every frame.
#ifndef IMPACT_BENCH_SCENE_BROAD_H
#define IMPACT_BENCH_SCENE_BROAD_H

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum sb_kind {
	SB_UNIFORM = 0,
	SB_SIZES,
	SB_PILE,
	SB_JUMP,
	SB_KIND_COUNT
} sb_kind;

/// A scene. Arrays have 3 doubles per box (z unused and 0 in 2D); the
/// current state is center, lo and hi (lo = center - half, hi = center +
/// half, exactly so computed).
typedef struct sb_scene {
	int dim;
	sb_kind kind;
	int count;
	int frame;               ///< steps since the last reset
	double world_lo[3];      ///< every box of every frame lies inside
	double world_hi[3];
	double mean_side;        ///< the mean of all boxes' sides (a cell size for the hashes)
	double *half;            ///< half sides
	double *center;
	double *lo, *hi;
	double *velocity;        ///< per frame (uniform, sizes); 0 for the pile
	double *start;           ///< centres at frame 0 (the pile: rest positions)
	double *start_velocity;
	uint64_t rng, start_rng; ///< the pile's jitter: a bench_rng state (bench_util.h)
} sb_scene;

/// "uniform", "sizes", "pile", "jump".
const char *sb_kind_name(sb_kind kind);

/// Makes a scene of `count` (>= 2) boxes at frame 0. 0 on success, -1 when
/// out of memory or the arguments are bad.
int sb_scene_make(sb_scene *s, int dim, sb_kind kind, int count, uint64_t seed);
void sb_scene_free(sb_scene *s);

/// Back to frame 0 (the same boxes, velocities and jitter sequence).
void sb_scene_reset(sb_scene *s);

/// One frame of motion: every box moves.
void sb_scene_step(sb_scene *s);

/// The exact number of overlapping pairs (closed boxes: touching counts),
/// by sort and sweep on x: the reference every method is checked against.
/// -1 when out of memory.
long sb_scene_count_pairs(const sb_scene *s);

/// True when boxes i and j overlap or touch (the exact test every peer
/// applies to the pairs its broad phase reports).
static inline bool sb_overlap(const sb_scene *s, int i, int j)
{
	const double *li = s->lo + 3 * i, *hi = s->hi + 3 * i;
	const double *lj = s->lo + 3 * j, *hj = s->hi + 3 * j;
	if (li[0] > hj[0] || lj[0] > hi[0] || li[1] > hj[1] || lj[1] > hi[1])
		return false;
	return s->dim == 2 || (li[2] <= hj[2] && lj[2] <= hi[2]);
}

#ifdef __cplusplus
}
#endif

#endif
