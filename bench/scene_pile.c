// SPDX-License-Identifier: MIT
// The pile scenes of bench/toi (see scene_pile.h): bodies, walls, the world
// holding them, and the impulse physics with warm starting.
#define _POSIX_C_SOURCE 200809L

#include "scene_pile.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PI 3.14159265358979323846

imp_quat sp_random_quat(bench_rng *r)
{
	double u1 = bench_rng_unit(r), u2 = bench_rng_unit(r), u3 = bench_rng_unit(r);
	double a = sqrt(1.0 - u1), b = sqrt(u1);
	return imp_quat_normalize(imp_quat_make(a * sin(2.0 * PI * u2), a * cos(2.0 * PI * u2), b * sin(2.0 * PI * u3),
						b * cos(2.0 * PI * u3)));
}

double sp_contact_tolerance(double reach_a, double reach_b)
{
	double r = fmin(reach_a, reach_b) > 0.0 ? fmin(reach_a, reach_b) : fmax(reach_a, reach_b);
	return 2e-6 * r;
}

uint64_t sp_pile_seed(int dim, int n)
{
	return SP_SEED ^ (UINT64_C(0x9113) * (uint64_t)dim) ^ (uint64_t)n;
}

void sp_pile_free(sp_pile *p)
{
	if (p->shape)
		for (int i = 0; i < p->count; ++i)
			imp_shape_destroy(p->shape[i]);
	free(p->shape);
	free(p->reach);
	free(p->inv_mass);
	free(p->pose2);
	free(p->pose3);
	memset(p, 0, sizeof *p);
}

/// Dynamic body i's shape (kind i % 3), reach and mass; size = 2 x reach.
static imp_status pile_shape(sp_pile *p, int i, bench_rng *r)
{
	double reach = 0.5 * bench_rng_range(r, SP_SIZE_LO, SP_SIZE_HI), mass;
	int kind = i % 3;
	imp_status st;
	p->kinds[kind]++;
	if (p->dim == 2) {
		if (kind == 0) {
			st = imp_shape_circle(imp_vec2_make(0.0, 0.0), reach, &p->shape[i]);
			mass = PI * reach * reach;
		} else if (kind == 1) {
			double a = bench_rng_range(r, 0.3, 0.5 * PI - 0.3);
			double hx = reach * cos(a), hy = reach * sin(a);
			st = imp_shape_box2(hx, hy, 0.0, &p->shape[i]);
			mass = 4.0 * hx * hy;
		} else {
			// 3 to 8 points on the circle of the reach, spread round it.
			imp_vec2 v[8];
			int m = 3 + (int)(bench_rng_next(r) % 6);
			for (int k = 0; k < m; ++k) {
				double a = 2.0 * PI * (k + bench_rng_range(r, -0.3, 0.3)) / m;
				v[k] = imp_vec2_make(reach * cos(a), reach * sin(a));
			}
			st = imp_shape_polygon(v, m, 0.0, &p->shape[i]);
			mass = 0.0;
			if (st == IMP_OK) {
				int h = imp_shape_vertices2(p->shape[i], v, 8);
				for (int k = 0; k < h; ++k)
					mass += 0.5 * imp_vec2_cross(v[k], v[(k + 1) % h]);
			}
		}
	} else {
		if (kind == 0) {
			st = imp_shape_sphere(imp_vec3_make(0.0, 0.0, 0.0), reach, &p->shape[i]);
			mass = 4.0 / 3.0 * PI * reach * reach * reach;
		} else if (kind == 1) {
			imp_vec3 h = {bench_rng_range(r, 0.4, 1.0), bench_rng_range(r, 0.4, 1.0),
				      bench_rng_range(r, 0.4, 1.0)};
			h = imp_vec3_scale(reach / imp_vec3_length(h), h);
			st = imp_shape_box3(h.x, h.y, h.z, 0.0, &p->shape[i]);
			mass = 8.0 * h.x * h.y * h.z;
		} else {
			double rad = reach * bench_rng_range(r, 0.3, 0.6), half = reach - rad;
			st = imp_shape_capsule3(imp_vec3_make(-half, 0.0, 0.0), imp_vec3_make(half, 0.0, 0.0), rad,
						&p->shape[i]);
			mass = PI * rad * rad * 2.0 * half + 4.0 / 3.0 * PI * rad * rad * rad;
		}
	}
	p->reach[i] = reach;
	p->inv_mass[i] = mass > 0.0 ? 1.0 / mass : 0.0;
	return st;
}

