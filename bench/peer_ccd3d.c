// SPDX-License-Identifier: MIT
// libccd as a narrow3d peer. libccd sees shapes only through support
// callbacks in world coordinates: these turn the direction into the shape's
// frame, take the local support point and turn it back. A polytope's support
// scans every vertex (libccd has no hull, and its users' callbacks are
// usually written so); MPR also needs a point inside, the shape's centre.
#include <math.h>
#include <stdlib.h>

#include <ccd/ccd.h>

#include "peers3.h"

typedef struct ccd3_obj {
	const ds3_shape *s;
	imp_mat3 r;      // world from local
	imp_vec3 p;
	imp_vec3 center; // world
} ccd3_obj;

struct ccd3_set {
	int count;
	ccd3_obj *objs; // a then b of each pair
	ccd_t ccd;
};

static imp_vec3 local_support(const ds3_shape *s, imp_vec3 d)
{
	switch (s->kind) {
	case DS3_POLYTOPE: {
		const imp_vec3 *v = s->vertices;
		int best = 0;
		double best_dot = imp_vec3_dot(v[0], d);
		for (int i = 1; i < s->vertex_count; i++) {
			double t = imp_vec3_dot(v[i], d);
			if (t > best_dot) {
				best_dot = t;
				best = i;
			}
		}
		return v[best];
	}
	case DS3_BOX:
		return imp_vec3_make(d.x >= 0.0 ? s->size.x : -s->size.x, d.y >= 0.0 ? s->size.y : -s->size.y,
				     d.z >= 0.0 ? s->size.z : -s->size.z);
	case DS3_CAPSULE: {
		imp_vec3 end = imp_vec3_make(0.0, 0.0, d.z >= 0.0 ? s->half_length : -s->half_length);
		double l = imp_vec3_length(d);
		return l > 0.0 ? imp_vec3_add(end, imp_vec3_scale(s->radius / l, d)) : end;
	}
	case DS3_ELLIPSOID: {
		imp_vec3 q = imp_vec3_make(s->size.x * s->size.x * d.x, s->size.y * s->size.y * d.y,
					   s->size.z * s->size.z * d.z);
		double g = sqrt(imp_vec3_dot(q, d));
		return g > 0.0 ? imp_vec3_scale(1.0 / g, q) : imp_vec3_make(0.0, 0.0, 0.0);
	}
	default:
		return imp_vec3_make(0.0, 0.0, 0.0);
	}
}

static void obj_support(const void *obj, const ccd_vec3_t *dir, ccd_vec3_t *out)
{
	const ccd3_obj *o = obj;
	imp_vec3 d = imp_mat3_apply_t(&o->r, imp_vec3_make(dir->v[0], dir->v[1], dir->v[2]));
	imp_vec3 w = imp_vec3_add(imp_mat3_apply(&o->r, local_support(o->s, d)), o->p);
	ccdVec3Set(out, w.x, w.y, w.z);
}

static void obj_center(const void *obj, ccd_vec3_t *out)
{
	const ccd3_obj *o = obj;
	ccdVec3Set(out, o->center.x, o->center.y, o->center.z);
}

const char *ccd3_method_name(ccd3_method method)
{
	static const char *const names[CCD3_METHOD_COUNT] = {"ccdGJKIntersect", "ccdMPRIntersect",
							      "ccdGJKPenetration", "ccdMPRPenetration"};
	return (int)method >= 0 && method < CCD3_METHOD_COUNT ? names[method] : "?";
}

static ccd3_obj make_obj(const ds3_shape *s, imp_pose3 pose)
{
	ccd3_obj o = {s, imp_mat3_from_quat(pose.q), pose.p, pose.p};
	if (s->kind == DS3_POLYTOPE) {
		imp_vec3 c = {0.0, 0.0, 0.0};
		for (int i = 0; i < s->vertex_count; i++)
			c = imp_vec3_add(c, s->vertices[i]);
		o.center = imp_vec3_add(imp_mat3_apply(&o.r, imp_vec3_scale(1.0 / s->vertex_count, c)), pose.p);
	}
	return o;
}

