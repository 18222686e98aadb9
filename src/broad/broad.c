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
	if (b->kind == IMP_BROAD_SWEEP)
		st = imp_sweep_create(b);
	else if (b->kind == IMP_BROAD_HASH)
		st = imp_hash_create(b);
	if (st != IMP_OK) {
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
	if (!reserve_proxies(b, proxy + 1))
		return IMP_ERR_OUT_OF_MEMORY;
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
	b->proxy[proxy].state = PROXY_ABSENT;
	b->live--;
}

bool imp_broad_query_all(imp_broad *b, const imp_box *box, imp_broad_query_fn *fn, void *ctx)
{
	for (int32_t q = 0; q < b->cap; q++) {
		if (b->proxy[q].state == PROXY_ABSENT)
			continue;
		b->counters.query_visits++;
		if (imp_box_overlap(&b->proxy[q].box, box, b->dim) && !fn(ctx, q))
			return false;
	}
	return true;
}

bool imp_broad_query(imp_broad *b, const imp_box *box, imp_broad_query_fn *fn, void *ctx)
{
	switch (b->kind) {
	case IMP_BROAD_SWEEP: return imp_sweep_query(b, box, fn, ctx);
	case IMP_BROAD_HASH: return imp_hash_query(b, box, fn, ctx);
	case IMP_BROAD_NAIVE: break;
	}
	return imp_broad_query_all(b, box, fn, ctx);
}

void imp_broad_flush(imp_broad *b)
{
	if (b->kind == IMP_BROAD_SWEEP)
		imp_sweep_flush(b);
}