bool sp_pile_make(sp_pile *p, int dim, int n, uint64_t seed)
{
	memset(p, 0, sizeof *p);
	p->dim = dim;
	p->n = n;
	p->count = n + 2 * dim;
	p->shape = calloc((size_t)p->count, sizeof *p->shape);
	p->reach = calloc((size_t)p->count, sizeof *p->reach);
	p->inv_mass = calloc((size_t)p->count, sizeof *p->inv_mass);
	if (dim == 2)
		p->pose2 = calloc((size_t)p->count, sizeof *p->pose2);
	else
		p->pose3 = calloc((size_t)p->count, sizeof *p->pose3);
	if (!p->shape || !p->reach || !p->inv_mass || (!p->pose2 && !p->pose3))
		return false;
	bench_rng r = {seed};
	// The grid: cols across (and deep, 3D), as many layers as needed; 2D
	// layers SP_PITCH apart, 3D layers twice that (a taller drop).
	int cols = dim == 2 ? (int)lround(sqrt(0.8 * n)) : (int)lround(cbrt(1.7 * n));
	cols = cols < 2 ? 2 : cols;
	int per_layer = dim == 2 ? cols : cols * cols, layers = (n + per_layer - 1) / per_layer;
	double layer_pitch = dim == 2 ? SP_PITCH : 2.0 * SP_PITCH;
	p->inside[0] = cols * SP_PITCH;
	p->inside[1] = 0.5 * SP_PITCH + (layers - 1) * layer_pitch + 0.5 * SP_PITCH + 1.0;
	p->inside[2] = dim == 3 ? cols * SP_PITCH : 0.0;
	for (int i = 0; i < n; ++i) {
		if (pile_shape(p, i, &r) != IMP_OK)
			return false;
		int layer = i / per_layer, c = i % per_layer;
		double x = (c % cols + 0.5) * SP_PITCH, y = 0.5 * SP_PITCH + layer * layer_pitch;
		double z = dim == 3 ? (c / cols + 0.5) * SP_PITCH : 0.0;
		// A small jitter (the bodies are at most SP_SIZE_HI across, the
		// pitch leaves 0.05): no two start overlapping.
		x += bench_rng_range(&r, -0.02, 0.02);
		z += dim == 3 ? bench_rng_range(&r, -0.02, 0.02) : 0.0;
		p->drop = fmax(p->drop, y);
		if (dim == 2)
			p->pose2[i] = imp_pose2_make(x, y, bench_rng_range(&r, -PI, PI));
		else
			p->pose3[i] = (imp_pose3){{x, y, z}, sp_random_quat(&r)};
	}
	// The walls: slabs SP_WALL thick on the outside of each face, long
	// enough to close the corners.
	for (int a = 0; a < dim; ++a)
		for (int side = 0; side < 2; ++side) {
			int i = n + 2 * a + side;
			double h[3], c[3];
			for (int b = 0; b < dim; ++b) {
				h[b] = b == a ? 0.5 * SP_WALL : 0.5 * p->inside[b] + SP_WALL;
				c[b] = b == a ? (side ? p->inside[b] + 0.5 * SP_WALL : -0.5 * SP_WALL) : 0.5 * p->inside[b];
			}
			imp_status st;
			if (dim == 2) {
				st = imp_shape_box2(h[0], h[1], 0.0, &p->shape[i]);
				p->pose2[i] = imp_pose2_make(c[0], c[1], 0.0);
				p->reach[i] = sqrt(h[0] * h[0] + h[1] * h[1]);
			} else {
				st = imp_shape_box3(h[0], h[1], h[2], 0.0, &p->shape[i]);
				p->pose3[i] = (imp_pose3){{c[0], c[1], c[2]}, imp_quat_identity()};
				p->reach[i] = sqrt(h[0] * h[0] + h[1] * h[1] + h[2] * h[2]);
			}
			if (st != IMP_OK)
				return false;
		}
	// The tolerances' range: every pair has a dynamic body, and a wall is
	// larger than any of them, so the smaller reach is a dynamic body's.
	p->tol_min = INFINITY;
	p->tol_max = 0.0;
	for (int i = 0; i < n; ++i) {
		double t = sp_contact_tolerance(p->reach[i], p->reach[i]);
		p->tol_min = fmin(p->tol_min, t);
		p->tol_max = fmax(p->tol_max, t);
	}
	return true;
}

