// SPDX-License-Identifier: MIT
// Every error path of world.h: NULL pointers, bad definitions, bad shapes
// and poses, bad body types, null, stale and foreign ids, calls made from
// inside imp_world_for_each_pair, the getters on a NULL world, and failing
// allocators (each allocation of create, add, remove, set pose and update
// failed in turn). On error the outputs are untouched and the world's
// state hash is what it was; after a failed update the next one completes
// the work (pairs and events against the oracle).
#include <float.h>
#include <limits.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <impact/impact.h>

#include "bad_input.h"
#include "counting_alloc.h"
#include "oracle_world.h"

#define V2(x, y) imp_vec2_make((x), (y))
#define V3(x, y, z) imp_vec3_make((x), (y), (z))
#define WORLD_SENTINEL ((imp_world *)(void *)&bad_sentinel_object)

static const imp_body_id ID_SENTINEL = {777, 778, 779};

static void assert_id_sentinel(imp_body_id id)
{
	assert_true(imp_body_id_equal(id, ID_SENTINEL));
}

static imp_world *make_world(int dim, imp_broad_kind kind)
{
	imp_world_def def = imp_default_world_def();
	def.dim = dim;
	def.broad_phase = kind;
	imp_world *w = NULL;
	assert_int_equal(imp_world_create(&def, &w), IMP_OK);
	assert_non_null(w);
	return w;
}

static imp_body_id add_simple(imp_world *w, const imp_shape *shape, double x)
{
	imp_body_def d = imp_default_body_def();
	d.shape = shape;
	d.pose2 = imp_pose2_make(x, 0, 0);
	d.pose3 = imp_pose3_make(V3(x, 0, 0), imp_quat_identity());
	imp_body_id id;
	assert_int_equal(imp_world_add_body(w, &d, &id), IMP_OK);
	return id;
}

static void test_status_strings(void **state)
{
	(void)state;
	const char *unknown = imp_status_string(IMP_STATUS_COUNT);
	assert_string_equal(unknown, "unknown status");
	const char *bad_id = imp_status_string(IMP_ERR_BAD_ID), *busy = imp_status_string(IMP_ERR_BUSY);
	assert_non_null(bad_id);
	assert_non_null(busy);
	assert_string_not_equal(bad_id, unknown);
	assert_string_not_equal(busy, unknown);
	assert_string_not_equal(bad_id, busy);
	// Every status has its own text, so that a message names the case.
	for (int s = 0; s < IMP_STATUS_COUNT; ++s) {
		assert_string_not_equal(imp_status_string((imp_status)s), unknown);
		for (int t = 0; t < s; ++t)
			assert_string_not_equal(imp_status_string((imp_status)s), imp_status_string((imp_status)t));
	}
}

static void expect_create(const imp_world_def *def, imp_status want)
{
	imp_world *w = WORLD_SENTINEL;
	imp_status st = imp_world_create(def, &w);
	if (st != want)
		fail_msg("imp_world_create: %s, expected %s (dim %d, kind %d, alpha %g, beta %g, fat %g, margin %g, "
			 "capacities %d %d)",
			 imp_status_string(st), imp_status_string(want), def->dim, (int)def->broad_phase, def->hash_alpha,
			 def->hash_beta, def->fat_ratio, def->margin, def->body_capacity, def->pair_capacity);
	if (want != IMP_OK)
		assert_ptr_equal(w, WORLD_SENTINEL);
	else
		imp_world_destroy(w);
}

static void test_create_errors(void **state)
{
	(void)state;
	imp_world_def ok = imp_default_world_def();
	imp_world *w = WORLD_SENTINEL;
	assert_int_equal(imp_world_create(NULL, &w), IMP_ERR_NULL_ARGUMENT);
	assert_int_equal(imp_world_create(&ok, NULL), IMP_ERR_NULL_ARGUMENT);
	assert_ptr_equal(w, WORLD_SENTINEL);
	imp_world_def d;
	const int dims[] = {0, 1, 4, -1, INT_MIN, INT_MAX};
	for (int i = 0; i < 6; ++i) {
		d = ok;
		d.dim = dims[i];
		expect_create(&d, IMP_ERR_BAD_OPTIONS);
	}
	const int kinds[] = {3, -1, 100};
	for (int i = 0; i < 3; ++i) {
		d = ok;
		d.broad_phase = (imp_broad_kind)kinds[i];
		expect_create(&d, IMP_ERR_BAD_OPTIONS);
	}
	const double alphas[] = {0.0, -0.0, -0.5, 1.0, 1.5, NAN, INFINITY, -INFINITY};
	for (int i = 0; i < 8; ++i) {
		d = ok;
		d.hash_alpha = alphas[i];
		expect_create(&d, IMP_ERR_BAD_OPTIONS);
	}
	const double betas[] = {0.999999, 0.0, -1.0, NAN, INFINITY, -INFINITY};
	for (int i = 0; i < 6; ++i) {
		d = ok;
		d.hash_beta = betas[i];
		expect_create(&d, IMP_ERR_BAD_OPTIONS);
	}
	const double fats[] = {-1e-300, -0.1, NAN, INFINITY, -INFINITY};
	for (int i = 0; i < 5; ++i) {
		d = ok;
		d.fat_ratio = fats[i];
		expect_create(&d, IMP_ERR_BAD_OPTIONS);
	}
	const double margins[] = {-1e-300, -1.0, NAN, -NAN, INFINITY, -INFINITY};
	for (int i = 0; i < 6; ++i) {
		d = ok;
		d.margin = margins[i];
		expect_create(&d, IMP_ERR_BAD_RADIUS);
	}
	d = ok;
	d.margin = 1e151; // beyond IMP_MAX_COORDINATE
	w = WORLD_SENTINEL;
	imp_status st = imp_world_create(&d, &w);
	assert_true(st == IMP_ERR_BAD_RADIUS || st == IMP_ERR_OUT_OF_RANGE);
	assert_ptr_equal(w, WORLD_SENTINEL);
	const int caps[] = {-1, INT_MIN};
	for (int i = 0; i < 2; ++i) {
		d = ok;
		d.body_capacity = caps[i];
		expect_create(&d, IMP_ERR_BAD_OPTIONS);
		d = ok;
		d.pair_capacity = caps[i];
		expect_create(&d, IMP_ERR_BAD_OPTIONS);
	}
	// Every one of the three broad phases refuses a bad dimension.
	for (int k = 0; k < 3; ++k) {
		d = ok;
		d.broad_phase = (imp_broad_kind)k;
		d.dim = 1;
		expect_create(&d, IMP_ERR_BAD_OPTIONS);
	}
	// An allocator with only some functions set.
	counting c = {0};
	c.fail_at = -1;
	for (int k = 0; k < 3; ++k) {
		d = ok;
		d.allocator = counting_allocator(&c);
		if (k == 0)
			d.allocator.alloc = NULL;
		else if (k == 1)
			d.allocator.realloc = NULL;
		else
			d.allocator.free = NULL;
		expect_create(&d, IMP_ERR_NULL_ARGUMENT);
	}
	assert_int_equal(c.live, 0);
	// The edges of the allowed ranges are allowed.
	d = ok;
	d.dim = 2;
	d.hash_alpha = 1e-9;
	d.hash_beta = 1.0;
	d.fat_ratio = 0.0;
	d.margin = 0.0;
	expect_create(&d, IMP_OK);
	d.hash_alpha = 0.999;
	d.hash_beta = 100.0;
	d.fat_ratio = 5.0;
	d.margin = 1e-300;
	d.body_capacity = 1000;
	d.pair_capacity = 1000;
	expect_create(&d, IMP_OK);
	for (int k = 0; k < 3; ++k) {
		d = ok;
		d.broad_phase = (imp_broad_kind)k;
		d.fat_ratio = -0.0;
		expect_create(&d, IMP_OK);
	}
}

