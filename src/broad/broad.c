// SPDX-License-Identifier: MIT
// The broad phase's common half, and the naive kind: every other proxy
// tested on each insert and move, O(n) per call, O(n^2) per frame. It is
// the oracle the two real structures are tested against.
#include <string.h>

#include "broad/broad_internal.h"

imp_status imp_broad_create(const imp_broad_def *def, imp_broad **out)
{
	imp_broad *b = imp_alloc(def->alloc, sizeof *b);
	if (b == NULL)
		return IMP_ERR_OUT_OF_MEMORY;
	memset(b, 0, sizeof *b);
	b->kind = def->kind;
	b->dim = def->dim;
	b->alpha = def->alpha;
	b->beta = def->beta;
	b->alloc = def->alloc;
	b->fn = def->fn;
	b->ctx = def->ctx;
	imp_status st = IMP_OK;
	atomic_init(&b->tree_ready, false);
	if (pthread_mutex_init(&b->lock, NULL) != 0) {
		imp_free(def->alloc, b, sizeof *b);
		return IMP_ERR_OUT_OF_MEMORY;
	}
	if (b->kind == IMP_BROAD_SWEEP)
		st = imp_sweep_create(b);
	else if (b->kind == IMP_BROAD_HASH)
		st = imp_hash_create(b);
	if (st != IMP_OK) {
		pthread_mutex_destroy(&b->lock);
		imp_free(def->alloc, b, sizeof *b);
		return st;
	}
	*out = b;
	return IMP_OK;
}

void imp_broad_destroy(imp_broad *b)
{
	if (b == NULL)
		return;
	if (b->kind == IMP_BROAD_SWEEP)
		imp_sweep_destroy(b);
	else if (b->kind == IMP_BROAD_HASH)
		imp_hash_destroy(b);
	if (b->tree_ready)
		imp_tree_free(&b->tree);
	pthread_mutex_destroy(&b->lock);
	imp_free(b->alloc, b->proxy, (size_t)b->cap * sizeof *b->proxy);
	imp_free(b->alloc, b, sizeof *b);
}

imp_broad_counters imp_broad_get_counters(const imp_broad *b)
{
	return b->counters;
}

static bool reserve_proxies(imp_broad *b, int32_t need)
{
	int32_t old = b->cap;
	if (!imp_grow(b->alloc, (void **)&b->proxy, &b->cap, need, sizeof *b->proxy))
		return false;
	memset(b->proxy + old, 0, (size_t)(b->cap - old) * sizeof *b->proxy);
	return true;
}

static void naive_scan(imp_broad *b, int32_t p, const imp_box *old)
{
	for (int32_t q = 0; q < b->cap; q++) {
		if (q == p || b->proxy[q].state == PROXY_ABSENT || both_static(b, p, q))
			continue;
		bool was = old != NULL && imp_box_overlap(old, &b->proxy[q].box, b->dim);
		bool now = imp_box_overlap(&b->proxy[p].box, &b->proxy[q].box, b->dim);
		b->counters.box_tests += old != NULL ? 2 : 1;
		if (was != now)
			b->fn(b->ctx, p, q, now);
	}
}

imp_status imp_broad_insert(imp_broad *b, int32_t proxy, const imp_box *box, bool is_static)
{
	if (!reserve_proxies(b, proxy + 1) || (b->tree_ready && !imp_tree_reserve(&b->tree, proxy)))
		return IMP_ERR_OUT_OF_MEMORY;
	if (b->tree_ready)
		imp_tree_insert(&b->tree, proxy, box);
	b->proxy[proxy].box = *box;
	b->proxy[proxy].state = is_static ? PROXY_STATIC : PROXY_MOVING;
	b->live++;
	switch (b->kind) {
	case IMP_BROAD_SWEEP: return imp_sweep_insert(b, proxy);
	case IMP_BROAD_HASH: return imp_hash_insert(b, proxy);
	case IMP_BROAD_NAIVE: naive_scan(b, proxy, NULL); return IMP_OK;
	}
	return IMP_OK;
}

imp_status imp_broad_move(imp_broad *b, int32_t proxy, const imp_box *box)
{
	imp_box old = b->proxy[proxy].box;
	b->proxy[proxy].box = *box;
	if (b->tree_ready)
		imp_tree_move(&b->tree, proxy, box);
	switch (b->kind) {
	case IMP_BROAD_SWEEP: return imp_sweep_move(b, proxy, &old);
	case IMP_BROAD_HASH: return imp_hash_move(b, proxy, &old);
	case IMP_BROAD_NAIVE: naive_scan(b, proxy, &old); return IMP_OK;
	}
	return IMP_OK;
}

void imp_broad_remove(imp_broad *b, int32_t proxy)
{
	if (proxy < 0 || proxy >= b->cap || b->proxy[proxy].state == PROXY_ABSENT)
		return;
	if (b->kind == IMP_BROAD_SWEEP)
		imp_sweep_remove(b, proxy);
	else if (b->kind == IMP_BROAD_HASH)
		imp_hash_remove(b, proxy);
	if (b->tree_ready)
		imp_tree_remove(&b->tree, proxy);
	b->proxy[proxy].state = PROXY_ABSENT;
	b->live--;
}

bool imp_broad_query_all(const imp_broad *b, const imp_box *box, imp_broad_query_fn *fn, void *ctx)
{
	for (int32_t q = 0; q < b->cap; q++) {
		if (b->proxy[q].state == PROXY_ABSENT)
			continue;
		if (imp_box_overlap(&b->proxy[q].box, box, b->dim) && !fn(ctx, q))
			return false;
	}
	return true;
}

