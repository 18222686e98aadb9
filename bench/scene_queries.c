// SPDX-License-Identifier: MIT
// The static worlds of bench/queries (see scene_queries.h): bodies, query
// poses, cast ends, and the world of static bodies.
#define _POSIX_C_SOURCE 200809L

#include "scene_queries.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define PI 3.14159265358979323846

uint64_t sq_seed(int dim, int n)
{
	return 0x51E7 + (uint64_t)n * 7 + (uint64_t)dim;
}

static imp_shape *make_shape(int dim, const sq_body *b)
{
	imp_shape *s = NULL;
	imp_status st;
	if (dim == 2) {
		if (b->kind == 0)
			st = imp_shape_box2(b->half[0], b->half[1], 0.0, &s);
		else if (b->kind == 1)
			st = imp_shape_circle(imp_vec2_make(0, 0), b->radius, &s);
		else
			st = imp_shape_capsule2(imp_vec2_make(-b->half[2], 0), imp_vec2_make(b->half[2], 0), b->radius, &s);
	} else {
		if (b->kind == 0)
			st = imp_shape_box3(b->half[0], b->half[1], b->half[2], 0.0, &s);
		else if (b->kind == 1)
			st = imp_shape_sphere(imp_vec3_make(0, 0, 0), b->radius, &s);
		else
			st = imp_shape_capsule3(imp_vec3_make(0, 0, -b->half[2]), imp_vec3_make(0, 0, b->half[2]), b->radius,
						&s);
	}
	return st == IMP_OK ? s : NULL;
}

imp_quat sq_random_quat(bench_rng *r)
{
	// Shoemake's uniform rotation.
	double u1 = bench_rng_unit(r), u2 = 2 * PI * bench_rng_unit(r), u3 = 2 * PI * bench_rng_unit(r);
	double a = sqrt(1 - u1), b = sqrt(u1);
	return (imp_quat){a * sin(u2), a * cos(u2), b * sin(u3), b * cos(u3)};
}

imp_pose3 sq_random_pose3(bench_rng *r, double side)
{
	// The draws' order is the compiler's (the arguments and the initialiser
	// are unsequenced): kept as bench/queries has always had it, so that its
	// scenes stay the same.
	return (imp_pose3){imp_vec3_make(bench_rng_range(r, 0, side), bench_rng_range(r, 0, side),
					 bench_rng_range(r, 0, side)),
			   sq_random_quat(r)};
}

static void random_pose(bench_rng *r, int dim, double side, sq_body *b)
{
	if (dim == 2)
		b->p2 = imp_pose2_make(bench_rng_range(r, 0, side), bench_rng_range(r, 0, side),
				       bench_rng_range(r, 0, 2 * PI));
	else
		b->p3 = sq_random_pose3(r, side);
}

bool sq_scene_make(sq_scene *sc, int dim, int n, int nq, uint64_t seed)
{
	memset(sc, 0, sizeof *sc);
	sc->dim = dim;
	sc->n = n;
	sc->nq = nq;
	sc->side = 2.0 * pow((double)n, 1.0 / dim);
	sc->bodies = calloc((size_t)n, sizeof *sc->bodies);
	sc->shapes = calloc((size_t)n, sizeof *sc->shapes);
	sc->queries = calloc((size_t)nq, sizeof *sc->queries);
	sc->to2 = calloc((size_t)nq, sizeof *sc->to2);
	sc->to3 = calloc((size_t)nq, sizeof *sc->to3);
	if (!sc->bodies || !sc->shapes || !sc->queries || !sc->to2 || !sc->to3)
		return false;
	bench_rng r = {seed};
	for (int i = 0; i < n; i++) {
		sq_body *b = &sc->bodies[i];
		b->kind = (int)(bench_rng_unit(&r) * 3);
		for (int k = 0; k < 3; k++)
			b->half[k] = bench_rng_range(&r, 0.2, 0.6);
		b->radius = bench_rng_range(&r, 0.2, 0.5);
		random_pose(&r, dim, sc->side, b);
		sc->shapes[i] = make_shape(dim, b);
		if (sc->shapes[i] == NULL)
			return false;
	}
	sq_body q = {.kind = 0, .half = {0.5, 0.3, 0.4}};
	sc->query_shape = make_shape(dim, &q);
	for (int i = 0; i < nq; i++) {
		sc->queries[i] = q;
		random_pose(&r, dim, sc->side, &sc->queries[i]);
		// Casts: 2 units in a random direction, turning a little.
		if (dim == 2) {
			double a = bench_rng_range(&r, 0, 2 * PI);
			imp_pose2 f = sc->queries[i].p2;
			sc->to2[i] = imp_pose2_make(f.p.x + 2 * cos(a), f.p.y + 2 * sin(a),
						    atan2(f.q.s, f.q.c) + bench_rng_range(&r, -0.5, 0.5));
		} else {
			imp_quat d = sq_random_quat(&r);
			double l = sqrt(d.x * d.x + d.y * d.y + d.z * d.z);
			imp_pose3 f = sc->queries[i].p3;
			sc->to3[i] = (imp_pose3){imp_vec3_add(f.p, imp_vec3_make(2 * d.x / l, 2 * d.y / l, 2 * d.z / l)), f.q};
		}
	}
	return sc->query_shape != NULL;
}

void sq_scene_free(sq_scene *sc)
{
	for (int i = 0; i < sc->n && sc->shapes; i++)
		imp_shape_destroy(sc->shapes[i]);
	imp_shape_destroy(sc->query_shape);
	free(sc->bodies);
	free(sc->shapes);
	free(sc->queries);
	free(sc->to2);
	free(sc->to3);
	memset(sc, 0, sizeof *sc);
}

imp_world *sq_world_make(const sq_scene *sc, const imp_world_def *def)
{
	imp_world_def d = *def;
	d.dim = sc->dim;
	imp_world *w = NULL;
	if (imp_world_create(&d, &w) != IMP_OK)
		return NULL;
	for (int i = 0; i < sc->n; i++) {
		imp_body_def bd = imp_default_body_def();
		bd.type = IMP_BODY_STATIC;
		bd.shape = sc->shapes[i];
		bd.pose2 = sc->bodies[i].p2;
		bd.pose3 = sc->bodies[i].p3;
		imp_body_id id;
		if (imp_world_add_body(w, &bd, &id) != IMP_OK) {
			imp_world_destroy(w);
			return NULL;
		}
	}
	if (imp_world_update(w) != IMP_OK) {
		imp_world_destroy(w);
		return NULL;
	}
	return w;
}