/// add_body that must fail with `want`, leaving the world as it was.
static void expect_add(imp_world *w, const imp_body_def *def, imp_status want, const char *what)
{
	uint64_t h = imp_world_state_hash(w);
	int n = imp_world_body_count(w);
	imp_body_id id = ID_SENTINEL;
	imp_status st = imp_world_add_body(w, def, &id);
	if (st != want)
		fail_msg("add_body (%s) in %dD: %s, expected %s", what, imp_world_dim(w), imp_status_string(st),
			 imp_status_string(want));
	assert_id_sentinel(id);
	assert_int_equal(imp_world_body_count(w), n);
	assert_true(imp_world_state_hash(w) == h);
}

static void test_add_body_errors(void **state)
{
	(void)state;
	imp_shape *s2, *s3;
	assert_int_equal(imp_shape_box2(1, 1, 0, &s2), IMP_OK);
	assert_int_equal(imp_shape_box3(1, 1, 1, 0, &s3), IMP_OK);
	for (int dim = 2; dim <= 3; ++dim) {
		imp_world *w = make_world(dim, IMP_BROAD_HASH);
		const imp_shape *mine = dim == 2 ? s2 : s3, *other = dim == 2 ? s3 : s2;
		add_simple(w, mine, 0.0);
		add_simple(w, mine, 1.0);
		assert_int_equal(imp_world_update(w), IMP_OK);
		imp_body_def ok = imp_default_body_def();
		ok.shape = mine;
		imp_body_id id = ID_SENTINEL;
		assert_int_equal(imp_world_add_body(NULL, &ok, &id), IMP_ERR_NULL_ARGUMENT);
		assert_int_equal(imp_world_add_body(w, NULL, &id), IMP_ERR_NULL_ARGUMENT);
		assert_int_equal(imp_world_add_body(w, &ok, NULL), IMP_ERR_NULL_ARGUMENT);
		assert_id_sentinel(id);
		imp_body_def d = ok;
		d.shape = NULL;
		expect_add(w, &d, IMP_ERR_NULL_ARGUMENT, "no shape");
		d.shape = NOT_SHAPE;
		expect_add(w, &d, IMP_ERR_BAD_SHAPE, "zeroed record");
		d.shape = JUNK_SHAPE;
		expect_add(w, &d, IMP_ERR_BAD_SHAPE, "junk record");
		d.shape = other;
		expect_add(w, &d, IMP_ERR_DIMENSION_MISMATCH, "shape of the other dimension");
		const int types[] = {3, -1, 1000, INT_MIN};
		for (int i = 0; i < 4; ++i) {
			d = ok;
			d.type = (imp_body_type)types[i];
			expect_add(w, &d, IMP_ERR_BAD_BODY_TYPE, "bad type");
		}
		for (int i = 0; i < 4; ++i) {
			double b = bad_numbers[i];
			if (dim == 2) {
				double *fields[4];
				d = ok;
				fields[0] = &d.pose2.p.x;
				fields[1] = &d.pose2.p.y;
				fields[2] = &d.pose2.q.c;
				fields[3] = &d.pose2.q.s;
				for (int k = 0; k < 4; ++k) {
					d = ok;
					*fields[k] = b;
					expect_add(w, &d, IMP_ERR_NOT_FINITE, "non-finite 2D pose");
				}
			} else {
				double *fields[7];
				d = ok;
				fields[0] = &d.pose3.p.x;
				fields[1] = &d.pose3.p.y;
				fields[2] = &d.pose3.p.z;
				fields[3] = &d.pose3.q.x;
				fields[4] = &d.pose3.q.y;
				fields[5] = &d.pose3.q.z;
				fields[6] = &d.pose3.q.w;
				for (int k = 0; k < 7; ++k) {
					d = ok;
					*fields[k] = b;
					expect_add(w, &d, IMP_ERR_NOT_FINITE, "non-finite 3D pose");
				}
			}
		}
		d = ok;
		if (dim == 2)
			d.pose2.q = (imp_rot2){1.0, 0.1};
		else
			d.pose3.q = imp_quat_make(0, 0, 0, 1.00001);
		expect_add(w, &d, IMP_ERR_BAD_ROTATION, "non-unit rotation");
		d = ok;
		if (dim == 2)
			d.pose2.q = (imp_rot2){0.0, 0.0};
		else
			d.pose3.q = imp_quat_make(0, 0, 0, 0);
		expect_add(w, &d, IMP_ERR_BAD_ROTATION, "zero rotation");
		d = ok;
		if (dim == 2)
			d.pose2.p.y = -2e150;
		else
			d.pose3.p.z = 2e150;
		expect_add(w, &d, IMP_ERR_OUT_OF_RANGE, "beyond IMP_MAX_COORDINATE");
		// The pose of the other dimension is not read.
		d = ok;
		if (dim == 2) {
			d.pose3.p.x = NAN;
			d.pose3.q = imp_quat_make(0, 0, 0, 0);
		} else {
			d.pose2.p.x = NAN;
			d.pose2.q = (imp_rot2){0.0, 0.0};
		}
		id = ID_SENTINEL;
		assert_int_equal(imp_world_add_body(w, &d, &id), IMP_OK);
		assert_true(imp_body_is_valid(w, id));
		assert_int_equal(imp_world_body_count(w), 3);
		// Float-normalised rotations pass.
		d = ok;
		if (dim == 2)
			d.pose2.q = (imp_rot2){(float)cos(0.3), (float)sin(0.3)};
		else
			d.pose3.q = imp_quat_make(0.0f, 0.0f, (float)sin(0.3), (float)cos(0.3));
		if (dim == 3)
			assert_int_equal(imp_world_add_body(w, &d, &id), IMP_OK);
		assert_int_equal(imp_world_update(w), IMP_OK);
		imp_world_destroy(w);
	}
	imp_shape_destroy(s2);
	imp_shape_destroy(s3);
}