void sp_sim_destroy(sp_sim *s)
{
	imp_world_destroy(s->w);
	free(s->ids);
	free(s->body_of);
	free(s->memory);
	memset(s, 0, sizeof *s);
}

bool sp_sim_create(sp_sim *s, const sp_pile *p, imp_broad_kind kind, double margin, int workers, const char *who)
{
	memset(s, 0, sizeof *s);
	s->p = p;
	s->dt = SP_DT;
	imp_world_def def = imp_default_world_def();
	def.dim = p->dim;
	def.broad_phase = kind;
	def.margin = margin;
	def.body_capacity = p->count;
	def.worker_count = workers;
	imp_status st = imp_world_create(&def, &s->w);
	s->ids = calloc((size_t)p->count, sizeof *s->ids);
	// Room for eight pairs a body before the memory first grows.
	for (s->memory_size = 64; s->memory_size < 8 * (size_t)p->count;)
		s->memory_size *= 2;
	s->memory = calloc(s->memory_size, sizeof *s->memory);
	if (st != IMP_OK || !s->ids || !s->memory) {
		fprintf(stderr, "%s: pile: imp_world_create: %s\n", who, imp_status_string(st));
		sp_sim_destroy(s);
		return false;
	}
	for (int i = 0; i < p->count; ++i) {
		imp_body_def bd = imp_default_body_def();
		bd.type = i < p->n ? IMP_BODY_DYNAMIC : IMP_BODY_STATIC;
		bd.shape = p->shape[i];
		if (p->dim == 2)
			bd.pose2 = p->pose2[i];
		else
			bd.pose3 = p->pose3[i];
		st = imp_world_add_body(s->w, &bd, &s->ids[i]);
		if (st != IMP_OK) {
			fprintf(stderr, "%s: pile: imp_world_add_body: %s\n", who, imp_status_string(st));
			sp_sim_destroy(s);
			return false;
		}
		if ((int)s->ids[i].index > s->slots)
			s->slots = (int)s->ids[i].index;
	}
	s->body_of = malloc(sizeof *s->body_of * (size_t)(s->slots + 1));
	if (!s->body_of) {
		sp_sim_destroy(s);
		return false;
	}
	for (int k = 0; k <= s->slots; ++k)
		s->body_of[k] = -1;
	for (int i = 0; i < p->count; ++i)
		s->body_of[s->ids[i].index - 1] = i;
	return true;
}

int sp_body_of(const sp_sim *s, imp_body_id id)
{
	if (id.index == 0 || (int)id.index > s->slots)
		return -1;
	return s->body_of[id.index - 1];
}

/// The slot of `key` in a table of `size` slots (a power of two): the first
/// that holds it or is empty, from its hash on.
static sp_memory *memory_slot(sp_memory *table, size_t size, uint64_t key)
{
	for (size_t h = (size_t)((key * UINT64_C(0x9e3779b97f4a7c15)) >> 32);; ++h) {
		sp_memory *m = &table[h & (size - 1)];
		if (m->key == key || m->key == 0)
			return m;
	}
}

/// The memory of the pair (a, b), made (frame -1: never reported) on first
/// use. When the table is three quarters full, it is remade keeping only
/// the pairs reported in this frame or the last (the others cannot warm
/// start), twice as large when they fill half of it. Returns NULL when out
/// of memory.
static sp_memory *remembered(sp_sim *s, imp_body_id a, imp_body_id b)
{
	uint64_t key = (uint64_t)a.index << 32 | b.index;
	sp_memory *m = memory_slot(s->memory, s->memory_size, key);
	if (m->key == key)
		return m;
	if (4 * (s->memory_used + 1) > 3 * s->memory_size) {
		size_t live = 0;
		for (size_t i = 0; i < s->memory_size; ++i)
			live += s->memory[i].key != 0 && s->memory[i].frame >= s->frame - 1;
		size_t size = 2 * live > s->memory_size ? 2 * s->memory_size : s->memory_size;
		sp_memory *table = calloc(size, sizeof *table);
		if (!table)
			return NULL;
		for (size_t i = 0; i < s->memory_size; ++i)
			if (s->memory[i].key != 0 && s->memory[i].frame >= s->frame - 1)
				*memory_slot(table, size, s->memory[i].key) = s->memory[i];
		free(s->memory);
		s->memory = table;
		s->memory_size = size;
		s->memory_used = live;
		m = memory_slot(table, size, key);
	}
	s->memory_used++;
	*m = (sp_memory){key, -1, 0.0, {0.0, 0.0, 0.0}};
	return m;
}

