// SPDX-License-Identifier: MIT
// imp_world_set_poses2/3, the batch pose setter, against its definition: a
// loop of imp_body_set_pose2/3 in the same order, on a twin world built the
// same way. Random batches over mixed shapes (turning and only translating
// bodies, bodies named twice or more, removed and re-added bodies), on both
// broad phases; then the poses read back against the last entry naming each
// body, the state hashes and the touching pairs after each update. Every
// error leaves the world as it was: a bad entry anywhere in a batch (stale,
// foreign or null id, a non-finite, unnormalised or out-of-range pose, a
// user shape whose box is not finite), the argument errors, a call from
// inside a walk, and each allocation failed in turn.
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

#include "counting_alloc.h"
#include "test_rng.h"

#define V2(x, y) imp_vec2_make((x), (y))
#define V3(x, y, z) imp_vec3_make((x), (y), (z))
#define MAX_BODIES 160
#define MAX_BATCH 400

/// A user shape's support: a unit ball's, or NaN while `poisoned` is set.
static bool poisoned;

static imp_vec2 ball2(const void *user, imp_vec2 d)
{
	(void)user;
	double n = sqrt(d.x * d.x + d.y * d.y);
	return poisoned ? V2(NAN, 0.0) : V2(d.x / n, d.y / n);
}

static imp_vec3 ball3(const void *user, imp_vec3 d)
{
	(void)user;
	double n = sqrt(d.x * d.x + d.y * d.y + d.z * d.z);
	return poisoned ? V3(NAN, 0.0, 0.0) : V3(d.x / n, d.y / n, d.z / n);
}

typedef struct shapes {
	imp_shape *s[6];
	int count;
	imp_shape *user; ///< one of s
} shapes;

static void make_shapes(shapes *sh, int dim)
{
	memset(sh, 0, sizeof *sh);
	if (dim == 2) {
		imp_vec2 tri[3] = {V2(0, 0), V2(1.5, 0.2), V2(0.3, 1.1)};
		assert_int_equal(imp_shape_box2(0.5, 0.3, 0.0, &sh->s[0]), IMP_OK);
		assert_int_equal(imp_shape_polygon(tri, 3, 0.1, &sh->s[1]), IMP_OK);
		assert_int_equal(imp_shape_circle(V2(0.2, 0.1), 0.4, &sh->s[2]), IMP_OK);
		assert_int_equal(imp_shape_capsule2(V2(-0.5, 0), V2(0.5, 0.2), 0.2, &sh->s[3]), IMP_OK);
		assert_int_equal(imp_shape_user2(ball2, NULL, 0.0, &sh->s[4]), IMP_OK);
	} else {
		imp_vec3 tet[4] = {V3(0, 0, 0), V3(1.2, 0, 0.1), V3(0.1, 0.9, 0), V3(0.2, 0.1, 1.0)};
		assert_int_equal(imp_shape_box3(0.5, 0.3, 0.4, 0.0, &sh->s[0]), IMP_OK);
		assert_int_equal(imp_shape_polytope(tet, 4, 0.05, &sh->s[1]), IMP_OK);
		assert_int_equal(imp_shape_sphere(V3(0.1, 0.2, 0), 0.4, &sh->s[2]), IMP_OK);
		assert_int_equal(imp_shape_capsule3(V3(-0.5, 0, 0), V3(0.5, 0.1, 0.2), 0.2, &sh->s[3]), IMP_OK);
		assert_int_equal(imp_shape_user3(ball3, NULL, 0.0, &sh->s[4]), IMP_OK);
	}
	sh->count = 5;
	sh->user = sh->s[4];
}

static void free_shapes(shapes *sh)
{
	for (int i = 0; i < sh->count; i++)
		imp_shape_destroy(sh->s[i]);
}

static imp_pose2 random_pose2(rng *r, double extent)
{
	return imp_pose2_make(range(r, -extent, extent), range(r, -extent, extent), range(r, -3.2, 3.2));
}