/// Every call that takes an id refuses `bad` with IMP_ERR_BAD_ID, leaves
/// its output and the world alone.
static void expect_bad_id(imp_world *w, imp_body_id bad)
{
	uint64_t h = imp_world_state_hash(w);
	int n = imp_world_body_count(w);
	assert_false(imp_body_is_valid(w, bad));
	assert_int_equal(imp_world_remove_body(w, bad), IMP_ERR_BAD_ID);
	assert_int_equal(imp_body_set_filter(w, bad, imp_default_filter()), IMP_ERR_BAD_ID);
	assert_int_equal(imp_body_set_user_data(w, bad, NULL), IMP_ERR_BAD_ID);
	imp_filter f = {77, 77, 77};
	assert_int_equal(imp_body_get_filter(w, bad, &f), IMP_ERR_BAD_ID);
	assert_true(f.category == 77 && f.mask == 77 && f.group == 77);
	void *ud = SENTINEL;
	assert_int_equal(imp_body_get_user_data(w, bad, &ud), IMP_ERR_BAD_ID);
	assert_ptr_equal(ud, SENTINEL);
	imp_body_type type = (imp_body_type)77;
	assert_int_equal(imp_body_get_type(w, bad, &type), IMP_ERR_BAD_ID);
	assert_int_equal(type, 77);
	const imp_shape *sh = SENTINEL;
	assert_int_equal(imp_body_get_shape(w, bad, &sh), IMP_ERR_BAD_ID);
	assert_ptr_equal(sh, SENTINEL);
	if (imp_world_dim(w) == 2) {
		assert_int_equal(imp_body_set_pose2(w, bad, imp_pose2_identity()), IMP_ERR_BAD_ID);
		imp_pose2 p = {{7, 7}, {7, 7}};
		assert_int_equal(imp_body_get_pose2(w, bad, &p), IMP_ERR_BAD_ID);
		assert_true(p.p.x == 7 && p.q.s == 7);
		imp_aabb2 b = {{7, 7}, {7, 7}};
		assert_int_equal(imp_body_get_aabb2(w, bad, &b), IMP_ERR_BAD_ID);
		assert_true(b.lo.x == 7 && b.hi.y == 7);
	} else {
		assert_int_equal(imp_body_set_pose3(w, bad, imp_pose3_identity()), IMP_ERR_BAD_ID);
		imp_pose3 p = {{7, 7, 7}, {7, 7, 7, 7}};
		assert_int_equal(imp_body_get_pose3(w, bad, &p), IMP_ERR_BAD_ID);
		assert_true(p.p.x == 7 && p.q.w == 7);
		imp_aabb3 b = {{7, 7, 7}, {7, 7, 7}};
		assert_int_equal(imp_body_get_aabb3(w, bad, &b), IMP_ERR_BAD_ID);
		assert_true(b.lo.x == 7 && b.hi.z == 7);
	}
	assert_int_equal(imp_world_body_count(w), n);
	assert_true(imp_world_state_hash(w) == h);
}

static void test_id_errors(void **state)
{
	(void)state;
	imp_shape *s2, *s3;
	assert_int_equal(imp_shape_circle(V2(0, 0), 1, &s2), IMP_OK);
	assert_int_equal(imp_shape_sphere(V3(0, 0, 0), 1, &s3), IMP_OK);
	for (int dim = 2; dim <= 3; ++dim) {
		const imp_shape *sh = dim == 2 ? s2 : s3;
		imp_world *w = make_world(dim, IMP_BROAD_SWEEP), *other = make_world(dim, IMP_BROAD_HASH);
		imp_body_id ids[4];
		for (int i = 0; i < 4; ++i)
			ids[i] = add_simple(w, sh, 1.5 * i);
		imp_body_id foreign[4];
		for (int i = 0; i < 4; ++i)
			foreign[i] = add_simple(other, sh, 1.5 * i);
		assert_int_equal(imp_world_update(w), IMP_OK);
		assert_int_equal(imp_world_update(other), IMP_OK);
		imp_body_id zero = {0, 0, 0};
		expect_bad_id(w, zero);
		imp_body_id z = ids[1];
		z.index = 0; // the null index with a live generation and world
		expect_bad_id(w, z);
		imp_body_id far = ids[1];
		far.index = 1000;
		expect_bad_id(w, far);
		far.index = UINT32_MAX;
		expect_bad_id(w, far);
		imp_body_id gen = ids[1];
		gen.generation += 1;
		expect_bad_id(w, gen);
		// Ids of another world, even with the index and generation of a
		// live body here.
		assert_true(foreign[0].world != ids[0].world);
		for (int i = 0; i < 4; ++i)
			expect_bad_id(w, foreign[i]);
		imp_body_id fake = ids[2];
		fake.world = foreign[2].world;
		expect_bad_id(w, fake);
		// A removed body: stale at once, and still when its slot is reused.
		imp_body_id old = ids[1];
		assert_int_equal(imp_world_remove_body(w, old), IMP_OK);
		expect_bad_id(w, old);
		assert_int_equal(imp_world_update(w), IMP_OK);
		expect_bad_id(w, old);
		bool reused = false;
		for (int k = 0; k < 64 && !reused; ++k) {
			imp_body_id n = add_simple(w, sh, 10.0 + k);
			if (n.index == old.index) {
				reused = true;
				assert_false(imp_body_id_equal(n, old));
				assert_true(imp_body_is_valid(w, n));
			}
		}
		assert_true(reused);
		expect_bad_id(w, old);
		assert_int_equal(imp_world_update(w), IMP_OK);
		expect_bad_id(w, old);
		// The live ones still work.
		for (int i = 0; i < 4; ++i)
			assert_true(imp_body_is_valid(w, ids[i]) == (i != 1));
		// An id of a destroyed world names nothing in a new one.
		imp_world_destroy(other);
		imp_world *third = make_world(dim, IMP_BROAD_NAIVE);
		add_simple(third, sh, 0.0);
		expect_bad_id(third, foreign[0]);
		imp_world_destroy(third);
		imp_world_destroy(w);
	}
	imp_shape_destroy(s2);
	imp_shape_destroy(s3);
}

