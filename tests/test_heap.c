// SPDX-License-Identifier: MIT
// The time-of-impact heap (src/world/heap.c) against a sorted-array-free
// oracle: a plain array of the queued entries, whose first entry is found by
// a full scan in the heap's order (key, value, handle). Random operation
// sequences with fixed seeds (pushes, pops, key changes up and down,
// removals anywhere), many equal keys, +inf keys, handles reused after
// pops; every error path (NaN keys, stale and foreign handles, NULL); out of
// memory at every allocation, the heap unchanged after each failure; and
// the heap's own invariants (parent before child, handle table) checked
// after every operation.
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "counting_alloc.h"
#include "world/heap.h"

static uint64_t rng_next(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static int rng_int(uint64_t *s, int n)
{
	return (int)(rng_next(s) % (uint64_t)n);
}

typedef struct oracle {
	imp_heap_entry *e;
	int n, cap;
} oracle;

static bool entry_before(const imp_heap_entry *a, const imp_heap_entry *b)
{
	if (a->key != b->key)
		return a->key < b->key;
	if (a->tie != b->tie)
		return a->tie < b->tie;
	if (a->value != b->value)
		return a->value < b->value;
	return a->handle < b->handle;
}

static int oracle_min(const oracle *o)
{
	int best = -1;
	for (int i = 0; i < o->n; i++)
		if (best < 0 || entry_before(&o->e[i], &o->e[best]))
			best = i;
	return best;
}

static int oracle_find(const oracle *o, int32_t handle)
{
	for (int i = 0; i < o->n; i++)
		if (o->e[i].handle == handle)
			return i;
	return -1;
}

static void oracle_add(oracle *o, imp_heap_entry e)
{
	if (o->n == o->cap) {
		o->cap = o->cap ? 2 * o->cap : 64;
		o->e = realloc(o->e, (size_t)o->cap * sizeof *o->e);
		assert_non_null(o->e);
	}
	o->e[o->n++] = e;
}

static void oracle_drop(oracle *o, int i)
{
	o->e[i] = o->e[--o->n];
}

/// The heap's invariants: parent before child, the handle table pointing
/// at each entry, the count.
static void check_invariants(const imp_heap *h)
{
	for (int32_t i = 0; i < h->count; i++) {
		const imp_heap_entry *e = &h->items[i];
		assert_true(e->handle >= 0 && e->handle < h->handles);
		assert_int_equal(h->where[e->handle], i);
		if (i > 0)
			assert_false(entry_before(e, &h->items[(i - 1) / 2]));
	}
	int32_t queued = 0;
	for (int32_t k = 0; k < h->handles; k++)
		queued += h->where[k] >= 0;
	assert_int_equal(queued, h->count);
}

/// The heap and the oracle hold the same entries, the same first.
static void check_same(const imp_heap *h, const oracle *o)
{
	assert_int_equal(imp_heap_count(h), o->n);
	imp_heap_entry first;
	bool any = imp_heap_peek(h, &first);
	assert_int_equal(any, o->n > 0);
	if (any) {
		const imp_heap_entry *m = &o->e[oracle_min(o)];
		assert_true(first.key == m->key || (isinf(first.key) && isinf(m->key)));
		assert_int_equal(first.value, m->value);
		assert_int_equal(first.handle, m->handle);
	}
	for (int i = 0; i < o->n; i++) {
		assert_true(imp_heap_contains(h, o->e[i].handle));
		assert_true(imp_heap_key(h, o->e[i].handle) == o->e[i].key);
	}
}

static double random_key(uint64_t *s, int style)
{
	switch (style) {
	case 0: return (double)rng_int(s, 8); // many ties
	case 1: return (double)(rng_next(s) >> 11) * 0x1p-53;
	default: return rng_int(s, 50) == 0 ? INFINITY : (double)rng_int(s, 1000) - 500.0;
	}
}

static void run_sequence(uint64_t seed, int ops, int style, bool invariants)
{
	imp_heap h;
	imp_heap_init(&h, NULL);
	oracle o = {0};
	uint64_t s = seed;
	for (int t = 0; t < ops; t++) {
		int op = rng_int(&s, 10);
		if (o.n == 0 || op < 4) {
			imp_heap_entry e = {random_key(&s, style), (uint64_t)rng_int(&s, 4), rng_int(&s, 16), -1};
			assert_int_equal(imp_heap_push(&h, e.key, e.tie, e.value, &e.handle), IMP_OK);
			assert_int_equal(oracle_find(&o, e.handle), -1); // a handle is never given twice at once
			oracle_add(&o, e);
		} else if (op < 6) {
			imp_heap_entry got;
			assert_true(imp_heap_pop(&h, &got));
			int m = oracle_min(&o);
			assert_int_equal(got.handle, o.e[m].handle);
			assert_int_equal(got.value, o.e[m].value);
			assert_false(imp_heap_contains(&h, got.handle));
			oracle_drop(&o, m);
		} else if (op < 9) {
			int i = rng_int(&s, o.n);
			// Up, down, to the same key, or to +inf.
			double key = rng_int(&s, 4) == 0 ? o.e[i].key : random_key(&s, style);
			assert_int_equal(imp_heap_update(&h, o.e[i].handle, key), IMP_OK);
			o.e[i].key = key;
		} else {
			int i = rng_int(&s, o.n);
			assert_int_equal(imp_heap_remove(&h, o.e[i].handle), IMP_OK);
			assert_false(imp_heap_contains(&h, o.e[i].handle));
			assert_int_equal(imp_heap_remove(&h, o.e[i].handle), IMP_ERR_BAD_ID);
			oracle_drop(&o, i);
		}
		if (invariants)
			check_invariants(&h);
		check_same(&h, &o);
	}
	// Everything left comes out in order.
	imp_heap_entry prev = {-INFINITY, 0, INT32_MIN, -1}, got;
	int left = o.n;
	while (imp_heap_pop(&h, &got)) {
		assert_false(entry_before(&got, &prev));
		prev = got;
		left--;
	}
	assert_int_equal(left, 0);
	assert_false(imp_heap_peek(&h, NULL));
	imp_heap_clear(&h);
	free(o.e);
}

/// Emptying: every entry gone and every handle free (none names an entry),
/// the memory kept (no allocation for as many pushes again), and the heap
/// as good as new: a second round of pushes and pops against the oracle.
static void test_empty(void **state)
{
	(void)state;
	counting ca = {0, 0, 0, 0, -1, 0, false, false};
	imp_allocator a = counting_allocator(&ca);
	imp_heap h;
	imp_heap_init(&h, &a);
	uint64_t seed = 0x5eed;
	int32_t handles[500];
	for (int round = 0; round < 3; round++) {
		oracle o = {NULL, 0, 0};
		for (int i = 0; i < 500; i++) {
			imp_heap_entry e = {random_key(&seed, round), rng_next(&seed) % 3, (int32_t)(rng_next(&seed) % 7), 0};
			assert_int_equal(imp_heap_push(&h, e.key, e.tie, e.value, &handles[i]), IMP_OK);
			e.handle = handles[i];
			oracle_add(&o, e);
			check_invariants(&h);
		}
		for (int i = 0; i < 200; i++) {
			imp_heap_entry got;
			assert_true(imp_heap_pop(&h, &got));
			int m = oracle_min(&o);
			assert_true(got.key == o.e[m].key);
			assert_int_equal(got.value, o.e[m].value);
			assert_int_equal(got.handle, o.e[m].handle);
			oracle_drop(&o, m);
		}
		long calls = ca.calls;
		imp_heap_empty(&h);
		assert_int_equal(imp_heap_count(&h), 0);
		assert_false(imp_heap_peek(&h, NULL));
		for (int i = 0; i < 500; i++)
			assert_false(imp_heap_contains(&h, handles[i]));
		// As many pushes again need no memory.
		int32_t hd;
		for (int i = 0; i < 500; i++)
			assert_int_equal(imp_heap_push(&h, (double)(i % 13), 0, i, &hd), IMP_OK);
		assert_int_equal(ca.calls, calls);
		imp_heap_empty(&h);
		free(o.e);
	}
	imp_heap_clear(&h);
	assert_int_equal(ca.live, 0);
	assert_false(ca.size_mismatch);
}

static void test_random_sequences(void **state)
{
	(void)state;
	for (int style = 0; style < 3; style++)
		for (uint64_t seed = 1; seed <= 40; seed++)
			run_sequence(seed * 0x9E3779B97F4A7C15u + (uint64_t)style, 600, style, true);
	// Long runs, the oracle's checks only.
	for (int style = 0; style < 3; style++)
		run_sequence(0xC0FFEEu + (uint64_t)style, 20000, style, false);
}

static void test_large_in_order(void **state)
{
	(void)state;
	enum { N = 200000 };
	imp_heap h;
	imp_heap_init(&h, NULL);
	assert_int_equal(imp_heap_reserve(&h, N), IMP_OK);
	uint64_t s = 77;
	int32_t *handles = malloc(N * sizeof *handles);
	assert_non_null(handles);
	for (int i = 0; i < N; i++)
		assert_int_equal(imp_heap_push(&h, random_key(&s, 1), 0, i, &handles[i]), IMP_OK);
	// Every other key moved to the far future, then back before all.
	for (int i = 0; i < N; i += 2)
		assert_int_equal(imp_heap_update(&h, handles[i], i % 4 ? INFINITY : -1.0 - i), IMP_OK);
	check_invariants(&h);
	imp_heap_entry prev = {-INFINITY, 0, INT32_MIN, -1}, got;
	int n = 0;
	while (imp_heap_pop(&h, &got)) {
		assert_false(entry_before(&got, &prev));
		prev = got;
		n++;
	}
	assert_int_equal(n, N);
	free(handles);
	imp_heap_clear(&h);
}

static void test_bad_input(void **state)
{
	(void)state;
	imp_heap h;
	imp_heap_init(&h, NULL);
	int32_t a, b;
	assert_int_equal(imp_heap_push(NULL, 1.0, 0, 0, &a), IMP_ERR_NULL_ARGUMENT);
	assert_int_equal(imp_heap_push(&h, 1.0, 0, 0, NULL), IMP_ERR_NULL_ARGUMENT);
	assert_int_equal(imp_heap_push(&h, NAN, 0, 0, &a), IMP_ERR_NOT_FINITE);
	assert_int_equal(imp_heap_count(&h), 0);
	assert_int_equal(imp_heap_push(&h, 1.0, 0, 7, &a), IMP_OK);
	assert_int_equal(imp_heap_push(&h, -INFINITY, 0, 8, &b), IMP_OK); // -inf is a key too: "now"
	assert_int_equal(imp_heap_update(&h, a, NAN), IMP_ERR_NOT_FINITE);
	assert_true(imp_heap_key(&h, a) == 1.0);
	const int32_t bad[] = {-1, -2, 2, 1000, INT32_MIN, INT32_MAX};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		assert_int_equal(imp_heap_update(&h, bad[i], 0.0), IMP_ERR_BAD_ID);
		assert_int_equal(imp_heap_remove(&h, bad[i]), IMP_ERR_BAD_ID);
		assert_false(imp_heap_contains(&h, bad[i]));
		assert_true(isnan(imp_heap_key(&h, bad[i])));
	}
	assert_int_equal(imp_heap_update(NULL, a, 0.0), IMP_ERR_NULL_ARGUMENT);
	assert_int_equal(imp_heap_remove(NULL, a), IMP_ERR_NULL_ARGUMENT);
	assert_int_equal(imp_heap_reserve(NULL, 4), IMP_ERR_NULL_ARGUMENT);
	assert_int_equal(imp_heap_reserve(&h, -1), IMP_ERR_BAD_COUNT);
	assert_false(imp_heap_pop(NULL, NULL));
	assert_false(imp_heap_peek(NULL, NULL));
	// A popped handle is stale until it is given out again.
	imp_heap_entry e;
	assert_true(imp_heap_pop(&h, &e));
	assert_int_equal(e.handle, b);
	assert_int_equal(imp_heap_update(&h, b, 0.0), IMP_ERR_BAD_ID);
	check_invariants(&h);
	imp_heap_clear(&h);
	assert_int_equal(imp_heap_count(&h), 0);
}

