// SPDX-License-Identifier: MIT
// Every error path of the public 2D API: NULL pointers, counts, NaN and
// infinities, radii, rotations, non-shapes, options, failing allocators;
// on error the outputs (and caches) are unchanged. Also the status and
// state names, the version and the default options.
#include <float.h>
#include <limits.h>
#include <math.h>
#include <setjmp.h>
#include <stdalign.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <impact/impact.h>

#include "bad_input.h"
#include "counting_alloc.h"

#define V(x, y) imp_vec2_make((x), (y))

static void test_names_version_defaults(void **state)
{
	(void)state;
	assert_int_equal(imp_version(), IMP_VERSION_MAJOR * 10000 + IMP_VERSION_MINOR * 100 + IMP_VERSION_PATCH);
	assert_string_equal(imp_status_string(IMP_OK), "ok");
	const char *unknown = imp_status_string(IMP_STATUS_COUNT);
	assert_non_null(unknown);
	assert_string_equal(unknown, "unknown status");
	assert_string_equal(imp_status_string((imp_status)-1), "unknown status");
	assert_string_equal(imp_status_string((imp_status)1000), "unknown status");
	for (int i = 0; i < IMP_STATUS_COUNT; i++) {
		const char *s = imp_status_string((imp_status)i);
		assert_non_null(s);
		assert_true(strlen(s) > 0);
		assert_string_not_equal(s, "unknown status");
		for (int j = 0; j < i; j++)
			assert_string_not_equal(s, imp_status_string((imp_status)j));
	}
	assert_string_equal(imp_query_state_string(IMP_STATE_SEPARATED), "separated");
	for (int i = IMP_STATE_SEPARATED; i <= IMP_STATE_DEGENERATE; i++) {
		const char *s = imp_query_state_string((imp_query_state)i);
		assert_non_null(s);
		assert_true(strlen(s) > 0);
		for (int j = IMP_STATE_SEPARATED; j < i; j++)
			assert_string_not_equal(s, imp_query_state_string((imp_query_state)j));
	}
	imp_query_options o = imp_default_query_options();
	assert_int_equal(o.max_iterations, 64);
	assert_int_equal(o.epa_max_iterations, 64);
	assert_true(o.tolerance == 1e-12);
	assert_int_equal(o.support, IMP_SUPPORT_AUTO);
	assert_true(o.hill_climb_min_vertices >= 3);
	assert_int_equal(o.penetration, IMP_PENETRATION_AUTO);
}