static void test_pose_errors(void **state)
{
	(void)state;
	imp_shape *s2, *s3;
	assert_int_equal(imp_shape_capsule2(V2(-1, 0), V2(1, 0), 0.5, &s2), IMP_OK);
	assert_int_equal(imp_shape_capsule3(V3(-1, 0, 0), V3(1, 0, 0), 0.5, &s3), IMP_OK);
	for (int dim = 2; dim <= 3; ++dim) {
		imp_world *w = make_world(dim, IMP_BROAD_HASH);
		imp_body_id a = add_simple(w, dim == 2 ? s2 : s3, 0.0);
		add_simple(w, dim == 2 ? s2 : s3, 1.0);
		assert_int_equal(imp_world_update(w), IMP_OK);
		uint64_t h = imp_world_state_hash(w);
		if (dim == 2) {
			imp_pose2 ok = imp_pose2_make(3, 4, 0.5), p;
			assert_int_equal(imp_body_set_pose2(NULL, a, ok), IMP_ERR_NULL_ARGUMENT);
			for (int i = 0; i < 4; ++i) {
				for (int k = 0; k < 4; ++k) {
					p = ok;
					double *f[4] = {&p.p.x, &p.p.y, &p.q.c, &p.q.s};
					*f[k] = bad_numbers[i];
					assert_int_equal(imp_body_set_pose2(w, a, p), IMP_ERR_NOT_FINITE);
				}
			}
			p = ok;
			p.q.c *= 1.001;
			assert_int_equal(imp_body_set_pose2(w, a, p), IMP_ERR_BAD_ROTATION);
			p = ok;
			p.p.x = 1.5e150;
			assert_int_equal(imp_body_set_pose2(w, a, p), IMP_ERR_OUT_OF_RANGE);
			assert_int_equal(imp_body_set_pose3(w, a, imp_pose3_identity()), IMP_ERR_DIMENSION_MISMATCH);
			imp_pose3 p3 = {{7, 7, 7}, {7, 7, 7, 7}};
			assert_int_equal(imp_body_get_pose3(w, a, &p3), IMP_ERR_DIMENSION_MISMATCH);
			assert_true(p3.p.x == 7);
			imp_aabb3 b3 = {{7, 7, 7}, {7, 7, 7}};
			assert_int_equal(imp_body_get_aabb3(w, a, &b3), IMP_ERR_DIMENSION_MISMATCH);
			assert_true(b3.lo.x == 7);
			assert_int_equal(imp_body_get_pose2(w, a, NULL), IMP_ERR_NULL_ARGUMENT);
			assert_int_equal(imp_body_get_aabb2(w, a, NULL), IMP_ERR_NULL_ARGUMENT);
			assert_int_equal(imp_body_get_pose2(NULL, a, &p), IMP_ERR_NULL_ARGUMENT);
			imp_aabb2 b2;
			assert_int_equal(imp_body_get_aabb2(NULL, a, &b2), IMP_ERR_NULL_ARGUMENT);
		} else {
			imp_pose3 ok = imp_pose3_make(V3(3, 4, 5), imp_quat_make(0, 0.6, 0, 0.8)), p;
			assert_int_equal(imp_body_set_pose3(NULL, a, ok), IMP_ERR_NULL_ARGUMENT);
			for (int i = 0; i < 4; ++i) {
				for (int k = 0; k < 7; ++k) {
					p = ok;
					double *f[7] = {&p.p.x, &p.p.y, &p.p.z, &p.q.x, &p.q.y, &p.q.z, &p.q.w};
					*f[k] = bad_numbers[i];
					assert_int_equal(imp_body_set_pose3(w, a, p), IMP_ERR_NOT_FINITE);
				}
			}
			p = ok;
			p.q.w = 0.81;
			assert_int_equal(imp_body_set_pose3(w, a, p), IMP_ERR_BAD_ROTATION);
			p = ok;
			p.p.y = -1.5e150;
			assert_int_equal(imp_body_set_pose3(w, a, p), IMP_ERR_OUT_OF_RANGE);
			assert_int_equal(imp_body_set_pose2(w, a, imp_pose2_identity()), IMP_ERR_DIMENSION_MISMATCH);
			imp_pose2 p2 = {{7, 7}, {7, 7}};
			assert_int_equal(imp_body_get_pose2(w, a, &p2), IMP_ERR_DIMENSION_MISMATCH);
			assert_true(p2.p.x == 7);
			imp_aabb2 b2 = {{7, 7}, {7, 7}};
			assert_int_equal(imp_body_get_aabb2(w, a, &b2), IMP_ERR_DIMENSION_MISMATCH);
			assert_true(b2.lo.x == 7);
			assert_int_equal(imp_body_get_pose3(w, a, NULL), IMP_ERR_NULL_ARGUMENT);
			assert_int_equal(imp_body_get_aabb3(w, a, NULL), IMP_ERR_NULL_ARGUMENT);
			assert_int_equal(imp_body_get_pose3(NULL, a, &p), IMP_ERR_NULL_ARGUMENT);
			imp_aabb3 b3;
			assert_int_equal(imp_body_get_aabb3(NULL, a, &b3), IMP_ERR_NULL_ARGUMENT);
		}
		assert_true(imp_world_state_hash(w) == h);
		// The other calls' NULL arguments.
		assert_int_equal(imp_world_remove_body(NULL, a), IMP_ERR_NULL_ARGUMENT);
		assert_int_equal(imp_body_get_type(w, a, NULL), IMP_ERR_NULL_ARGUMENT);
		assert_int_equal(imp_body_get_shape(w, a, NULL), IMP_ERR_NULL_ARGUMENT);
		assert_int_equal(imp_body_get_filter(w, a, NULL), IMP_ERR_NULL_ARGUMENT);
		assert_int_equal(imp_body_get_user_data(w, a, NULL), IMP_ERR_NULL_ARGUMENT);
		imp_body_type t;
		const imp_shape *sh;
		imp_filter f;
		void *ud;
		assert_int_equal(imp_body_get_type(NULL, a, &t), IMP_ERR_NULL_ARGUMENT);
		assert_int_equal(imp_body_get_shape(NULL, a, &sh), IMP_ERR_NULL_ARGUMENT);
		assert_int_equal(imp_body_get_filter(NULL, a, &f), IMP_ERR_NULL_ARGUMENT);
		assert_int_equal(imp_body_get_user_data(NULL, a, &ud), IMP_ERR_NULL_ARGUMENT);
		assert_int_equal(imp_body_set_filter(NULL, a, imp_default_filter()), IMP_ERR_NULL_ARGUMENT);
		assert_int_equal(imp_body_set_user_data(NULL, a, NULL), IMP_ERR_NULL_ARGUMENT);
		assert_true(imp_world_state_hash(w) == h);
		assert_true(imp_body_is_valid(w, a));
		imp_world_destroy(w);
	}
	imp_shape_destroy(s2);
	imp_shape_destroy(s3);
}