/// Gives b j along n and a -j along n (each divided by its mass; a wall's
/// inverse mass is 0).
static void push_apart(const sp_pile *p, int a, int b, double j, imp_vec3 n, imp_vec3 *va, imp_vec3 *vb)
{
	*va = imp_vec3_sub(*va, imp_vec3_scale(j * p->inv_mass[a], n));
	*vb = imp_vec3_add(*vb, imp_vec3_scale(j * p->inv_mass[b], n));
}

bool sp_contact(sp_sim *s, int a, int b, imp_body_id ia, imp_body_id ib, imp_vec3 n, double distance, double vn,
		imp_vec3 *va, imp_vec3 *vb)
{
	const sp_pile *p = s->p;
	double k = p->inv_mass[a] + p->inv_mass[b];
	if (!(k > 0.0))
		return false;
	sp_memory *m = remembered(s, ia, ib);
	if (!m) {
		if (s->bad == IMP_OK)
			s->bad = IMP_ERR_OUT_OF_MEMORY;
		return false;
	}
	bool changed = false;
	if (m->frame != s->frame) {
		bool resting = m->frame == s->frame - 1 && vn > -SP_RESTITUTION_SPEED &&
			       imp_vec3_dot(m->normal, n) > SP_WARM_NORMAL;
		double warm = resting ? SP_WARM_START * m->impulse : 0.0;
		m->frame = s->frame;
		m->normal = n;
		m->impulse = 0.0;
		if (warm > 0.0) {
			push_apart(p, a, b, warm, n, va, vb);
			vn += warm * k;
			m->impulse = warm;
			changed = true;
		}
	}
	double push = SP_PUSH_BETA * fmax(0.0, -distance) / s->dt;
	double bounce = vn < -SP_RESTITUTION_SPEED ? -SP_RESTITUTION * vn : 0.0;
	double target = fmax(bounce, push);
	if (vn < target) {
		double j = (target - vn) / k;
		push_apart(p, a, b, j, n, va, vb);
		m->impulse += j;
		changed = true;
	}
	return changed;
}

imp_vec3 sp_velocity(sp_sim *s, int i)
{
	imp_vec3 v = {0.0, 0.0, 0.0};
	if (i >= s->p->n)
		return v;
	imp_status st;
	if (s->p->dim == 2) {
		imp_vec2 v2 = {0.0, 0.0};
		st = imp_body_get_velocity2(s->w, s->ids[i], &v2, NULL);
		v = imp_vec3_make(v2.x, v2.y, 0.0);
	} else {
		st = imp_body_get_velocity3(s->w, s->ids[i], &v, NULL);
	}
	if (st != IMP_OK && s->bad == IMP_OK)
		s->bad = st;
	return v;
}

void sp_set_velocity(sp_sim *s, int i, imp_vec3 v)
{
	if (i >= s->p->n)
		return;
	imp_status st = s->p->dim == 2 ? imp_body_set_velocity2(s->w, s->ids[i], imp_vec2_make(v.x, v.y), 0.0)
				       : imp_body_set_velocity3(s->w, s->ids[i], v, imp_vec3_make(0.0, 0.0, 0.0));
	if (st != IMP_OK && s->bad == IMP_OK)
		s->bad = st;
}

void sp_gravity(sp_sim *s)
{
	for (int i = 0; i < s->p->n; ++i) {
		imp_vec3 v = sp_velocity(s, i);
		v.y -= SP_GRAVITY * s->dt;
		sp_set_velocity(s, i, v);
	}
}

void sp_on_contact(const imp_contact_event *e, void *user)
{
	sp_sim *s = user;
	int a = sp_body_of(s, e->a), b = sp_body_of(s, e->b);
	if (a < 0 || b < 0) {
		if (s->bad == IMP_OK)
			s->bad = IMP_ERR_BAD_ID;
		return;
	}
	imp_vec3 va = sp_velocity(s, a), vb = sp_velocity(s, b);
	if (sp_contact(s, a, b, e->a, e->b, e->normal, e->distance, e->normal_speed, &va, &vb)) {
		sp_set_velocity(s, a, va);
		sp_set_velocity(s, b, vb);
	}
}