static void test_polygon_errors(void **state)
{
	(void)state;
	imp_vec2 pts[] = {V(0, 0), V(1, 0), V(0, 1), V(1, 1)};
	imp_shape *out = SENTINEL;
	assert_int_equal(imp_shape_polygon(NULL, 4, 0.0, &out), IMP_ERR_NULL_ARGUMENT);
	assert_ptr_equal(out, SENTINEL);
	assert_int_equal(imp_shape_polygon(pts, 4, 0.0, NULL), IMP_ERR_NULL_ARGUMENT);
	int bad_counts[] = {0, -1, INT_MIN, IMP_POLYGON_MAX_POINTS + 1, INT_MAX};
	for (int i = 0; i < 5; i++) {
		// A buffer as long as the count claims (zeros: finite), so reading
		// it is no fault; the count itself is the error.
		imp_vec2 *big = NULL;
		if (bad_counts[i] == IMP_POLYGON_MAX_POINTS + 1) {
			big = calloc((size_t)bad_counts[i], sizeof *big);
			assert_non_null(big);
		}
		assert_int_equal(imp_shape_polygon(big ? big : pts, bad_counts[i], 0.0, &out), IMP_ERR_BAD_COUNT);
		assert_ptr_equal(out, SENTINEL);
		free(big);
	}
	// The largest count is accepted.
	imp_vec2 *maxp = calloc(IMP_POLYGON_MAX_POINTS, sizeof *maxp);
	assert_non_null(maxp);
	maxp[7] = V(1, 0);
	maxp[IMP_POLYGON_MAX_POINTS - 1] = V(0, 1);
	imp_shape *s = NULL;
	assert_int_equal(imp_shape_polygon(maxp, IMP_POLYGON_MAX_POINTS, 0.0, &s), IMP_OK);
	assert_int_equal(imp_shape_vertex_count(s), 3);
	imp_shape_destroy(s);
	free(maxp);
	// Non-finite coordinates anywhere.
	for (int k = 0; k < 4; k++)
		for (int pos = 0; pos < 4; pos++)
			for (int axis = 0; axis < 2; axis++) {
				imp_vec2 p[4];
				memcpy(p, pts, sizeof p);
				if (axis)
					p[pos].y = bad_numbers[k];
				else
					p[pos].x = bad_numbers[k];
				assert_int_equal(imp_shape_polygon(p, 4, 0.0, &out), IMP_ERR_NOT_FINITE);
				assert_ptr_equal(out, SENTINEL);
				assert_int_equal(imp_shape_polygon_ex(p, 4, 0.0, NULL, &out), IMP_ERR_NOT_FINITE);
				assert_ptr_equal(out, SENTINEL);
			}
	// Radii.
	double bad_r[] = {-1.0, -1e-300, -DBL_MIN, NAN, INFINITY, -INFINITY};
	for (int i = 0; i < 6; i++) {
		assert_int_equal(imp_shape_polygon(pts, 4, bad_r[i], &out), IMP_ERR_BAD_RADIUS);
		assert_ptr_equal(out, SENTINEL);
	}
	assert_int_equal(imp_shape_polygon(pts, 4, -0.0, &s), IMP_OK);
	assert_true(imp_shape_radius(s) == 0.0);
	imp_shape_destroy(s);
	assert_int_equal(imp_shape_polygon(pts, 1, IMP_MAX_COORDINATE, &s), IMP_OK);
	imp_shape_destroy(s);
	// Beyond IMP_MAX_COORDINATE: radii and points.
	assert_int_equal(imp_shape_polygon(pts, 1, DBL_MAX / 4, &out), IMP_ERR_OUT_OF_RANGE);
	assert_ptr_equal(out, SENTINEL);
	assert_int_equal(imp_shape_polygon(pts, 4, 2 * IMP_MAX_COORDINATE, &out), IMP_ERR_OUT_OF_RANGE);
	assert_ptr_equal(out, SENTINEL);
	imp_vec2 far[3] = {{0, 0}, {1, 0}, {0, -1e151}};
	assert_int_equal(imp_shape_polygon(far, 3, 0.0, &out), IMP_ERR_OUT_OF_RANGE);
	assert_ptr_equal(out, SENTINEL);
	far[2] = imp_vec2_make(IMP_MAX_COORDINATE, -IMP_MAX_COORDINATE);
	assert_int_equal(imp_shape_polygon(far, 3, 0.0, &s), IMP_OK);
	imp_shape_destroy(s);
	assert_int_equal(imp_shape_box2(1e151, 1.0, 0.0, &out), IMP_ERR_OUT_OF_RANGE);
	assert_ptr_equal(out, SENTINEL);
}

static void test_helper_errors(void **state)
{
	(void)state;
	imp_shape *out = SENTINEL;
	double bad_r[] = {0.0, -0.0, -1.0, NAN, INFINITY, -INFINITY};
	for (int i = 0; i < 6; i++) {
		assert_int_equal(imp_shape_circle(V(0, 0), bad_r[i], &out), IMP_ERR_BAD_RADIUS);
		assert_int_equal(imp_shape_capsule2(V(0, 0), V(1, 0), bad_r[i], &out), IMP_ERR_BAD_RADIUS);
		assert_ptr_equal(out, SENTINEL);
	}
	double bad_round[] = {-1.0, NAN, INFINITY, -INFINITY};
	for (int i = 0; i < 4; i++) {
		assert_int_equal(imp_shape_box2(1.0, 1.0, bad_round[i], &out), IMP_ERR_BAD_RADIUS);
		assert_ptr_equal(out, SENTINEL);
	}
	for (int k = 0; k < 4; k++) {
		double b = bad_numbers[k];
		assert_int_equal(imp_shape_circle(V(b, 0), 1.0, &out), IMP_ERR_NOT_FINITE);
		assert_int_equal(imp_shape_circle(V(0, b), 1.0, &out), IMP_ERR_NOT_FINITE);
		assert_int_equal(imp_shape_capsule2(V(b, 0), V(1, 0), 1.0, &out), IMP_ERR_NOT_FINITE);
		assert_int_equal(imp_shape_capsule2(V(0, 0), V(1, b), 1.0, &out), IMP_ERR_NOT_FINITE);
		assert_int_equal(imp_shape_segment2(V(0, b), V(1, 0), &out), IMP_ERR_NOT_FINITE);
		assert_int_equal(imp_shape_segment2(V(0, 0), V(b, 0), &out), IMP_ERR_NOT_FINITE);
		assert_ptr_equal(out, SENTINEL);
	}
	assert_int_equal(imp_shape_circle(V(0, 0), 1.0, NULL), IMP_ERR_NULL_ARGUMENT);
	assert_int_equal(imp_shape_capsule2(V(0, 0), V(1, 0), 1.0, NULL), IMP_ERR_NULL_ARGUMENT);
	assert_int_equal(imp_shape_segment2(V(0, 0), V(1, 0), NULL), IMP_ERR_NULL_ARGUMENT);
	assert_int_equal(imp_shape_box2(1.0, 1.0, 0.0, NULL), IMP_ERR_NULL_ARGUMENT);
}