static bool never_called(imp_body_id a, imp_body_id b, void *user)
{
	(void)a;
	(void)b;
	++*(int *)user;
	return true;
}

static void test_null_world(void **state)
{
	(void)state;
	imp_world_destroy(NULL);
	assert_int_equal(imp_world_dim(NULL), 0);
	assert_int_equal(imp_world_body_count(NULL), 0);
	imp_body_id id = {1, 0, 1};
	assert_false(imp_body_is_valid(NULL, id));
	assert_int_equal(imp_world_update(NULL), IMP_ERR_NULL_ARGUMENT);
	int calls = 0;
	assert_int_equal(imp_world_for_each_pair(NULL, never_called, &calls), IMP_ERR_NULL_ARGUMENT);
	assert_int_equal(calls, 0);
	imp_pair_events ev = imp_world_get_events(NULL);
	assert_int_equal(ev.begin_count, 0);
	assert_int_equal(ev.end_count, 0);
	imp_world_stats st = imp_world_get_stats(NULL), zero;
	memset(&zero, 0, sizeof zero);
	assert_memory_equal(&st, &zero, sizeof st);
	assert_true(imp_world_state_hash(NULL) == 0);
	// A world, but no callback.
	imp_world *w = make_world(3, IMP_BROAD_HASH);
	assert_int_equal(imp_world_for_each_pair(w, NULL, &calls), IMP_ERR_NULL_ARGUMENT);
	// Before any update: no pairs, no events.
	assert_int_equal(imp_world_for_each_pair(w, never_called, &calls), IMP_OK);
	assert_int_equal(calls, 0);
	ev = imp_world_get_events(w);
	assert_int_equal(ev.begin_count + ev.end_count, 0);
	imp_world_destroy(w);
}

// ---------------------------------------------------------------------------
// Calls from inside imp_world_for_each_pair.

typedef struct busy_probe {
	imp_world *w;
	const imp_shape *shape;
	int calls;
	int wrong; ///< calls that did not answer as expected
	char first[160];
} busy_probe;

static void probe_expect(busy_probe *p, imp_status got, imp_status want, const char *what)
{
	if (got != want) {
		if (!p->wrong)
			snprintf(p->first, sizeof p->first, "%s: %s, expected %s", what, imp_status_string(got),
				 imp_status_string(want));
		++p->wrong;
	}
}

static bool busy_pair(imp_body_id a, imp_body_id b, void *user)
{
	busy_probe *p = user;
	++p->calls;
	imp_world *w = p->w;
	int dim = imp_world_dim(w);
	imp_body_def d = imp_default_body_def();
	d.shape = p->shape;
	imp_body_id out = ID_SENTINEL;
	probe_expect(p, imp_world_add_body(w, &d, &out), IMP_ERR_BUSY, "add_body");
	if (!imp_body_id_equal(out, ID_SENTINEL))
		probe_expect(p, IMP_ERR_BUSY, IMP_OK, "add_body wrote its output");
	probe_expect(p, imp_world_remove_body(w, a), IMP_ERR_BUSY, "remove_body");
	if (dim == 2)
		probe_expect(p, imp_body_set_pose2(w, b, imp_pose2_make(50, 50, 0)), IMP_ERR_BUSY, "set_pose2");
	else
		probe_expect(p, imp_body_set_pose3(w, b, imp_pose3_make(V3(50, 50, 50), imp_quat_identity())),
			     IMP_ERR_BUSY, "set_pose3");
	imp_filter none = {0, 0, 0};
	probe_expect(p, imp_body_set_filter(w, a, none), IMP_ERR_BUSY, "set_filter");
	probe_expect(p, imp_world_update(w), IMP_ERR_BUSY, "update");
	// Reading is allowed.
	if (!imp_body_is_valid(w, a) || !imp_body_is_valid(w, b))
		probe_expect(p, IMP_ERR_BAD_ID, IMP_OK, "is_valid inside the callback");
	imp_filter f;
	probe_expect(p, imp_body_get_filter(w, a, &f), IMP_OK, "get_filter");
	if (dim == 2) {
		imp_aabb2 box;
		probe_expect(p, imp_body_get_aabb2(w, b, &box), IMP_OK, "get_aabb2");
	} else {
		imp_aabb3 box;
		probe_expect(p, imp_body_get_aabb3(w, b, &box), IMP_OK, "get_aabb3");
	}
	return true;
}

static void test_busy(void **state)
{
	(void)state;
	imp_shape *s2, *s3;
	assert_int_equal(imp_shape_box2(1, 1, 0, &s2), IMP_OK);
	assert_int_equal(imp_shape_box3(1, 1, 1, 0, &s3), IMP_OK);
	for (int dim = 2; dim <= 3; ++dim) {
		for (int k = 0; k < 3; ++k) {
			imp_world *w = make_world(dim, (imp_broad_kind)k);
			const imp_shape *sh = dim == 2 ? s2 : s3;
			for (int i = 0; i < 5; ++i)
				add_simple(w, sh, 1.5 * i); // a chain of 4 touching pairs
			assert_int_equal(imp_world_update(w), IMP_OK);
			uint64_t h = imp_world_state_hash(w);
			int n = imp_world_body_count(w);
			busy_probe p = {.w = w, .shape = sh};
			assert_int_equal(imp_world_for_each_pair(w, busy_pair, &p), IMP_OK);
			assert_int_equal(p.calls, 4);
			if (p.wrong)
				fail_msg("%dD kind %d: %d calls inside the callback answered wrongly; first: %s", dim, k,
					 p.wrong, p.first);
			assert_true(imp_world_state_hash(w) == h);
			assert_int_equal(imp_world_body_count(w), n);
			// Not busy any more.
			imp_body_id extra = add_simple(w, sh, 100.0);
			assert_int_equal(imp_world_remove_body(w, extra), IMP_OK);
			assert_int_equal(imp_world_update(w), IMP_OK);
			int calls = 0;
			assert_int_equal(imp_world_for_each_pair(w, never_called, &calls), IMP_OK);
			assert_int_equal(calls, 4);
			imp_world_destroy(w);
		}
	}
	imp_shape_destroy(s2);
	imp_shape_destroy(s3);
}