static imp_pose3 random_pose3(rng *r, double extent)
{
	imp_quat q = {range(r, -1, 1), range(r, -1, 1), range(r, -1, 1), range(r, -1, 1)};
	double n = sqrt(q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w);
	if (n < 1e-3)
		q = imp_quat_identity();
	else
		q = (imp_quat){q.x / n, q.y / n, q.z / n, q.w / n};
	return imp_pose3_make(V3(range(r, -extent, extent), range(r, -extent, extent), range(r, -extent, extent)), q);
}

/// Two worlds built alike: `batch` takes the batches, `loop` the single calls.
typedef struct twins {
	int dim;
	imp_world *batch, *loop;
	imp_body_id ids[MAX_BODIES];  ///< in batch (null when removed)
	imp_body_id lids[MAX_BODIES]; ///< the same bodies in loop
	const imp_shape *shape_of[MAX_BODIES];
	int count;
} twins;

static imp_world *twin_world(int dim, imp_broad_kind kind, const imp_allocator *alloc)
{
	imp_world_def def = imp_default_world_def();
	def.dim = dim;
	def.broad_phase = kind;
	if (alloc != NULL)
		def.allocator = *alloc;
	imp_world *w = NULL;
	assert_int_equal(imp_world_create(&def, &w), IMP_OK);
	return w;
}

static imp_body_id add_to(imp_world *w, const imp_shape *shape, imp_pose2 p2, imp_pose3 p3)
{
	imp_body_def d = imp_default_body_def();
	d.shape = shape;
	d.pose2 = p2;
	d.pose3 = p3;
	imp_body_id id;
	assert_int_equal(imp_world_add_body(w, &d, &id), IMP_OK);
	return id;
}

static void twins_add(twins *t, rng *r, const shapes *sh, int i)
{
	const imp_shape *s = sh->s[(int)(uniform(r) * sh->count) % sh->count];
	imp_pose2 p2 = random_pose2(r, 6.0);
	imp_pose3 p3 = random_pose3(r, 4.0);
	imp_body_id a = add_to(t->batch, s, p2, p3), b = add_to(t->loop, s, p2, p3);
	assert_true(a.index == b.index && a.generation == b.generation);
	t->ids[i] = a;
	t->lids[i] = b;
	t->shape_of[i] = s;
}

static void twins_make(twins *t, int dim, imp_broad_kind kind, rng *r, const shapes *sh, int count)
{
	memset(t, 0, sizeof *t);
	t->dim = dim;
	t->batch = twin_world(dim, kind, NULL);
	t->loop = twin_world(dim, kind, NULL);
	t->count = count;
	for (int i = 0; i < count; i++)
		twins_add(t, r, sh, i);
}

static void twins_free(twins *t)
{
	imp_world_destroy(t->batch);
	imp_world_destroy(t->loop);
}

/// A batch over live bodies: some named two or three times, about half of
/// the entries keeping the body's rotation (a pure translation).
typedef struct batch {
	imp_body_id ids[MAX_BATCH];
	imp_body_id lids[MAX_BATCH]; ///< the same bodies in the loop world
	int body[MAX_BATCH];         ///< their index in twins
	imp_pose2 p2[MAX_BATCH];
	imp_pose3 p3[MAX_BATCH];
	int count;
} batch;

static void make_batch(batch *b, const twins *t, rng *r)
{
	int live[MAX_BODIES], n = 0;
	for (int i = 0; i < t->count; i++)
		if (!imp_body_id_is_null(t->ids[i]))
			live[n++] = i;
	b->count = n == 0 ? 0 : 1 + (int)(uniform(r) * (n + n / 4)) % MAX_BATCH;
	for (int k = 0; k < b->count; k++) {
		int i = live[(int)(uniform(r) * n) % n];
		b->body[k] = i;
		imp_pose2 now2 = imp_pose2_identity();
		imp_pose3 now3 = imp_pose3_identity();
		if (t->dim == 2)
			assert_int_equal(imp_body_get_pose2(t->batch, t->ids[i], &now2), IMP_OK);
		else
			assert_int_equal(imp_body_get_pose3(t->batch, t->ids[i], &now3), IMP_OK);
		b->p2[k] = random_pose2(r, 6.0);
		b->p3[k] = random_pose3(r, 4.0);
		if (uniform(r) < 0.5) { // keep the rotation: the fast path
			b->p2[k].q = now2.q;
			b->p3[k].q = now3.q;
			if (k > 0 && uniform(r) < 0.3) { // the rotation an earlier entry of the same body gave
				b->body[k] = b->body[k - 1];
				b->p2[k].q = b->p2[k - 1].q;
				b->p3[k].q = b->p3[k - 1].q;
			}
		}
		if (k > 0 && uniform(r) < 0.1)
			b->body[k] = b->body[(int)(uniform(r) * k) % k];
		b->ids[k] = t->ids[b->body[k]];
		b->lids[k] = t->lids[b->body[k]];
	}
}