// Box sizes: base.h: IMP_ERR_BAD_RADIUS is "a radius or size negative or not
// finite"; imp_shape_box2: "hx, hy must be > 0".
static void test_box_size_errors(void **state)
{
	(void)state;
	imp_shape *out = SENTINEL;
	double bad_r[] = {0.0, -0.0, -1.0, NAN, INFINITY, -INFINITY};
	for (int i = 0; i < 6; i++) {
		imp_status s1 = imp_shape_box2(bad_r[i], 1.0, 0.0, &out);
		imp_status s2 = imp_shape_box2(1.0, bad_r[i], 0.0, &out);
		if (s1 != IMP_ERR_BAD_RADIUS || s2 != IMP_ERR_BAD_RADIUS)
			print_message("box2 with size %g: %s / %s\n", bad_r[i], imp_status_string(s1), imp_status_string(s2));
		assert_int_equal(s1, IMP_ERR_BAD_RADIUS);
		assert_int_equal(s2, IMP_ERR_BAD_RADIUS);
		assert_ptr_equal(out, SENTINEL);
	}
}

static imp_vec2 unit_support(const void *user, imp_vec2 d)
{
	(void)user;
	return V(d.x > 0 ? 1 : -1, d.y > 0 ? 1 : -1);
}

static void test_user_errors(void **state)
{
	(void)state;
	static int user;
	imp_shape *out = SENTINEL;
	assert_int_equal(imp_shape_user2(NULL, &user, 0.0, &out), IMP_ERR_NULL_ARGUMENT);
	assert_ptr_equal(out, SENTINEL);
	assert_int_equal(imp_shape_user2(unit_support, &user, 0.0, NULL), IMP_ERR_NULL_ARGUMENT);
	double bad_r[] = {-1.0, NAN, INFINITY, -INFINITY};
	for (int i = 0; i < 4; i++) {
		assert_int_equal(imp_shape_user2(unit_support, &user, bad_r[i], &out), IMP_ERR_BAD_RADIUS);
		assert_ptr_equal(out, SENTINEL);
	}
	imp_shape *s = NULL;
	assert_int_equal(imp_shape_user2(unit_support, &user, 0.0, &s), IMP_OK);
	imp_shape_destroy(s);
}

static void test_shape_accessors_invalid(void **state)
{
	(void)state;
	imp_shape_destroy(NULL);
	const imp_shape *bad[] = {NULL, NOT_SHAPE, JUNK_SHAPE};
	for (int i = 0; i < 3; i++) {
		assert_int_equal(imp_shape_dim(bad[i]), 0);
		assert_int_equal(imp_shape_kind_of(bad[i]), 0);
		assert_true(isnan(imp_shape_radius(bad[i])));
		assert_int_equal(imp_shape_vertex_count(bad[i]), -1);
		imp_vec2 v[4] = {V(7, 7), V(7, 7), V(7, 7), V(7, 7)};
		assert_int_equal(imp_shape_vertices2(bad[i], v, 4), -1);
		assert_true(v[0].x == 7 && v[3].y == 7);
	}
	imp_shape *s = NULL;
	assert_int_equal(imp_shape_box2(1, 1, 0, &s), IMP_OK);
	assert_int_equal(imp_shape_vertices2(s, NULL, 1), -1);
	assert_int_equal(imp_shape_vertices2(s, NULL, 0), 4);
	imp_shape_destroy(s);
	// The not-shapes are untouched by all of this.
	for (size_t i = 0; i < sizeof bad_zero_buf; i++) {
		assert_int_equal(bad_zero_buf[i], 0);
		assert_int_equal(bad_junk_buf[i], 0xA5);
	}
}