ccd3_set *ccd3_create(const ds3_cell *cell)
{
	ccd3_set *set = malloc(sizeof *set);
	if (!set)
		return NULL;
	set->count = cell->count;
	set->objs = malloc((size_t)cell->count * 2 * sizeof *set->objs);
	if (!set->objs) {
		free(set);
		return NULL;
	}
	for (int i = 0; i < cell->count; i++) {
		const ds3_pair *p = &cell->pairs[i];
		set->objs[2 * i] = make_obj(p->a, p->pa);
		set->objs[2 * i + 1] = make_obj(p->b, p->pb);
	}
	CCD_INIT(&set->ccd);
	set->ccd.support1 = obj_support;
	set->ccd.support2 = obj_support;
	set->ccd.center1 = obj_center;
	set->ccd.center2 = obj_center;
	// The default is no limit; a guard against a loop that never ends,
	// far above what these shapes take.
	set->ccd.max_iterations = 1000;
	return set;
}

void ccd3_destroy(ccd3_set *set)
{
	if (!set)
		return;
	free(set->objs);
	free(set);
}

double ccd3_loop(const ccd3_set *set, ccd3_method method, int count)
{
	const ccd3_obj *o = set->objs;
	const ccd_t *ccd = &set->ccd;
	double sum = 0.0;
	ccd_real_t depth;
	ccd_vec3_t dir, pos;
	switch (method) {
	case CCD3_GJK:
		for (int i = 0; i < count; i++)
			sum += ccdGJKIntersect(&o[2 * i], &o[2 * i + 1], ccd) != 0;
		break;
	case CCD3_MPR:
		for (int i = 0; i < count; i++)
			sum += ccdMPRIntersect(&o[2 * i], &o[2 * i + 1], ccd) != 0;
		break;
	case CCD3_GJK_PENETRATION:
		for (int i = 0; i < count; i++)
			if (ccdGJKPenetration(&o[2 * i], &o[2 * i + 1], ccd, &depth, &dir, &pos) == 0)
				sum += depth;
		break;
	case CCD3_MPR_PENETRATION:
		for (int i = 0; i < count; i++)
			if (ccdMPRPenetration(&o[2 * i], &o[2 * i + 1], ccd, &depth, &dir, &pos) == 0)
				sum += depth;
		break;
	default:
		break;
	}
	return sum;
}

void ccd3_one(const ccd3_set *set, ccd3_method method, int i, peer3_answer *out)
{
	const ccd3_obj *a = &set->objs[2 * i], *b = &set->objs[2 * i + 1];
	imp_vec3 nan3 = imp_vec3_make(NAN, NAN, NAN);
	out->distance = NAN;
	out->point_a = out->point_b = out->normal = nan3;
	ccd_real_t depth = 0.0;
	ccd_vec3_t dir, pos;
	switch (method) {
	case CCD3_GJK:
		out->status = ccdGJKIntersect(a, b, &set->ccd);
		out->overlap = out->status != 0;
		return;
	case CCD3_MPR:
		out->status = ccdMPRIntersect(a, b, &set->ccd);
		out->overlap = out->status != 0;
		return;
	case CCD3_GJK_PENETRATION:
		out->status = ccdGJKPenetration(a, b, &set->ccd, &depth, &dir, &pos);
		break;
	case CCD3_MPR_PENETRATION:
		out->status = ccdMPRPenetration(a, b, &set->ccd, &depth, &dir, &pos);
		break;
	default:
		out->status = -1;
		out->overlap = false;
		return;
	}
	// 0: penetrating by depth; moving b by depth along dir makes them touch.
	out->overlap = out->status == 0;
	if (out->overlap) {
		out->distance = -depth;
		out->normal = imp_vec3_make(dir.v[0], dir.v[1], dir.v[2]);
	}
}