static imp_status apply_batch(imp_world *w, int dim, const batch *b)
{
	return dim == 2 ? imp_world_set_poses2(w, b->ids, b->p2, b->count)
			: imp_world_set_poses3(w, b->ids, b->p3, b->count);
}

static void apply_loop(imp_world *w, int dim, const batch *b)
{
	for (int k = 0; k < b->count; k++)
		assert_int_equal(dim == 2 ? imp_body_set_pose2(w, b->lids[k], b->p2[k])
					  : imp_body_set_pose3(w, b->lids[k], b->p3[k]),
				 IMP_OK);
}

/// Each body's pose is its last entry's, bit for bit, and its box the loop
/// world's.
static void check_poses(const twins *t, const batch *b)
{
	for (int i = 0; i < t->count; i++) {
		if (imp_body_id_is_null(t->ids[i]))
			continue;
		int last = -1;
		for (int k = 0; k < b->count; k++)
			if (b->body[k] == i)
				last = k;
		if (t->dim == 2) {
			imp_pose2 p, q;
			imp_aabb2 x, y;
			assert_int_equal(imp_body_get_pose2(t->batch, t->ids[i], &p), IMP_OK);
			assert_int_equal(imp_body_get_pose2(t->loop, t->lids[i], &q), IMP_OK);
			assert_memory_equal(&p, &q, sizeof p);
			if (last >= 0)
				assert_memory_equal(&p, &b->p2[last], sizeof p);
			assert_int_equal(imp_body_get_aabb2(t->batch, t->ids[i], &x), IMP_OK);
			assert_int_equal(imp_body_get_aabb2(t->loop, t->lids[i], &y), IMP_OK);
			assert_memory_equal(&x, &y, sizeof x);
			// The box holds the shape: its support along each axis.
			imp_aabb2 s;
			assert_int_equal(imp_shape_aabb2(t->shape_of[i], p, &s), IMP_OK);
			assert_memory_equal(&x, &s, sizeof x);
		} else {
			imp_pose3 p, q;
			imp_aabb3 x, y;
			assert_int_equal(imp_body_get_pose3(t->batch, t->ids[i], &p), IMP_OK);
			assert_int_equal(imp_body_get_pose3(t->loop, t->lids[i], &q), IMP_OK);
			assert_memory_equal(&p, &q, sizeof p);
			if (last >= 0)
				assert_memory_equal(&p, &b->p3[last], sizeof p);
			assert_int_equal(imp_body_get_aabb3(t->batch, t->ids[i], &x), IMP_OK);
			assert_int_equal(imp_body_get_aabb3(t->loop, t->lids[i], &y), IMP_OK);
			assert_memory_equal(&x, &y, sizeof x);
			imp_aabb3 s;
			assert_int_equal(imp_shape_aabb3(t->shape_of[i], p, &s), IMP_OK);
			assert_memory_equal(&x, &s, sizeof x);
		}
	}
}

typedef struct pair_list {
	uint64_t keys[MAX_BODIES * MAX_BODIES / 2];
	int count;
} pair_list;

static bool collect_pair(imp_body_id a, imp_body_id b, void *user)
{
	pair_list *l = user;
	l->keys[l->count++] = (uint64_t)a.index << 32 | b.index;
	return true;
}