// Bad poses: each with the status a status-returning call must give.
typedef struct bad_pose {
	imp_pose2 pose;
	imp_status status;
} bad_pose;

static int bad_poses(bad_pose *out)
{
	int n = 0;
	for (int k = 0; k < 4; k++) {
		double b = bad_numbers[k];
		imp_pose2 p = imp_pose2_identity();
		p.p.x = b;
		out[n++] = (bad_pose){p, IMP_ERR_NOT_FINITE};
		p = imp_pose2_identity();
		p.p.y = b;
		out[n++] = (bad_pose){p, IMP_ERR_NOT_FINITE};
		p = imp_pose2_identity();
		p.q.c = b;
		out[n++] = (bad_pose){p, IMP_ERR_NOT_FINITE};
		p = imp_pose2_identity();
		p.q.s = b;
		out[n++] = (bad_pose){p, IMP_ERR_NOT_FINITE};
	}
	imp_pose2 p = imp_pose2_identity();
	p.q.c = 2.0;
	out[n++] = (bad_pose){p, IMP_ERR_BAD_ROTATION};
	p.q.c = 0.0;
	p.q.s = 0.0;
	out[n++] = (bad_pose){p, IMP_ERR_BAD_ROTATION};
	p.q.c = 1.0;
	p.q.s = 0.1;
	out[n++] = (bad_pose){p, IMP_ERR_BAD_ROTATION};
	p.q.c = 1.0 + 1e-8; // |c^2 + s^2 - 1| = 2e-8 > 1e-9
	p.q.s = 0.0;
	out[n++] = (bad_pose){p, IMP_ERR_BAD_ROTATION};
	p.q.c = -0.6 * 0.999;
	p.q.s = 0.8 * 0.999;
	out[n++] = (bad_pose){p, IMP_ERR_BAD_ROTATION};
	// Finite but beyond IMP_MAX_COORDINATE.
	out[n++] = (bad_pose){imp_pose2_make(1e308, 1e308, 0.0), IMP_ERR_OUT_OF_RANGE};
	out[n++] = (bad_pose){imp_pose2_make(0.0, -1.5 * IMP_MAX_COORDINATE, 1.0), IMP_ERR_OUT_OF_RANGE};
	out[n++] = (bad_pose){imp_pose2_make(DBL_MAX, 0.0, 1.0), IMP_ERR_OUT_OF_RANGE};
	return n;
}

static void test_pose_validity(void **state)
{
	(void)state;
	bad_pose bp[32];
	int n = bad_poses(bp);
	for (int i = 0; i < n; i++)
		assert_false(imp_pose2_is_valid(bp[i].pose));
	assert_true(imp_pose2_is_valid(imp_pose2_identity()));
	assert_true(imp_pose2_is_valid(imp_pose2_make(IMP_MAX_COORDINATE, -IMP_MAX_COORDINATE, 2.5)));
	assert_false(imp_pose2_is_valid(imp_pose2_make(1e300, -1e300, 2.5)));
	assert_false(imp_pose2_is_valid(imp_pose2_make(0.0, -2e150, 2.5)));
	for (int i = 0; i < 100; i++)
		assert_true(imp_pose2_is_valid(imp_pose2_make(i, -i, 0.37 * i)));
	imp_pose2 p = imp_pose2_identity();
	p.q.c = 1.0 + 4e-10; // |c^2 - 1| = 8e-10 <= 1e-9: valid
	assert_true(imp_pose2_is_valid(p));
	p.q.c = 1.0 - 4e-10;
	assert_true(imp_pose2_is_valid(p));
	p.q.c = 1.0 + 6e-10; // 1.2e-9: invalid
	assert_false(imp_pose2_is_valid(p));
}

