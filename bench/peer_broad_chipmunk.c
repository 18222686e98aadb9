// SPDX-License-Identifier: MIT
// Chipmunk2D 7 as a bench/broad peer: its spatial indexes used directly,
// through the cpSpatialIndex interface that cpSpace uses for its shapes.
//
// The bounding-box tree (cpSpace's default) keeps each leaf's box enlarged
// by a tenth of its size, and further along the velocity the index is told
// (cpSpace tells it the body's velocity in units per second: here the
// box's velocity per frame at 60 frames a second); a leaf is reinserted
// only when its box leaves the enlarged one, and the pairs of leaves that
// did not move are kept from the frame before. The spatial hash
// (cpSpaceUseSpatialHash) hashes every box into every cell it covers, every
// frame; Chipmunk's advice is cells of about the mean object size and about
// 10 times as many cells as objects, which is what it is given here.
//
// Each frame is one cpSpatialIndexReindexQuery, which updates the index
// from the boxes the index asks for (the bounding-box function) and calls
// back each pair of overlapping (enlarged, or same-cell) boxes once; the
// callback counts the pairs whose exact boxes overlap.
#define _POSIX_C_SOURCE 200809L

#include <chipmunk/chipmunk.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "peers_broad.h"

/// The object the index holds: it asks for its box with it.
typedef struct cpbp_object {
	const sb_scene *scene;
	int index;
} cpbp_object;

struct cpbp_set {
	const sb_scene *scene;
	cpSpatialIndex *index;
	cpbp_object *objects;
};

typedef struct count_data {
	const sb_scene *scene;
	long count;
} count_data;

const char *cpbp_version(void)
{
	return cpVersionString;
}

static cpBB box_of(void *obj)
{
	const cpbp_object *o = obj;
	const double *lo = o->scene->lo + 3 * o->index, *hi = o->scene->hi + 3 * o->index;
	return cpBBNew(lo[0], lo[1], hi[0], hi[1]);
}

static cpVect velocity_of(void *obj)
{
	const cpbp_object *o = obj;
	const double *v = o->scene->velocity + 3 * o->index;
	return cpv(60.0 * v[0], 60.0 * v[1]);
}

static cpCollisionID count_pair(void *a, void *b, cpCollisionID id, void *user)
{
	count_data *d = user;
	d->count += sb_overlap(d->scene, ((const cpbp_object *)a)->index, ((const cpbp_object *)b)->index);
	return id;
}

cpbp_set *cpbp_create(const sb_scene *scene, cpbp_method method)
{
	if (scene->dim != 2)
		return NULL;
	cpbp_set *set = calloc(1, sizeof *set);
	if (!set)
		return NULL;
	set->scene = scene;
	set->objects = malloc(sizeof *set->objects * (size_t)scene->count);
	if (!set->objects) {
		free(set);
		return NULL;
	}
	if (method == CPBP_BBTREE) {
		set->index = cpBBTreeNew(box_of, NULL);
		cpBBTreeSetVelocityFunc(set->index, velocity_of);
	} else {
		set->index = cpSpaceHashNew(scene->mean_side, 10 * scene->count, box_of, NULL);
	}
	// Chipmunk aborts when out of memory: no NULL to check.
	for (int i = 0; i < scene->count; ++i) {
		set->objects[i] = (cpbp_object){scene, i};
		cpSpatialIndexInsert(set->index, &set->objects[i], (cpHashValue)(i + 1));
	}
	return set;
}

long cpbp_frame(cpbp_set *set)
{
	count_data d = {set->scene, 0};
	cpSpatialIndexReindexQuery(set->index, count_pair, &d);
	return d.count;
}

void cpbp_destroy(cpbp_set *set)
{
	if (!set)
		return;
	if (set->index)
		cpSpatialIndexFree(set->index);
	free(set->objects);
	free(set);
}