static void check_same_pairs(const twins *t)
{
	static pair_list x, y;
	x.count = y.count = 0;
	assert_int_equal(imp_world_for_each_pair(t->batch, collect_pair, &x), IMP_OK);
	assert_int_equal(imp_world_for_each_pair(t->loop, collect_pair, &y), IMP_OK);
	assert_int_equal(x.count, y.count);
	assert_memory_equal(x.keys, y.keys, sizeof x.keys[0] * (size_t)x.count);
}

static void run_twins(int dim, imp_broad_kind kind, uint64_t seed)
{
	shapes sh;
	make_shapes(&sh, dim);
	rng r = {seed};
	static twins t;
	twins_make(&t, dim, kind, &r, &sh, MAX_BODIES);
	static batch b;
	long touching = 0;
	for (int round = 0; round < 60; round++) {
		make_batch(&b, &t, &r);
		assert_int_equal(apply_batch(t.batch, dim, &b), IMP_OK);
		apply_loop(t.loop, dim, &b);
		check_poses(&t, &b);
		assert_true(imp_world_state_hash(t.batch) == imp_world_state_hash(t.loop));
		if (round % 3 != 2) { // sometimes two batches before an update
			assert_int_equal(imp_world_update(t.batch), IMP_OK);
			assert_int_equal(imp_world_update(t.loop), IMP_OK);
			assert_true(imp_world_state_hash(t.batch) == imp_world_state_hash(t.loop));
			check_same_pairs(&t);
			touching += imp_world_get_stats(t.batch).touching;
		}
		// Remove and add a few: stale ids, reused slots.
		for (int j = 0; j < 3; j++) {
			int i = (int)(uniform(&r) * t.count) % t.count;
			if (imp_body_id_is_null(t.ids[i])) {
				twins_add(&t, &r, &sh, i);
			} else {
				assert_int_equal(imp_world_remove_body(t.batch, t.ids[i]), IMP_OK);
				assert_int_equal(imp_world_remove_body(t.loop, t.lids[i]), IMP_OK);
				t.ids[i] = t.lids[i] = (imp_body_id){0, 0, 0};
			}
		}
	}
	assert_true(touching > 100); // the scenes do make pairs
	twins_free(&t);
	free_shapes(&sh);
}

static void test_batch_equals_loop(void **state)
{
	(void)state;
	for (int dim = 2; dim <= 3; dim++) {
		run_twins(dim, IMP_BROAD_HASH, 0x5e7b05e5u + (uint64_t)dim);
		run_twins(dim, IMP_BROAD_SWEEP, 0x5e7b05e6u + (uint64_t)dim);
	}
}

/// A batch with one bad entry fails with `want` and changes nothing.
static void expect_bad_entry(twins *t, const batch *b, imp_status want)
{
	uint64_t h = imp_world_state_hash(t->batch);
	assert_int_equal(apply_batch(t->batch, t->dim, b), want);
	assert_true(imp_world_state_hash(t->batch) == h);
}