static void test_support_aabb_errors(void **state)
{
	(void)state;
	imp_shape *s = NULL;
	assert_int_equal(imp_shape_box2(1, 2, 0.5, &s), IMP_OK);
	imp_pose2 id = imp_pose2_identity();
	const imp_vec2 sent = V(-12345, 54321);
	imp_vec2 out = sent;
	imp_aabb2 box = {V(-7, -7), V(7, 7)};
#define OUT_SAME() assert_true(out.x == sent.x && out.y == sent.y)
#define BOX_SAME() assert_true(box.lo.x == -7 && box.lo.y == -7 && box.hi.x == 7 && box.hi.y == 7)
	assert_int_equal(imp_shape_support2(NULL, id, V(1, 0), &out), IMP_ERR_NULL_ARGUMENT);
	OUT_SAME();
	assert_int_equal(imp_shape_support2(s, id, V(1, 0), NULL), IMP_ERR_NULL_ARGUMENT);
	assert_int_equal(imp_shape_support2(NOT_SHAPE, id, V(1, 0), &out), IMP_ERR_BAD_SHAPE);
	assert_int_equal(imp_shape_support2(JUNK_SHAPE, id, V(1, 0), &out), IMP_ERR_BAD_SHAPE);
	OUT_SAME();
	assert_int_equal(imp_shape_aabb2(NULL, id, &box), IMP_ERR_NULL_ARGUMENT);
	assert_int_equal(imp_shape_aabb2(s, id, NULL), IMP_ERR_NULL_ARGUMENT);
	assert_int_equal(imp_shape_aabb2(NOT_SHAPE, id, &box), IMP_ERR_BAD_SHAPE);
	assert_int_equal(imp_shape_aabb2(JUNK_SHAPE, id, &box), IMP_ERR_BAD_SHAPE);
	BOX_SAME();
	for (int k = 0; k < 4; k++) {
		double b = bad_numbers[k];
		assert_int_equal(imp_shape_support2(s, id, V(b, 0), &out), IMP_ERR_NOT_FINITE);
		assert_int_equal(imp_shape_support2(s, id, V(1, b), &out), IMP_ERR_NOT_FINITE);
		OUT_SAME();
	}
	imp_status st = imp_shape_support2(s, id, V(0, 0), &out);
	assert_int_not_equal(st, IMP_OK);
	OUT_SAME();
	st = imp_shape_support2(s, id, V(-0.0, 0), &out);
	assert_int_not_equal(st, IMP_OK);
	OUT_SAME();
	bad_pose bp[32];
	int n = bad_poses(bp);
	for (int i = 0; i < n; i++) {
		assert_int_equal(imp_shape_support2(s, bp[i].pose, V(1, 0), &out), bp[i].status);
		OUT_SAME();
		assert_int_equal(imp_shape_aabb2(s, bp[i].pose, &box), bp[i].status);
		BOX_SAME();
	}
	imp_shape_destroy(s);
#undef OUT_SAME
#undef BOX_SAME
}

// The three queries (and the _ex forms and stats) on invalid input.
typedef struct query_fixture {
	imp_shape *a, *b;
	imp_pose2 pa, pb; // valid poses at which a and b overlap
} query_fixture;

static void fixture(query_fixture *f)
{
	assert_int_equal(imp_shape_box2(1, 1, 0, &f->a), IMP_OK);
	assert_int_equal(imp_shape_circle(V(0, 0), 0.5, &f->b), IMP_OK);
	f->pa = imp_pose2_identity();
	f->pb = imp_pose2_make(0.5, 0.25, 0.3);
	assert_true(imp_overlap2(f->a, f->pa, f->b, f->pb, NULL)); // the baseline is true
}

static void fixture_free(query_fixture *f)
{
	imp_shape_destroy(f->a);
	imp_shape_destroy(f->b);
}

static void fill(void *p, size_t n, unsigned char v)
{
	memset(p, v, n);
}