/// Out of memory at every allocation of a push sequence: each failed push
/// leaves the heap as it was, and the next succeeds.
static void test_out_of_memory(void **state)
{
	(void)state;
	for (long fail = 0; fail < 40; fail++) {
		counting c = {0};
		c.fail_at = fail;
		imp_allocator a = counting_allocator(&c);
		imp_heap h;
		imp_heap_init(&h, &a);
		oracle o = {0};
		uint64_t s = 5 + (uint64_t)fail;
		int failures = 0;
		for (int t = 0; t < 300; t++) {
			imp_heap_entry e = {random_key(&s, 0), (uint64_t)rng_int(&s, 2), rng_int(&s, 5), -1};
			imp_status st = imp_heap_push(&h, e.key, e.tie, e.value, &e.handle);
			if (st == IMP_ERR_OUT_OF_MEMORY) {
				failures++;
			} else {
				assert_int_equal(st, IMP_OK);
				oracle_add(&o, e);
			}
			if (t % 3 == 2 && o.n > 0) {
				imp_heap_entry got;
				assert_true(imp_heap_pop(&h, &got));
				oracle_drop(&o, oracle_find(&o, got.handle));
			}
			check_invariants(&h);
			check_same(&h, &o);
		}
		assert_true(failures <= 1);
		// The first two allocations (the entries, the handle table) are
		// made by the first push: failing either must be seen.
		if (fail < 2)
			assert_int_equal(failures, 1);
		imp_heap_clear(&h);
		assert_int_equal(c.live, 0);
		assert_false(c.size_mismatch);
		free(o.e);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_random_sequences),
		cmocka_unit_test(test_large_in_order),
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_bad_input),
		cmocka_unit_test(test_out_of_memory),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