// ---------------------------------------------------------------------------
// Failing allocators.

static void test_oom_create(void **state)
{
	(void)state;
	for (int dim = 2; dim <= 3; ++dim) {
		for (int k = 0; k < 3; ++k) {
			for (int caps = 0; caps < 2; ++caps) {
				long needed = -1;
				for (long fail = 0; fail < 1000 && needed < 0; ++fail) {
					counting c = {0};
					c.fail_at = fail;
					imp_world_def d = imp_default_world_def();
					d.dim = dim;
					d.broad_phase = (imp_broad_kind)k;
					d.allocator = counting_allocator(&c);
					d.body_capacity = caps ? 100 : 0;
					d.pair_capacity = caps ? 300 : 0;
					imp_world *w = WORLD_SENTINEL;
					imp_status st = imp_world_create(&d, &w);
					if (st == IMP_OK) {
						needed = fail;
						imp_world_destroy(w);
					} else {
						assert_int_equal(st, IMP_ERR_OUT_OF_MEMORY);
						assert_ptr_equal(w, WORLD_SENTINEL);
					}
					assert_int_equal(c.live, 0);
					assert_false(c.size_mismatch);
				}
				assert_true(needed >= 1); // a world needs memory
			}
		}
	}
}

/// A small scene for the allocator tests: its bodies, ids and pairs.
typedef struct mini {
	int dim;
	int n;
	ow_body body[256];
	imp_shape *shape[256];
	imp_body_id id[256];
	ow_pair *pairs, *prev; // the world's last two pair sets (scene indices)
	int n_pairs, n_prev, pairs_cap, prev_cap;
	ow_pair *oracle;
	int n_oracle, oracle_cap;
	ow_rng rng;
	char ctx[96]; ///< what the test is doing, for failure messages
} mini;

static void mini_init(mini *m, int dim, uint64_t seed, int n)
{
	memset(m, 0, sizeof *m);
	m->dim = dim;
	m->rng.s = seed;
	snprintf(m->ctx, sizeof m->ctx, "%dD", dim);
	for (int i = 0; i < n; ++i) {
		ow_body *b = &m->body[i];
		double s = ow_range(&m->rng, 0.3, 0.7), e = dim == 2 ? 6.0 : 3.0;
		if (dim == 2) {
			if (i % 2)
				assert_int_equal(imp_shape_circle(V2(0, 0), s, &m->shape[i]), IMP_OK);
			else
				assert_int_equal(imp_shape_box2(s, 0.6 * s, 0, &m->shape[i]), IMP_OK);
			b->pose2 = imp_pose2_make(ow_range(&m->rng, -e, e), ow_range(&m->rng, -e, e),
						  ow_range(&m->rng, 0, 6.28));
			b->pose3 = imp_pose3_identity();
		} else {
			if (i % 2)
				assert_int_equal(imp_shape_sphere(V3(0, 0, 0), s, &m->shape[i]), IMP_OK);
			else
				assert_int_equal(imp_shape_box3(s, 0.6 * s, 0.8 * s, 0, &m->shape[i]), IMP_OK);
			b->pose3 = imp_pose3_make(V3(ow_range(&m->rng, -e, e), ow_range(&m->rng, -e, e),
						     ow_range(&m->rng, -e, e)),
						  ow_quat(&m->rng));
			b->pose2 = imp_pose2_identity();
		}
		b->shape = m->shape[i];
		b->live = false; // until added
		b->type = i % 7 == 0 ? IMP_BODY_STATIC : IMP_BODY_DYNAMIC;
		b->filter = imp_default_filter();
		if (i % 11 == 0)
			b->filter.group = -1;
	}
	m->n = n;
}

static void mini_free(mini *m)
{
	for (int i = 0; i < m->n; ++i)
		imp_shape_destroy(m->shape[i]);
	free(m->pairs);
	free(m->prev);
	free(m->oracle);
}

static imp_body_def mini_def(const mini *m, int s)
{
	imp_body_def d = imp_default_body_def();
	d.shape = m->body[s].shape;
	d.type = m->body[s].type;
	d.pose2 = m->body[s].pose2;
	d.pose3 = m->body[s].pose3;
	d.filter = m->body[s].filter;
	d.user_data = (void *)(uintptr_t)(s + 1);
	return d;
}

static void mini_add(mini *m, imp_world *w, int s)
{
	imp_body_def d = mini_def(m, s);
	assert_int_equal(imp_world_add_body(w, &d, &m->id[s]), IMP_OK);
	m->body[s].live = true;
}

static void mini_move(mini *m, int s)
{
	ow_body *b = &m->body[s];
	if (m->dim == 2)
		b->pose2.p.x += ow_range(&m->rng, -0.3, 0.3);
	else
		b->pose3.p.z += ow_range(&m->rng, -0.3, 0.3);
}

static int mini_scene_of(const mini *m, imp_body_id id)
{
	for (int i = 0; i < m->n; ++i)
		if (imp_body_id_equal(m->id[i], id) && id.index != 0)
			return i;
	return -1;
}

typedef struct mini_collect {
	const mini *m;
	ow_pair *out;
	int n, cap;
	bool bad;
	bool unordered; ///< a pair not after the one before in (a, b) index order
	uint32_t last_a, last_b;
} mini_collect;

static bool mini_pair(imp_body_id a, imp_body_id b, void *user)
{
	mini_collect *c = user;
	if (!(a.index < b.index) || (c->n > 0 && !(a.index > c->last_a || (a.index == c->last_a && b.index > c->last_b))))
		c->unordered = true;
	c->last_a = a.index;
	c->last_b = b.index;
	int sa = mini_scene_of(c->m, a), sb = mini_scene_of(c->m, b);
	if (sa < 0 || sb < 0 || !c->m->body[sa].live || !c->m->body[sb].live) {
		c->bad = true;
		return true;
	}
	if (c->n == c->cap) {
		c->cap = c->cap ? 2 * c->cap : 64;
		c->out = realloc(c->out, (size_t)c->cap * sizeof *c->out);
		assert_non_null(c->out);
	}
	c->out[c->n].a = sa < sb ? sa : sb;
	c->out[c->n].b = sa < sb ? sb : sa;
	c->n++;
	return true;
}