/// Makes the query tree from every stored proxy, top down; false when out
/// of memory (nothing kept).
static bool tree_build(imp_broad *b)
{
	int32_t n = 0, max_proxy = 0;
	for (int32_t p = 0; p < b->cap; p++)
		if (b->proxy[p].state != PROXY_ABSENT) {
			n++;
			max_proxy = p;
		}
	int32_t *ids = imp_alloc(b->alloc, (size_t)(n > 0 ? n : 1) * sizeof *ids);
	const imp_box **boxes = imp_alloc(b->alloc, (size_t)(n > 0 ? n : 1) * sizeof *boxes);
	bool ok = ids != NULL && boxes != NULL;
	if (ok) {
		int32_t k = 0;
		for (int32_t p = 0; p < b->cap; p++)
			if (b->proxy[p].state != PROXY_ABSENT) {
				ids[k] = p;
				boxes[k++] = &b->proxy[p].box;
			}
		imp_tree_init(&b->tree, b->dim, b->alloc);
		ok = imp_tree_build(&b->tree, ids, boxes, n, max_proxy);
	}
	imp_free(b->alloc, ids, (size_t)(n > 0 ? n : 1) * sizeof *ids);
	imp_free(b->alloc, boxes, (size_t)(n > 0 ? n : 1) * sizeof *boxes);
	if (ok)
		atomic_store_explicit(&b->tree_ready, true, memory_order_release);
	return ok;
}

/// Whether the query tree is made: made now, once, by the first query
/// (of any thread) to ask; false when out of memory for it.
static bool tree_ready(const imp_broad *b)
{
	if (atomic_load_explicit(&b->tree_ready, memory_order_acquire))
		return true;
	imp_broad *mb = (imp_broad *)b; // the lazily made part, under the lock
	pthread_mutex_lock(&mb->lock);
	bool ok = atomic_load_explicit(&mb->tree_ready, memory_order_relaxed) || tree_build(mb);
	pthread_mutex_unlock(&mb->lock);
	return ok;
}

/// Whether a query walks the tree's wide copy: made now, once, when the
/// tree has gone unchanged for enough queries.
static bool use_wide(const imp_broad *b)
{
	imp_broad *mb = (imp_broad *)b; // the count and the copy: atomics and the lock
	if (imp_tree_wide_ready(&b->tree))
		return true;
	if (!imp_tree_wide_due(&mb->tree))
		return false;
	pthread_mutex_lock(&mb->lock);
	imp_tree_wide_build(&mb->tree);
	pthread_mutex_unlock(&mb->lock);
	return imp_tree_wide_ready(&b->tree);
}

bool imp_broad_query(const imp_broad *b, const imp_box *box, imp_broad_query_fn *fn, void *ctx,
		     imp_tree_scratch *s)
{
	uint64_t visits = 0;
	if (tree_ready(b))
		return imp_tree_query(&b->tree, box, use_wide(b), fn, ctx, s, &visits);
	// Out of memory for the tree: the structure of the kind answers.
	switch (b->kind) {
	case IMP_BROAD_SWEEP: return imp_sweep_query(b, box, fn, ctx);
	case IMP_BROAD_HASH: return imp_hash_query(b, box, fn, ctx);
	case IMP_BROAD_NAIVE: break;
	}
	return imp_broad_query_all(b, box, fn, ctx);
}

bool imp_broad_nearest(const imp_broad *b, const imp_box *box, double bound, imp_broad_visit_fn *fn, void *ctx,
		       imp_tree_scratch *s)
{
	if (tree_ready(b)) {
		uint64_t visits = 0;
		imp_tree_nearest(&b->tree, box, use_wide(b), bound, fn, ctx, s, &visits);
		return !s->oom;
	}
	for (int32_t q = 0; q < b->cap; q++) {
		if (b->proxy[q].state == PROXY_ABSENT)
			continue;
		if (imp_box_bound(&b->proxy[q].box, box, b->dim) <= bound)
			bound = fn(ctx, q, bound);
	}
	return true;
}

void imp_broad_flush(imp_broad *b)
{
	if (b->kind == IMP_BROAD_SWEEP)
		imp_sweep_flush(b);
}

/// x's low `bits` bits spread `stride` apart (bit i to bit stride * i).
static uint32_t spread_bits(uint32_t x, int bits, int stride)
{
	uint32_t r = 0;
	for (int i = 0; i < bits; i++)
		r |= ((x >> i) & 1u) << (stride * i);
	return r;
}

uint32_t imp_broad_morton(int dim, const imp_box *box, const imp_box *bounds)
{
	int bits = dim == 2 ? 15 : 10;
	double top = (double)((1u << bits) - 1);
	uint32_t code = 0;
	for (int k = 0; k < dim; k++) {
		// Halves: the centre and the extent cannot overflow.
		double c = 0.5 * box->lo[k] + 0.5 * box->hi[k];
		double lo = bounds->lo[k], ext = 0.5 * bounds->hi[k] - 0.5 * lo;
		double t = ext > 0.0 && ext < INFINITY ? (0.5 * c - 0.5 * lo) / ext * top : 0.0;
		if (!(t > 0.0))
			t = 0.0;
		if (t > top)
			t = top;
		code |= spread_bits((uint32_t)t, bits, dim) << k;
	}
	return code;
}