// Runs all query entry points on (a, pa, b, pb) and expects the invalid
// answer with status `want` (and untouched out and cache).
static void expect_invalid(const imp_shape *a, imp_pose2 pa, const imp_shape *b, imp_pose2 pb,
			   const imp_query_options *opt, imp_status want)
{
	imp_simplex_cache cache, cache_copy;
	fill(&cache, sizeof cache, 0);
	cache.count = 1;
	cache.dim = 2;
	cache.index_a[0] = 0;
	cache.index_b[0] = 0;
	cache.direction[0] = 1.0;
	cache_copy = cache;
	imp_closest2_result out, out_copy;
	fill(&out, sizeof out, 0x5A);
	out_copy = out;
	if (opt == NULL) {
		assert_false(imp_overlap2(a, pa, b, pb, NULL));
		assert_false(imp_overlap2(a, pa, b, pb, &cache));
		assert_true(isnan(imp_distance2(a, pa, b, pb, NULL)));
		assert_true(isnan(imp_distance2(a, pa, b, pb, &cache)));
		assert_int_equal(imp_closest2(a, pa, b, pb, NULL, &out), want);
		assert_int_equal(imp_closest2(a, pa, b, pb, &cache, &out), want);
		assert_memory_equal(&out, &out_copy, sizeof out);
		assert_memory_equal(&cache, &cache_copy, sizeof cache);
	}
	imp_query_options def = imp_default_query_options();
	const imp_query_options *o = opt ? opt : &def;
	assert_false(imp_overlap2_ex(a, pa, b, pb, NULL, o));
	assert_false(imp_overlap2_ex(a, pa, b, pb, &cache, o));
	assert_true(isnan(imp_distance2_ex(a, pa, b, pb, NULL, o)));
	assert_true(isnan(imp_distance2_ex(a, pa, b, pb, &cache, o)));
	assert_int_equal(imp_closest2_ex(a, pa, b, pb, NULL, o, &out), want);
	assert_int_equal(imp_closest2_ex(a, pa, b, pb, &cache, o, &out), want);
	int iters = 0;
	imp_query_state qs = IMP_STATE_SEPARATED;
	assert_true(isnan(imp_distance2_stats(a, pa, b, pb, NULL, o, &iters, &qs)));
	assert_true(isnan(imp_distance2_stats(a, pa, b, pb, &cache, o, &iters, &qs)));
	assert_memory_equal(&out, &out_copy, sizeof out);
	assert_memory_equal(&cache, &cache_copy, sizeof cache);
}

static void test_query_errors(void **state)
{
	(void)state;
	query_fixture f;
	fixture(&f);
	// NULL and not-shapes, on either side.
	expect_invalid(NULL, f.pa, f.b, f.pb, NULL, IMP_ERR_NULL_ARGUMENT);
	expect_invalid(f.a, f.pa, NULL, f.pb, NULL, IMP_ERR_NULL_ARGUMENT);
	expect_invalid(NOT_SHAPE, f.pa, f.b, f.pb, NULL, IMP_ERR_BAD_SHAPE);
	expect_invalid(f.a, f.pa, NOT_SHAPE, f.pb, NULL, IMP_ERR_BAD_SHAPE);
	expect_invalid(JUNK_SHAPE, f.pa, f.b, f.pb, NULL, IMP_ERR_BAD_SHAPE);
	expect_invalid(f.a, f.pa, JUNK_SHAPE, f.pb, NULL, IMP_ERR_BAD_SHAPE);
	// NULL out.
	assert_int_equal(imp_closest2(f.a, f.pa, f.b, f.pb, NULL, NULL), IMP_ERR_NULL_ARGUMENT);
	assert_int_equal(imp_closest2_ex(f.a, f.pa, f.b, f.pb, NULL, NULL, NULL), IMP_ERR_NULL_ARGUMENT);
	// Bad poses on either side.
	bad_pose bp[32];
	int n = bad_poses(bp);
	for (int i = 0; i < n; i++) {
		expect_invalid(f.a, bp[i].pose, f.b, f.pb, NULL, bp[i].status);
		expect_invalid(f.a, f.pa, f.b, bp[i].pose, NULL, bp[i].status);
	}
	// Poses within the rotation tolerance are accepted.
	imp_pose2 p = f.pb;
	p.q.c *= 1.0 + 4e-10;
	p.q.s *= 1.0 + 4e-10;
	assert_true(imp_overlap2(f.a, f.pa, f.b, p, NULL));
	imp_closest2_result r;
	assert_int_equal(imp_closest2(f.a, f.pa, f.b, p, NULL, &r), IMP_OK);
	// Poses at the edge of the range, whose coordinates add up beyond it:
	// answered, not refused (the quick check's sum is stricter).
	{
		double m = 0.9 * IMP_MAX_COORDINATE;
		imp_pose2 qa = imp_pose2_make(m, -m, 0.0), qb = imp_pose2_make(m, -m, 0.5);
		assert_true(imp_overlap2(f.a, qa, f.b, qb, NULL));
		assert_true(imp_distance2(f.a, qa, f.b, qb, NULL) == 0.0);
		assert_int_equal(imp_closest2(f.a, qa, f.b, qb, NULL, &r), IMP_OK);
		assert_true(r.distance < 0.0);
	}
	// NULL options mean the defaults.
	assert_true(imp_overlap2_ex(f.a, f.pa, f.b, f.pb, NULL, NULL));
	assert_true(imp_distance2_ex(f.a, f.pa, f.b, f.pb, NULL, NULL) == 0.0);
	imp_closest2_result r2;
	assert_int_equal(imp_closest2_ex(f.a, f.pa, f.b, f.pb, NULL, NULL, &r2), IMP_OK);
	assert_int_equal(imp_closest2(f.a, f.pa, f.b, f.pb, NULL, &r), IMP_OK);
	assert_true(r.distance == r2.distance);
	fixture_free(&f);
}