static int pair_cmp(const void *x, const void *y)
{
	const ow_pair *p = x, *q = y;
	if (p->a != q->a)
		return p->a < q->a ? -1 : 1;
	return p->b < q->b ? -1 : (p->b > q->b);
}

static bool has_pair(const ow_pair *list, int n, ow_pair p)
{
	for (int i = 0; i < n; ++i)
		if (list[i].a == p.a && list[i].b == p.b)
			return true;
	return false;
}

/// The events name exactly the pairs in `x` and not in `y`.
static void check_event_list(const mini *m, const imp_pair_event *ev, int count, const ow_pair *x, int nx,
			     const ow_pair *y, int ny, const char *what)
{
	int expected = 0;
	for (int i = 0; i < nx; ++i)
		expected += !has_pair(y, ny, x[i]);
	if (count != expected)
		fail_msg("%s: %s events: %d, expected %d", m->ctx, what, count, expected);
	for (int i = 0; i < count; ++i) {
		int sa = mini_scene_of(m, ev[i].a), sb = mini_scene_of(m, ev[i].b);
		assert_true(sa >= 0 && sb >= 0);
		ow_pair p = {sa < sb ? sa : sb, sa < sb ? sb : sa};
		if (!has_pair(x, nx, p) || has_pair(y, ny, p))
			fail_msg("%s: %s event (%d, %d) is not a difference of the pair sets", m->ctx, what, p.a, p.b);
	}
}

/// After a successful update: the pairs are the oracle's and the events
/// the differences with the pairs of the last successful update.
static void mini_check(mini *m, imp_world *w)
{
	ow_pair *t = m->prev;
	int tc = m->prev_cap;
	m->prev = m->pairs;
	m->prev_cap = m->pairs_cap;
	m->n_prev = m->n_pairs;
	mini_collect c = {.m = m, .out = t, .cap = tc};
	assert_int_equal(imp_world_for_each_pair(w, mini_pair, &c), IMP_OK);
	assert_false(c.bad);
	if (c.unordered)
		fail_msg("%s: imp_world_for_each_pair not in (a, b) index order", m->ctx);
	m->pairs = c.out;
	m->pairs_cap = c.cap;
	m->n_pairs = c.n;
	if (m->n_pairs > 1)
		qsort(m->pairs, (size_t)m->n_pairs, sizeof *m->pairs, pair_cmp);
	ow_rule rule = {0.0, true};
	m->n_oracle = ow_touching_pairs(m->body, m->n, rule, &m->oracle, &m->oracle_cap);
	if (m->n_oracle != m->n_pairs ||
	    (m->n_pairs && memcmp(m->oracle, m->pairs, (size_t)m->n_pairs * sizeof *m->pairs) != 0))
		fail_msg("%s: %d pairs, the oracle has %d (or other ones)", m->ctx, m->n_pairs, m->n_oracle);
	imp_pair_events ev = imp_world_get_events(w);
	check_event_list(m, ev.begin, ev.begin_count, m->pairs, m->n_pairs, m->prev, m->n_prev, "begin");
	check_event_list(m, ev.end, ev.end_count, m->prev, m->n_prev, m->pairs, m->n_pairs, "end");
	assert_int_equal(imp_world_get_stats(w).touching, m->n_pairs);
}

/// A world over the counting allocator with bodies [0, first) added and
/// updated (checked against the oracle).
static imp_world *mini_world(mini *m, counting *c, imp_broad_kind kind, int first)
{
	imp_world_def d = imp_default_world_def();
	d.dim = m->dim;
	d.broad_phase = kind;
	d.allocator = counting_allocator(c);
	imp_world *w = NULL;
	assert_int_equal(imp_world_create(&d, &w), IMP_OK);
	for (int s = 0; s < first; ++s)
		mini_add(m, w, s);
	assert_int_equal(imp_world_update(w), IMP_OK);
	mini_check(m, w);
	return w;
}

enum { MINI_N = 160, MINI_FIRST = 100 };

static void test_oom_add_body(void **state)
{
	(void)state;
	for (int dim = 2; dim <= 3; ++dim) {
		for (int k = 0; k < 3; ++k) {
			mini m;
			mini_init(&m, dim, 0xADD0 + (uint64_t)(dim * 3 + k), MINI_N);
			snprintf(m.ctx, sizeof m.ctx, "%dD kind %d, add_body failing", dim, k);
			counting c = {0};
			c.fail_at = -1;
			imp_world *w = mini_world(&m, &c, (imp_broad_kind)k, 20);
			long failures = 0;
			for (int s = 20; s < MINI_N; ++s) {
				imp_body_def d = mini_def(&m, s);
				for (long fail = 0;; ++fail) {
					uint64_t h = imp_world_state_hash(w);
					int n = imp_world_body_count(w);
					imp_body_id id = ID_SENTINEL;
					c.fail_at = c.calls + fail;
					imp_status st = imp_world_add_body(w, &d, &id);
					c.fail_at = -1;
					if (st == IMP_OK) {
						m.id[s] = id;
						m.body[s].live = true;
						break;
					}
					++failures;
					assert_int_equal(st, IMP_ERR_OUT_OF_MEMORY);
					assert_id_sentinel(id);
					assert_int_equal(imp_world_body_count(w), n);
					assert_true(imp_world_state_hash(w) == h);
					assert_true(fail < 100);
				}
				if (s % 16 == 0) {
					assert_int_equal(imp_world_update(w), IMP_OK);
					mini_check(&m, w);
				}
			}
			assert_int_equal(imp_world_update(w), IMP_OK);
			mini_check(&m, w);
			assert_true(failures > 0); // growing the world needed memory at least once
			imp_world_destroy(w);
			assert_int_equal(c.live, 0);
			assert_false(c.size_mismatch);
			mini_free(&m);
		}
	}
}