static void test_bad_entries(void **state)
{
	(void)state;
	for (int dim = 2; dim <= 3; dim++) {
		shapes sh;
		make_shapes(&sh, dim);
		rng r = {0xbadba7c4u + (uint64_t)dim};
		static twins t;
		twins_make(&t, dim, IMP_BROAD_HASH, &r, &sh, 40);
		imp_world *other = twin_world(dim, IMP_BROAD_HASH, NULL);
		imp_body_id foreign = add_to(other, sh.s[0], imp_pose2_identity(), imp_pose3_identity());
		// A removed body: its id is stale.
		imp_body_id stale = t.ids[7];
		assert_int_equal(imp_world_remove_body(t.batch, stale), IMP_OK);
		assert_int_equal(imp_world_remove_body(t.loop, t.lids[7]), IMP_OK);
		t.ids[7] = t.lids[7] = (imp_body_id){0, 0, 0};
		// The user shape's body, to poison its box.
		int user = -1;
		for (int i = 0; i < t.count; i++)
			if (t.shape_of[i] == sh.user && !imp_body_id_is_null(t.ids[i]))
				user = i;
		assert_true(user >= 0);
		assert_int_equal(imp_world_update(t.batch), IMP_OK);
		assert_int_equal(imp_world_update(t.loop), IMP_OK);
		static batch b;
		for (int trial = 0; trial < 12 * 8; trial++) {
			make_batch(&b, &t, &r);
			int at = (int)(uniform(&r) * b.count) % b.count;
			batch keep = b;
			imp_status want;
			switch (trial % 8) {
			case 0:
				b.ids[at] = stale;
				want = IMP_ERR_BAD_ID;
				break;
			case 1:
				b.ids[at] = foreign;
				want = IMP_ERR_BAD_ID;
				break;
			case 2:
				b.ids[at] = (imp_body_id){0, 0, 0};
				want = IMP_ERR_BAD_ID;
				break;
			case 3:
				b.p2[at].p.y = NAN;
				b.p3[at].q.z = INFINITY;
				want = IMP_ERR_NOT_FINITE;
				break;
			case 4:
				b.p2[at].q = (imp_rot2){1.001, 0.0};
				b.p3[at].q = (imp_quat){0.0, 0.0, 0.0, 1.001};
				want = IMP_ERR_BAD_ROTATION;
				break;
			case 5:
				b.p2[at].p.x = -2e150;
				b.p3[at].p.z = 2e150;
				want = IMP_ERR_OUT_OF_RANGE;
				break;
			case 6: // a new rotation of the user shape: its box is not finite
				b.ids[at] = t.ids[user];
				b.body[at] = user;
				b.p2[at] = random_pose2(&r, 3.0);
				b.p3[at] = random_pose3(&r, 3.0);
				poisoned = true;
				want = IMP_ERR_NOT_FINITE;
				break;
			default: // the bad entry is the last one, after a body named before
				at = b.count - 1;
				b.ids[at] = b.ids[0];
				b.body[at] = b.body[0];
				b.p2[at].p.x = INFINITY;
				b.p3[at].p.x = -INFINITY;
				want = IMP_ERR_NOT_FINITE;
				break;
			}
			expect_bad_entry(&t, &b, want);
			poisoned = false;
			// Without the bad entry: as the loop.
			assert_int_equal(apply_batch(t.batch, dim, &keep), IMP_OK);
			apply_loop(t.loop, dim, &keep);
			check_poses(&t, &keep);
			assert_int_equal(imp_world_update(t.batch), IMP_OK);
			assert_int_equal(imp_world_update(t.loop), IMP_OK);
			assert_true(imp_world_state_hash(t.batch) == imp_world_state_hash(t.loop));
		}
		imp_world_destroy(other);
		twins_free(&t);
		free_shapes(&sh);
	}
}

typedef struct walk_ctx {
	imp_world *w;
	const batch *b;
	int dim;
	int calls;
} walk_ctx;

static bool call_in_walk(imp_body_id a, imp_body_id b, void *user)
{
	(void)a;
	(void)b;
	walk_ctx *c = user;
	assert_int_equal(apply_batch(c->w, c->dim, c->b), IMP_ERR_BUSY);
	c->calls++;
	return true;
}

