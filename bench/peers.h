// SPDX-License-Identifier: MIT
/// @file peers.h
/// What narrow2d compares impact with: a brute-force separating-axis test
/// (sat2d.c, always built), Box2D 2.4's b2Distance (peer_box2d.cpp, when
/// HAVE_BOX2D) and libccd's GJK and MPR (peer_ccd.c, when HAVE_CCD). Each peer
/// keeps its own copy of a cell in its own number format; the loops run inside
/// the peer's file so that every method pays one library call per pair.
#ifndef IMPACT_BENCH_PEERS_H
#define IMPACT_BENCH_PEERS_H

#include <stdbool.h>

#include "dataset2d.h"

#ifdef __cplusplus
extern "C" {
#endif

/// Separating-axis test from local vertices and poses: transforms both
/// polygons, then tries every edge normal of a, then of b, and stops at the
/// first that separates. Touching counts as overlapping. Counts up to
/// DS_MAX_VERTICES.
bool sat2d_overlap(const imp_vec2 *va, int na, imp_pose2 pa, const imp_vec2 *vb, int nb, imp_pose2 pb);

#ifdef HAVE_BOX2D
typedef struct b2p_set b2p_set;

/// Box2D's version, "2.4.1".
const char *b2p_version(void);
/// Float copies of a cell's vertices and poses. NULL when out of memory.
b2p_set *b2p_create(const ds_cell *cell);
void b2p_destroy(b2p_set *set);
/// b2Distance on pairs 0 .. count-1 in order, fresh cache each call: the sum
/// of the distances.
double b2p_distance_loop(const b2p_set *set, int count);
/// The same calls answering Level 1 as Box2D's b2TestOverlap does
/// (distance < 10 * b2_epsilon): the number of overlapping pairs.
int b2p_overlap_loop(const b2p_set *set, int count);
/// One b2Distance on pair i: the distance, its iterations and witnesses.
double b2p_distance_one(const b2p_set *set, int i, int *iterations, imp_vec2 *wa, imp_vec2 *wb);
/// Box2D's Level-1 answer for pair i.
bool b2p_overlap_one(const b2p_set *set, int i);
#endif

#ifdef HAVE_CCD
typedef struct ccdp_set ccdp_set;

/// The polygons of a cell as prisms z in [-0.5, 0.5] for libccd. NULL when
/// out of memory.
ccdp_set *ccdp_create(const ds_cell *cell);
void ccdp_destroy(ccdp_set *set);
/// ccdGJKIntersect / ccdMPRIntersect on pairs 0 .. count-1: how many intersect.
int ccdp_gjk_loop(const ccdp_set *set, int count);
int ccdp_mpr_loop(const ccdp_set *set, int count);
bool ccdp_gjk_one(const ccdp_set *set, int i);
bool ccdp_mpr_one(const ccdp_set *set, int i);
#endif

#ifdef __cplusplus
}
#endif

#endif
