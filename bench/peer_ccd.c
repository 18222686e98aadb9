// SPDX-License-Identifier: MIT
// libccd as a narrow2d peer. libccd is 3D only, so each polygon becomes a
// prism z in [-0.5, 0.5]; two prisms intersect exactly when the polygons do.
// Its support callback turns the direction into the polygon's frame and scans
// every vertex (as Box2D does); MPR also needs a point inside, the centroid.
#include <stdlib.h>

#include <ccd/ccd.h>

#include "peers.h"

typedef struct prism {
	const imp_vec2 *v; // local vertices (the data set's pool)
	int count;
	imp_pose2 pose;
	imp_vec2 centroid; // local
} prism;

struct ccdp_set {
	int count;
	prism *prisms; // a then b of each pair
	ccd_t ccd;
};

static void prism_support(const void *obj, const ccd_vec3_t *dir, ccd_vec3_t *out)
{
	const prism *p = obj;
	imp_vec2 d = imp_rot2_apply_inv(p->pose.q, imp_vec2_make(dir->v[0], dir->v[1]));
	int best = 0;
	double best_dot = imp_vec2_dot(p->v[0], d);
	for (int i = 1; i < p->count; i++) {
		double s = imp_vec2_dot(p->v[i], d);
		if (s > best_dot) {
			best_dot = s;
			best = i;
		}
	}
	imp_vec2 w = imp_pose2_apply(p->pose, p->v[best]);
	ccdVec3Set(out, w.x, w.y, dir->v[2] >= 0.0 ? 0.5 : -0.5);
}

static void prism_center(const void *obj, ccd_vec3_t *out)
{
	const prism *p = obj;
	imp_vec2 c = imp_pose2_apply(p->pose, p->centroid);
	ccdVec3Set(out, c.x, c.y, 0.0);
}

ccdp_set *ccdp_create(const ds_cell *cell)
{
	ccdp_set *set = malloc(sizeof *set);
	if (!set)
		return NULL;
	set->count = cell->count;
	set->prisms = malloc((size_t)cell->count * 2 * sizeof *set->prisms);
	if (!set->prisms) {
		free(set);
		return NULL;
	}
	for (int i = 0; i < cell->count; i++) {
		const ds_pair *pair = &cell->pairs[i];
		for (int k = 0; k < 2; k++) {
			prism *p = &set->prisms[2 * i + k];
			p->v = k ? pair->vb : pair->va;
			p->count = cell->vertices;
			p->pose = k ? pair->pb : pair->pa;
			imp_vec2 c = {0.0, 0.0};
			for (int j = 0; j < p->count; j++)
				c = imp_vec2_add(c, p->v[j]);
			p->centroid = imp_vec2_scale(1.0 / p->count, c);
		}
	}
	CCD_INIT(&set->ccd);
	set->ccd.support1 = prism_support;
	set->ccd.support2 = prism_support;
	set->ccd.center1 = prism_center;
	set->ccd.center2 = prism_center;
	// The default is no limit; a guard against a loop that never ends,
	// far above what these shapes take.
	set->ccd.max_iterations = 1000;
	return set;
}

void ccdp_destroy(ccdp_set *set)
{
	if (!set)
		return;
	free(set->prisms);
	free(set);
}

int ccdp_gjk_loop(const ccdp_set *set, int count)
{
	int n = 0;
	for (int i = 0; i < count; i++)
		n += ccdGJKIntersect(&set->prisms[2 * i], &set->prisms[2 * i + 1], &set->ccd) != 0;
	return n;
}

int ccdp_mpr_loop(const ccdp_set *set, int count)
{
	int n = 0;
	for (int i = 0; i < count; i++)
		n += ccdMPRIntersect(&set->prisms[2 * i], &set->prisms[2 * i + 1], &set->ccd) != 0;
	return n;
}

bool ccdp_gjk_one(const ccdp_set *set, int i)
{
	return ccdGJKIntersect(&set->prisms[2 * i], &set->prisms[2 * i + 1], &set->ccd) != 0;
}

bool ccdp_mpr_one(const ccdp_set *set, int i)
{
	return ccdMPRIntersect(&set->prisms[2 * i], &set->prisms[2 * i + 1], &set->ccd) != 0;
}