static void test_argument_errors(void **state)
{
	(void)state;
	for (int dim = 2; dim <= 3; dim++) {
		shapes sh;
		make_shapes(&sh, dim);
		rng r = {0xa59u + (uint64_t)dim};
		static twins t;
		twins_make(&t, dim, IMP_BROAD_SWEEP, &r, &sh, 30);
		imp_world *w = t.batch;
		assert_int_equal(imp_world_update(w), IMP_OK);
		uint64_t h = imp_world_state_hash(w);
		static batch b;
		make_batch(&b, &t, &r);
		imp_pose2 one2 = imp_pose2_identity();
		imp_pose3 one3 = imp_pose3_identity();
		assert_int_equal(imp_world_set_poses2(NULL, b.ids, b.p2, b.count), IMP_ERR_NULL_ARGUMENT);
		assert_int_equal(imp_world_set_poses3(NULL, b.ids, b.p3, b.count), IMP_ERR_NULL_ARGUMENT);
		if (dim == 2) {
			assert_int_equal(imp_world_set_poses2(w, NULL, b.p2, 1), IMP_ERR_NULL_ARGUMENT);
			assert_int_equal(imp_world_set_poses2(w, b.ids, NULL, 1), IMP_ERR_NULL_ARGUMENT);
			assert_int_equal(imp_world_set_poses2(w, b.ids, b.p2, -1), IMP_ERR_BAD_COUNT);
			assert_int_equal(imp_world_set_poses2(w, NULL, NULL, 0), IMP_OK);
			assert_int_equal(imp_world_set_poses3(w, b.ids, &one3, 1), IMP_ERR_DIMENSION_MISMATCH);
			assert_int_equal(imp_world_set_poses3(w, NULL, NULL, 0), IMP_ERR_DIMENSION_MISMATCH);
		} else {
			assert_int_equal(imp_world_set_poses3(w, NULL, b.p3, 1), IMP_ERR_NULL_ARGUMENT);
			assert_int_equal(imp_world_set_poses3(w, b.ids, NULL, 1), IMP_ERR_NULL_ARGUMENT);
			assert_int_equal(imp_world_set_poses3(w, b.ids, b.p3, -7), IMP_ERR_BAD_COUNT);
			assert_int_equal(imp_world_set_poses3(w, NULL, NULL, 0), IMP_OK);
			assert_int_equal(imp_world_set_poses2(w, b.ids, &one2, 1), IMP_ERR_DIMENSION_MISMATCH);
			assert_int_equal(imp_world_set_poses2(w, NULL, NULL, 0), IMP_ERR_DIMENSION_MISMATCH);
		}
		walk_ctx c = {w, &b, dim, 0};
		assert_int_equal(imp_world_for_each_pair(w, call_in_walk, &c), IMP_OK);
		assert_true(c.calls > 0);
		assert_true(imp_world_state_hash(w) == h);
		twins_free(&t);
		free_shapes(&sh);
	}
}

/// Each allocation of a batch failed in turn: OUT_OF_MEMORY and nothing
/// changed, or the batch done as the loop does it.
static void test_out_of_memory(void **state)
{
	(void)state;
	for (int dim = 2; dim <= 3; dim++) {
		shapes sh;
		make_shapes(&sh, dim);
		int failures = 0;
		for (long k = 0; k < 8; k++) {
			rng r = {0x00eu + (uint64_t)dim};
			counting c = {0};
			c.fail_at = -1;
			imp_allocator a = counting_allocator(&c);
			static twins t;
			memset(&t, 0, sizeof t);
			t.dim = dim;
			t.batch = twin_world(dim, IMP_BROAD_HASH, &a);
			t.loop = twin_world(dim, IMP_BROAD_HASH, NULL);
			t.count = 50;
			for (int i = 0; i < t.count; i++)
				twins_add(&t, &r, &sh, i);
			assert_int_equal(imp_world_update(t.batch), IMP_OK);
			assert_int_equal(imp_world_update(t.loop), IMP_OK);
			static batch b;
			make_batch(&b, &t, &r);
			uint64_t h = imp_world_state_hash(t.batch);
			c.fail_at = c.calls + k;
			imp_status st = apply_batch(t.batch, dim, &b);
			c.fail_at = -1;
			if (st == IMP_ERR_OUT_OF_MEMORY) {
				failures++;
				assert_true(imp_world_state_hash(t.batch) == h);
				assert_int_equal(apply_batch(t.batch, dim, &b), IMP_OK);
			} else {
				assert_int_equal(st, IMP_OK);
			}
			apply_loop(t.loop, dim, &b);
			check_poses(&t, &b);
			assert_int_equal(imp_world_update(t.batch), IMP_OK);
			assert_int_equal(imp_world_update(t.loop), IMP_OK);
			assert_true(imp_world_state_hash(t.batch) == imp_world_state_hash(t.loop));
			twins_free(&t);
			assert_int_equal(c.live, 0);
			assert_false(c.size_mismatch);
		}
		assert_true(failures >= 1); // the scratch's first allocation failed at least
		free_shapes(&sh);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_batch_equals_loop),
		cmocka_unit_test(test_bad_entries),
		cmocka_unit_test(test_argument_errors),
		cmocka_unit_test(test_out_of_memory),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