static void test_options_errors(void **state)
{
	(void)state;
	query_fixture f;
	fixture(&f);
	imp_query_options bad[40];
	int n = 0;
	imp_query_options d = imp_default_query_options();
	int bad_iters[] = {0, -1, INT_MIN};
	for (int i = 0; i < 3; i++) {
		bad[n] = d;
		bad[n++].max_iterations = bad_iters[i];
		bad[n] = d;
		bad[n++].epa_max_iterations = bad_iters[i];
	}
	double bad_tol[] = {NAN, 0.0, -1e-12, 0.1, 1.0, INFINITY, -INFINITY};
	for (int i = 0; i < 7; i++) {
		bad[n] = d;
		bad[n++].tolerance = bad_tol[i];
	}
	int bad_support[] = {3, -1, 100};
	for (int i = 0; i < 3; i++) {
		bad[n] = d;
		bad[n++].support = (imp_support_mode)bad_support[i];
	}
	int bad_pen[] = {2, -1, 1000};
	for (int i = 0; i < 3; i++) {
		bad[n] = d;
		bad[n++].penetration = (imp_penetration_mode)bad_pen[i];
	}
	int bad_accel[] = {3, -1, 100};
	for (int i = 0; i < 3; i++) {
		bad[n] = d;
		bad[n++].acceleration = (imp_acceleration_mode)bad_accel[i];
	}
	int bad_hc[] = {2, 0, -1};
	for (int i = 0; i < 3; i++) {
		bad[n] = d;
		bad[n++].hill_climb_min_vertices = bad_hc[i];
	}
	for (int i = 0; i < n; i++)
		expect_invalid(f.a, f.pa, f.b, f.pb, &bad[i], IMP_ERR_BAD_OPTIONS);
	// The edges of the valid ranges are accepted.
	imp_query_options ok[7];
	for (int i = 0; i < 7; i++)
		ok[i] = d;
	ok[6].penetration = IMP_PENETRATION_EPA;
	ok[0].max_iterations = 1;
	ok[1].epa_max_iterations = 1;
	ok[2].tolerance = 0.09;
	ok[3].tolerance = 1e-300;
	ok[4].hill_climb_min_vertices = 3;
	ok[5].support = IMP_SUPPORT_HILL_CLIMB;
	for (int i = 0; i < 7; i++) {
		imp_closest2_result r;
		assert_int_equal(imp_closest2_ex(f.a, f.pa, f.b, f.pb, NULL, &ok[i], &r), IMP_OK);
		assert_true(imp_overlap2_ex(f.a, f.pa, f.b, f.pb, NULL, &ok[i]));
		assert_false(isnan(imp_distance2_ex(f.a, f.pa, f.b, f.pb, NULL, &ok[i])));
	}
	fixture_free(&f);
}