/// remove_body, set_pose and set_filter with each allocation failing in
/// turn (they may need none): on failure the world is as it was.
static void test_oom_remove_pose_filter(void **state)
{
	(void)state;
	for (int dim = 2; dim <= 3; ++dim) {
		for (int k = 0; k < 3; ++k) {
			mini m;
			mini_init(&m, dim, 0xBEE0 + (uint64_t)(dim * 3 + k), MINI_FIRST);
			snprintf(m.ctx, sizeof m.ctx, "%dD kind %d, remove/set_pose/set_filter failing", dim, k);
			counting c = {0};
			c.fail_at = -1;
			imp_world *w = mini_world(&m, &c, (imp_broad_kind)k, MINI_FIRST);
			for (int round = 0; round < 4; ++round) {
				for (int s = round; s < MINI_FIRST; s += 4) {
					if (!m.body[s].live)
						continue;
					int op = (s / 4 + round) % 3;
					ow_body next = m.body[s];
					if (op == 1) {
						mini_move(&m, s);
						ow_body moved = m.body[s];
						m.body[s] = next;
						next = moved;
					} else if (op == 2) {
						next.filter.category ^= 1;
					}
					for (long fail = 0;; ++fail) {
						uint64_t h = imp_world_state_hash(w);
						c.fail_at = c.calls + fail;
						imp_status st;
						if (op == 0)
							st = imp_world_remove_body(w, m.id[s]);
						else if (op == 1 && dim == 2)
							st = imp_body_set_pose2(w, m.id[s], next.pose2);
						else if (op == 1)
							st = imp_body_set_pose3(w, m.id[s], next.pose3);
						else
							st = imp_body_set_filter(w, m.id[s], next.filter);
						c.fail_at = -1;
						if (st == IMP_OK)
							break;
						assert_int_equal(st, IMP_ERR_OUT_OF_MEMORY);
						assert_true(imp_world_state_hash(w) == h);
						assert_true(imp_body_is_valid(w, m.id[s]));
						assert_true(fail < 100);
					}
					if (op == 0)
						m.body[s].live = false;
					else
						m.body[s] = next;
				}
				assert_int_equal(imp_world_update(w), IMP_OK);
				mini_check(&m, w);
			}
			imp_world_destroy(w);
			assert_int_equal(c.live, 0);
			assert_false(c.size_mismatch);
			mini_free(&m);
		}
	}
}

/// The operations between two updates of the update test: moves, removes
/// and adds (the added ones reuse the removed slots).
static void mini_churn(mini *m, imp_world *w, int *next_new)
{
	for (int s = 0; s < *next_new; ++s) {
		if (!m->body[s].live)
			continue;
		if (s % 9 == 4) {
			assert_int_equal(imp_world_remove_body(w, m->id[s]), IMP_OK);
			m->body[s].live = false;
		} else if (s % 3 == 0) {
			mini_move(m, s);
			if (m->dim == 2)
				assert_int_equal(imp_body_set_pose2(w, m->id[s], m->body[s].pose2), IMP_OK);
			else
				assert_int_equal(imp_body_set_pose3(w, m->id[s], m->body[s].pose3), IMP_OK);
		}
	}
	for (int k = 0; k < 12 && *next_new < m->n; ++k)
		mini_add(m, w, (*next_new)++);
}

/// update with each allocation failing in turn, the first update and a
/// later one after moves, removes and adds: a failed update returns
/// IMP_ERR_OUT_OF_MEMORY, and the next one (after more moves) gives the
/// oracle's pairs and the events since the last successful update.
static void test_oom_update(void **state)
{
	(void)state;
	for (int dim = 2; dim <= 3; ++dim) {
		for (int k = 0; k < 3; ++k) {
			for (int later = 0; later < 2; ++later) {
				long needed = -1;
				for (long fail = 0; needed < 0; ++fail) {
					assert_true(fail < 2000);
					mini m;
					mini_init(&m, dim, 0x0DD0 + (uint64_t)(dim * 6 + k * 2 + later), MINI_N);
					counting c = {0};
					c.fail_at = -1;
					imp_world *w;
					int next_new = MINI_FIRST;
					snprintf(m.ctx, sizeof m.ctx, "%dD kind %d, %s update, allocation %ld failing", dim, k,
						 later ? "a later" : "the first", fail);
					if (later) {
						w = mini_world(&m, &c, (imp_broad_kind)k, MINI_FIRST);
						mini_churn(&m, w, &next_new);
					} else {
						imp_world_def d = imp_default_world_def();
						d.dim = dim;
						d.broad_phase = (imp_broad_kind)k;
						d.allocator = counting_allocator(&c);
						assert_int_equal(imp_world_create(&d, &w), IMP_OK);
						for (int s = 0; s < MINI_FIRST; ++s)
							mini_add(&m, w, s);
					}
					c.fail_at = c.calls + fail;
					imp_status st = imp_world_update(w);
					c.fail_at = -1;
					if (st == IMP_OK) {
						needed = fail;
					} else {
						assert_int_equal(st, IMP_ERR_OUT_OF_MEMORY);
						// More work before the update that completes it.
						mini_churn(&m, w, &next_new);
						assert_int_equal(imp_world_update(w), IMP_OK);
					}
					mini_check(&m, w);
					// And the world goes on.
					mini_churn(&m, w, &next_new);
					assert_int_equal(imp_world_update(w), IMP_OK);
					mini_check(&m, w);
					imp_world_destroy(w);
					assert_int_equal(c.live, 0);
					assert_false(c.size_mismatch);
					mini_free(&m);
				}
				print_message("%dD kind %d, %s update: %ld allocations could fail\n", dim, k,
					      later ? "a later" : "the first", needed);
				if (!later)
					assert_true(needed > 0);
			}
		}
	}
}

/// Destroying a world with bodies, pairs and events frees everything.
static void test_destroy_frees(void **state)
{
	(void)state;
	for (int dim = 2; dim <= 3; ++dim) {
		for (int k = 0; k < 3; ++k) {
			mini m;
			mini_init(&m, dim, 0xF5EE + (uint64_t)k, MINI_N);
			snprintf(m.ctx, sizeof m.ctx, "%dD kind %d, destroy", dim, k);
			counting c = {0};
			c.fail_at = -1;
			imp_world *w = mini_world(&m, &c, (imp_broad_kind)k, MINI_FIRST);
			int next_new = MINI_FIRST;
			mini_churn(&m, w, &next_new);
			assert_true(c.live > 0);
			imp_world_destroy(w);
			assert_int_equal(c.live, 0);
			assert_false(c.size_mismatch);
			mini_free(&m);
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_status_strings),
		cmocka_unit_test(test_create_errors),
		cmocka_unit_test(test_add_body_errors),
		cmocka_unit_test(test_id_errors),
		cmocka_unit_test(test_pose_errors),
		cmocka_unit_test(test_null_world),
		cmocka_unit_test(test_busy),
		cmocka_unit_test(test_oom_create),
		cmocka_unit_test(test_oom_add_body),
		cmocka_unit_test(test_oom_remove_pose_filter),
		cmocka_unit_test(test_oom_update),
		cmocka_unit_test(test_destroy_frees),
	};
	return cmocka_run_group_tests(tests, bad_input_setup, NULL);
}