static void test_allocator(void **state)
{
	(void)state;
	enum { N = 3000 };
	imp_vec2 *pts = malloc(N * sizeof *pts);
	for (int i = 0; i < N; i++)
		pts[i] = V(cos(i * 2.399963), sin(i * 2.399963) * (1.0 + 0.001 * i)); // many hull vertices
	counting c = {0};
	c.fail_at = -1;
	imp_allocator al = counting_allocator(&c);
	// A working allocator is used and gets everything back, with the sizes.
	imp_shape *s = NULL;
	assert_int_equal(imp_shape_polygon_ex(pts, N, 0.1, &al, &s), IMP_OK);
	assert_true(c.allocs >= 1);
	assert_true(c.live >= 1);
	imp_closest2_result r;
	assert_int_equal(imp_closest2(s, imp_pose2_identity(), s, imp_pose2_make(0.5, 0, 1), NULL, &r), IMP_OK);
	imp_shape_destroy(s);
	assert_int_equal(c.live, 0);
	assert_false(c.size_mismatch);
	long calls_needed = c.calls;
	print_message("polygon_ex of %d points: %ld allocator calls (%ld realloc)\n", N, calls_needed, c.reallocs);
	// An allocator that always fails.
	c = (counting){0};
	c.fail_at = 0;
	imp_shape *out = SENTINEL;
	assert_int_equal(imp_shape_polygon_ex(pts, N, 0.1, &al, &out), IMP_ERR_OUT_OF_MEMORY);
	assert_ptr_equal(out, SENTINEL);
	assert_int_equal(c.live, 0);
	// Failing at every call in turn: an error and nothing left, or success.
	for (long k = 0; k <= calls_needed; k++) {
		c = (counting){0};
		c.fail_at = k;
		out = SENTINEL;
		imp_status st = imp_shape_polygon_ex(pts, N, 0.1, &al, &out);
		if (k < calls_needed) {
			assert_int_equal(st, IMP_ERR_OUT_OF_MEMORY);
			assert_ptr_equal(out, SENTINEL);
			assert_int_equal(c.live, 0);
		} else {
			assert_int_equal(st, IMP_OK);
			imp_shape_destroy(out);
			assert_int_equal(c.live, 0);
		}
		assert_false(c.size_mismatch);
	}
	// Small shapes too, and errors before allocation allocate nothing.
	c = (counting){0};
	c.fail_at = -1;
	imp_vec2 one = V(1, 1);
	assert_int_equal(imp_shape_polygon_ex(&one, 1, 0.5, &al, &s), IMP_OK);
	imp_shape_destroy(s);
	assert_int_equal(c.live, 0);
	long before = c.allocs;
	out = SENTINEL;
	imp_vec2 nanp = V(NAN, 0);
	assert_int_equal(imp_shape_polygon_ex(&nanp, 1, 0.5, &al, &out), IMP_ERR_NOT_FINITE);
	assert_int_equal(imp_shape_polygon_ex(&one, 0, 0.5, &al, &out), IMP_ERR_BAD_COUNT);
	assert_int_equal(imp_shape_polygon_ex(&one, 1, -0.5, &al, &out), IMP_ERR_BAD_RADIUS);
	assert_int_equal(imp_shape_polygon_ex(NULL, 1, 0.5, &al, &out), IMP_ERR_NULL_ARGUMENT);
	assert_int_equal(imp_shape_polygon_ex(&one, 1, 0.5, &al, NULL), IMP_ERR_NULL_ARGUMENT);
	assert_int_equal(c.allocs, before);
	assert_int_equal(c.live, 0);
	assert_ptr_equal(out, SENTINEL);
	// NULL and zeroed allocators mean malloc.
	assert_int_equal(imp_shape_polygon_ex(pts, 10, 0.0, NULL, &s), IMP_OK);
	imp_shape_destroy(s);
	imp_allocator zero = {0};
	assert_int_equal(imp_shape_polygon_ex(pts, 10, 0.0, &zero, &s), IMP_OK);
	imp_shape_destroy(s);
	free(pts);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names_version_defaults),
		cmocka_unit_test(test_polygon_errors),
		cmocka_unit_test(test_helper_errors),
		cmocka_unit_test(test_box_size_errors),
		cmocka_unit_test(test_user_errors),
		cmocka_unit_test(test_shape_accessors_invalid),
		cmocka_unit_test(test_pose_validity),
		cmocka_unit_test(test_support_aabb_errors),
		cmocka_unit_test(test_query_errors),
		cmocka_unit_test(test_options_errors),
		cmocka_unit_test(test_allocator),
	};
	return cmocka_run_group_tests(tests, bad_input_setup, NULL);
}
