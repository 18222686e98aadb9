// SPDX-License-Identifier: MIT
// Pairs: a persistent table (open addressing, keyed by lower slot << 32 |
// higher slot) of the candidate pairs the broad phase reports, each with a
// simplex cache for the narrow phase and the step's bookkeeping; each body
// has a doubly linked list of its pairs, threaded through the pair (link 0
// for the pair's lower slot, 1 for the higher). The touching pairs are also
// kept in key order (the array as of the last update, ended pairs marked
// dead, and the pairs that began since, merged when an update ends), for
// imp_world_for_each_pair and the state hash to walk in an order no broad
// phase changes. The begin/end events of an update are sorted the same way.
#include <assert.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "broad/broad.h"
#include "world/heap.h"
#include "world/world_internal.h"
#include "core/alloc.h"
#include "core/inline.h"
#include "core/sort.h"
#include "impact/collision.h"
#include "impact/world.h"
#include "narrow/composite_query.h"
#include "shape/composite.h"
#include "shape/shape_internal.h"
#include "shape/shape3_internal.h"

/* ---- pairs ---- */

/// Gives a block its step records, zeroed; false when out of memory.
static bool block_steps(imp_world *w, pair_block *blk)
{
	if (blk->steps != NULL)
		return true;
	blk->steps = imp_alloc(&w->alloc, PAIR_BLOCK * sizeof *blk->steps);
	if (blk->steps == NULL)
		return false;
	memset(blk->steps, 0, PAIR_BLOCK * sizeof *blk->steps);
	for (int i = 0; i < PAIR_BLOCK; i++)
		blk->items[i].st = &blk->steps[i];
	return true;
}

bool imp_world_pair_steps_reserve(imp_world *w)
{
	if (w->pair_steps)
		return true;
	for (pair_block *blk = w->blocks; blk != NULL; blk = blk->next)
		if (!block_steps(w, blk))
			return false;
	w->pair_steps = true;
	return true;
}

bool imp_world_pair_block_add(imp_world *w)
{
	pair_block *blk = imp_alloc(&w->alloc, sizeof *blk);
	if (blk == NULL)
		return false;
	blk->steps = NULL;
	for (int i = PAIR_BLOCK - 1; i >= 0; i--) {
		blk->hot[i] = (pair_hot){0};
		blk->items[i].hot = &blk->hot[i];
		blk->items[i].st = NULL;
	}
	if (w->pair_steps && !block_steps(w, blk)) {
		imp_free(&w->alloc, blk, sizeof *blk);
		return false;
	}
	blk->next = w->blocks;
	w->blocks = blk;
	w->block_count++;
	for (int i = PAIR_BLOCK - 1; i >= 0; i--) {
		blk->items[i].next[0] = w->free_pairs;
		w->free_pairs = &blk->items[i];
	}
	return true;
}

static pair *pair_alloc(imp_world *w)
{
	if (w->free_pairs == NULL && !imp_world_pair_block_add(w))
		return NULL;
	pair *pr = w->free_pairs;
	w->free_pairs = pr->next[0];
	return pr;
}

static void list_push(imp_world *w, int32_t s, pair *pr)
{
	int l = link_of(pr, s);
	body *b = &w->bodies[s];
	pr->prev[l] = NULL;
	pr->next[l] = b->pairs;
	if (b->pairs != NULL)
		b->pairs->prev[link_of(b->pairs, s)] = pr;
	b->pairs = pr;
}

static void list_unlink(imp_world *w, int32_t s, pair *pr)
{
	int l = link_of(pr, s);
	body *b = &w->bodies[s];
	if (pr->prev[l] != NULL)
		pr->prev[l]->next[link_of(pr->prev[l], s)] = pr->next[l];
	else
		b->pairs = pr->next[l];
	if (pr->next[l] != NULL)
		pr->next[l]->prev[link_of(pr->next[l], s)] = pr->prev[l];
}

bool imp_world_touch_reserve(imp_world *w)
{
	int32_t all = w->touch_count + w->touch_extra_count + w->touch_new_count + 1;
	return imp_grow(&w->alloc, (void **)&w->touch_new, &w->touch_new_cap, w->touch_new_count + 1,
			sizeof *w->touch_new) &&
	       imp_grow(&w->alloc, (void **)&w->touch_extra, &w->touch_extra_cap,
			w->touch_extra_count + w->touch_new_count + 1, sizeof *w->touch_extra) &&
	       imp_grow(&w->alloc, (void **)&w->touch, &w->touch_cap, all, sizeof *w->touch);
}

/// The first index of a sorted run whose key is not below key.
static int32_t touch_lower_bound(const touch_entry *t, int32_t n, uint64_t key)
{
	int32_t lo = 0, hi = n;
	while (lo < hi) {
		int32_t mid = lo + (hi - lo) / 2;
		if (t[mid].key < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/// Marks the live entry of key in a sorted run dead; false if none.
static bool touch_kill(touch_entry *t, int32_t n, uint64_t key)
{
	for (int32_t i = touch_lower_bound(t, n, key); i < n && t[i].key == key; i++)
		if (!t[i].dead) {
			t[i].dead = 1;
			return true;
		}
	return false;
}

/// Marks the walk's entry of a pair that stopped touching: a binary search
/// of the two sorted runs, else the pairs that began in this update.
static void touch_forget(imp_world *w, uint64_t key)
{
	if (touch_kill(w->touch, w->touch_count, key)) {
		w->touch_dead++;
		return;
	}
	if (touch_kill(w->touch_extra, w->touch_extra_count, key)) {
		w->touch_extra_dead++;
		return;
	}
	for (int32_t i = w->touch_new_count - 1; i >= 0; i--) {
		if (w->touch_new[i].key == key && !w->touch_new[i].dead) {
			w->touch_new[i].dead = 1;
			return;
		}
	}
	assert(!"a touching pair missing from the walk's arrays");
}

void imp_world_set_touching(imp_world *w, pair *pr, bool t)
{
	if (pr->hot->touching == t)
		return;
	pr->hot->touching = t;
	w->touching += t ? 1 : -1;
	if (t) {
		assert(w->touch_new_count < w->touch_new_cap);
		touch_entry *e = &w->touch_new[w->touch_new_count++];
		e->key = pr->key;
		e->gen_lo = w->bodies[key_lo(pr->key)].generation;
		e->gen_hi = w->bodies[key_hi(pr->key)].generation;
		e->dead = 0;
	} else {
		touch_forget(w, pr->key);
	}
}

#define TOUCH_LESS(x, y) ((x).key < (y).key)
IMP_DEFINE_SORT(touch_sort, touch_entry, TOUCH_LESS)

/// Keeps the live entries of t[0..n) in order; their number.
static int32_t touch_compact(touch_entry *t, int32_t n)
{
	int32_t k = 0;
	for (int32_t i = 0; i < n; i++)
		if (!t[i].dead)
			t[k++] = t[i];
	return k;
}

/// Merges sorted src[0..m) into sorted dst[0..n) (room for n + m), from
/// the back.
static void touch_merge(touch_entry *dst, int32_t n, const touch_entry *src, int32_t m)
{
	int32_t i = n - 1, j = m - 1, o = n + m - 1;
	while (j >= 0) {
		if (i >= 0 && dst[i].key > src[j].key)
			dst[o--] = dst[i--];
		else
			dst[o--] = src[j--];
	}
}

void imp_world_touch_rebuild(imp_world *w)
{
	if (w->touch_new_count == 0 && w->touch_dead <= w->touch_count / 4 &&
	    w->touch_extra_dead <= w->touch_extra_count / 4)
		return;
	int32_t m = touch_compact(w->touch_new, w->touch_new_count);
	if (m > 1)
		touch_sort(w->touch_new, m);
	w->touch_new_count = 0;
	int32_t e = touch_compact(w->touch_extra, w->touch_extra_count);
	touch_merge(w->touch_extra, e, w->touch_new, m);
	w->touch_extra_count = e + m;
	w->touch_extra_dead = 0;
	if (w->touch_extra_count <= 64 + w->touch_count / 16 && w->touch_dead <= w->touch_count / 4)
		return;
	int32_t n = touch_compact(w->touch, w->touch_count);
	touch_merge(w->touch, n, w->touch_extra, w->touch_extra_count);
	w->touch_count = n + w->touch_extra_count;
	w->touch_dead = 0;
	w->touch_extra_count = 0;
}

/* ---- the pair table ---- */

static uint32_t pair_home(uint64_t key, uint32_t cap)
{
	key ^= key >> 33;
	key *= 0xff51afd7ed558ccdu;
	key ^= key >> 33;
	return (uint32_t)key & (cap - 1);
}

/// The slot holding key, or the empty slot where it would go.
static uint32_t pair_table_slot(const imp_world *w, uint64_t key)
{
	uint32_t mask = w->table_cap - 1, i = pair_home(key, w->table_cap);
	while (w->table[i].key != 0 && w->table[i].key != key)
		i = (i + 1) & mask;
	return i;
}

pair *imp_world_find_pair(const imp_world *w, uint64_t key)
{
	if (w->table_cap == 0)
		return NULL;
	const pair_slot *s = &w->table[pair_table_slot(w, key)];
	return s->key == key ? s->pr : NULL;
}

bool imp_world_pair_table_reserve(imp_world *w, int64_t need)
{
	if (w->table_cap > 0 && 2 * need <= (int64_t)w->table_cap)
		return true;
	uint64_t cap = w->table_cap > 0 ? w->table_cap : 1024;
	while ((int64_t)cap < 2 * need)
		cap *= 2;
	if (cap > (uint64_t)1 << 31)
		return false;
	pair_slot *t = imp_alloc(&w->alloc, (size_t)cap * sizeof *t);
	if (t == NULL)
		return false;
	memset(t, 0, (size_t)cap * sizeof *t);
	pair_slot *old = w->table;
	uint32_t old_cap = w->table_cap;
	w->table = t;
	w->table_cap = (uint32_t)cap;
	for (uint32_t i = 0; i < old_cap; i++)
		if (old[i].key != 0)
			w->table[pair_table_slot(w, old[i].key)] = old[i];
	imp_free(&w->alloc, old, (size_t)old_cap * sizeof *old);
	return true;
}

/// Empties key's slot, moving back the entries after it that probing
/// would no longer find (deletion without tombstones).
static void pair_table_remove(imp_world *w, uint64_t key)
{
	uint32_t mask = w->table_cap - 1, i = pair_table_slot(w, key);
	if (w->table[i].key != key)
		return;
	for (uint32_t j = (i + 1) & mask; w->table[j].key != 0; j = (j + 1) & mask) {
		uint32_t k = pair_home(w->table[j].key, w->table_cap);
		// j's entry may fill the hole at i unless its home lies in (i, j].
		bool stays = i <= j ? (i < k && k <= j) : (i < k || k <= j);
		if (stays)
			continue;
		w->table[i] = w->table[j];
		i = j;
	}
	w->table[i].key = 0;
	w->table[i].pr = NULL;
}

void imp_world_pair_delete(imp_world *w, pair *pr)
{
	imp_world_set_touching(w, pr, false);
	list_unlink(w, key_lo(pr->key), pr);
	list_unlink(w, key_hi(pr->key), pr);
	pair_table_remove(w, pr->key);
	pr->hot->live = 0;
	pr->next[0] = w->free_pairs;
	w->free_pairs = pr;
	w->pair_count--;
}

static bool should_pair(const imp_world *w, int32_t p, int32_t q)
{
	const body *a = &w->bodies[p], *b = &w->bodies[q];
	if (a->type == IMP_BODY_STATIC && b->type == IMP_BODY_STATIC)
		return false;
	return imp_filter_should_pair(a->filter, b->filter);
}

void imp_world_on_broad_pair(void *ctx, int32_t p, int32_t q, bool added)
{
	imp_world *w = ctx;
	assert(p != q);
	uint64_t key = pair_key(p, q);
	pair *pr = imp_world_find_pair(w, key);
	if (!added) {
		if (pr != NULL)
			pr->hot->doomed = 1;
		return;
	}
	if (!should_pair(w, p, q))
		return;
	if (pr != NULL) {
		pr->hot->doomed = 0;
		return;
	}
	if (!imp_world_pair_table_reserve(w, (int64_t)w->pair_count + 1)) {
		w->oom = true;
		return;
	}
	pr = pair_alloc(w);
	if (pr == NULL) {
		w->oom = true;
		return;
	}
	pair_hot *hot = pr->hot;
	pair_step *st = pr->st;
	memset(pr, 0, sizeof *pr);
	memset(hot, 0, sizeof *hot);
	if (st != NULL)
		memset(st, 0, sizeof *st);
	pr->hot = hot;
	pr->st = st;
	pr->key = key;
	hot->key = key;
	pair_slot *slot = &w->table[pair_table_slot(w, key)];
	slot->key = key;
	slot->pr = pr;
	list_push(w, key_lo(key), pr);
	list_push(w, key_hi(key), pr);
	pr->hot->live = 1;
	w->pair_count++;
}

/* ---- events ---- */

bool imp_world_event_reserve(const imp_world *w, event_array *e, int32_t need)
{
	return imp_grow(&w->alloc, (void **)&e->items, &e->cap, need, sizeof *e->items);
}

bool imp_world_event_push(imp_world *w, event_array *e, imp_body_id a, imp_body_id b)
{
	if (e->count == e->cap && !imp_world_event_reserve(w, e, e->count + 1))
		return false;
	e->items[e->count].a = a;
	e->items[e->count].b = b;
	e->count++;
	return true;
}

static int event_cmp(const void *x, const void *y)
{
	const imp_pair_event *a = x, *b = y;
	if (a->a.index != b->a.index)
		return a->a.index < b->a.index ? -1 : 1;
	if (a->b.index != b->b.index)
		return a->b.index < b->b.index ? -1 : 1;
	// The same slots twice: a pair of removed bodies ended, then a new pair
	// of the slots' new bodies. Older generations first.
	if (a->a.generation != b->a.generation)
		return a->a.generation < b->a.generation ? -1 : 1;
	if (a->b.generation != b->b.generation)
		return a->b.generation < b->b.generation ? -1 : 1;
	return 0;
}

#define EVENT_LESS(x, y) (event_cmp(&(x), &(y)) < 0)
IMP_DEFINE_SORT(event_items_sort, imp_pair_event, EVENT_LESS)

static void event_sort(event_array *e)
{
	event_items_sort(e->items, e->count);
}

void imp_world_events_finish(imp_world *w)
{
	event_array *b = &w->begin, *e = &w->end;
	event_sort(b);
	event_sort(e);
	int32_t i = 0, j = 0, nb = 0, ne = 0;
	while (i < b->count || j < e->count) {
		int c = i == b->count ? 1 : j == e->count ? -1 : event_cmp(&b->items[i], &e->items[j]);
		if (c == 0) {
			i++, j++;
		} else if (c < 0) {
			b->items[nb++] = b->items[i++];
		} else {
			e->items[ne++] = e->items[j++];
		}
	}
	b->count = nb;
	e->count = ne;
}

/* ---- reading pairs ---- */

/// Walks the touching pairs in (lower, higher) slot order, the two sorted
/// runs merged: the few entries of the second are let in as the first
/// passes their keys (a live pair has one entry, so keys never tie among
/// live entries); false if visit stopped. Inline with visit, so that each
/// caller's loop is one.
IMP_ALWAYS_INLINE bool touch_walk(const imp_world *w, bool (*visit)(const imp_world *, const touch_entry *, void *),
				  void *user)
{
	// No offset on an array not yet made (NULL + 0 is undefined in C).
	const touch_entry *e = w->touch, *end = w->touch_count > 0 ? e + w->touch_count : e;
	const touch_entry *x = w->touch_extra, *xend = w->touch_extra_count > 0 ? x + w->touch_extra_count : x;
	uint64_t next = x < xend ? x->key : UINT64_MAX;
	for (; e < end; e++) {
		while (next < e->key) {
			if (!x->dead && !visit(w, x, user))
				return false;
			next = ++x < xend ? x->key : UINT64_MAX;
		}
		if (!e->dead && !visit(w, e, user))
			return false;
	}
	for (; x < xend; x++)
		if (!x->dead && !visit(w, x, user))
			return false;
	return true;
}

typedef struct pair_walk {
	imp_pair_fn *fn;
	void *user;
} pair_walk;

static inline bool visit_pair(const imp_world *w, const touch_entry *e, void *ctx)
{
	const pair_walk *p = ctx;
	imp_body_id a = {(uint32_t)key_lo(e->key) + 1u, e->gen_lo, w->serial};
	imp_body_id b = {(uint32_t)key_hi(e->key) + 1u, e->gen_hi, w->serial};
	return p->fn(a, b, p->user);
}

imp_status imp_world_for_each_pair(const imp_world *w, imp_pair_fn *fn, void *user)
{
	if (w == NULL || fn == NULL)
		return IMP_ERR_NULL_ARGUMENT;
	if (w->busy)
		return IMP_ERR_BUSY;
	imp_world *mw = (imp_world *)w; // the count of walkers only
	atomic_fetch_add_explicit(&mw->walkers, 1, memory_order_acq_rel);
	pair_walk p = {fn, user};
	touch_walk(w, visit_pair, &p);
	atomic_fetch_sub_explicit(&mw->walkers, 1, memory_order_acq_rel);
	return IMP_OK;
}

imp_pair_events imp_world_get_events(const imp_world *w)
{
	imp_pair_events e = {NULL, 0, NULL, 0};
	if (w != NULL) {
		e.begin = w->begin.items;
		e.begin_count = w->begin.count;
		e.end = w->end.items;
		e.end_count = w->end.count;
	}
	return e;
}

imp_world_stats imp_world_get_stats(const imp_world *w)
{
	imp_world_stats s;
	memset(&s, 0, sizeof s);
	return w != NULL ? w->stats : s;
}

/* ---- state hash ---- */

static uint64_t mix(uint64_t h, uint64_t v)
{
	h ^= v + 0x9e3779b97f4a7c15u + (h << 6) + (h >> 2);
	h *= 0xff51afd7ed558ccdu;
	return h ^ (h >> 33);
}

static uint64_t mix_double(uint64_t h, double x)
{
	uint64_t v;
	memcpy(&v, &x, sizeof v);
	return mix(h, v);
}

static bool hash_pair(const imp_world *w, const touch_entry *e, void *user)
{
	(void)w;
	uint64_t *h = user;
	*h = mix(*h, e->key);
	return true;
}

uint64_t imp_world_state_hash(const imp_world *w)
{
	if (w == NULL)
		return 0;
	uint64_t h = mix(0x243f6a8885a308d3u, (uint64_t)w->dim);
	h = mix(h, (uint64_t)w->body_count);
	for (int32_t s = 0; s < w->body_high; s++) {
		const body *b = &w->bodies[s];
		h = mix(h, (uint64_t)s << 32 | b->generation);
		if (!b->alive)
			continue;
		// Pending: changed since the last update that succeeded (not
		// body.moved, which a failed call may leave set for the work it
		// left to the next update).
		h = mix(h, b->type | (uint64_t)(w->motions[s].pending == w->updates + 1u) << 8);
		h = mix(h, b->filter.category);
		h = mix(h, b->filter.mask);
		h = mix(h, (uint64_t)(uint32_t)b->filter.group);
		if (w->dim == 2) {
			const double v[4] = {b->pose2.p.x, b->pose2.p.y, b->pose2.q.c, b->pose2.q.s};
			for (int k = 0; k < 4; k++)
				h = mix_double(h, v[k]);
		} else {
			const double v[7] = {b->pose3.p.x, b->pose3.p.y, b->pose3.p.z, b->pose3.q.x,
				b->pose3.q.y, b->pose3.q.z, b->pose3.q.w};
			for (int k = 0; k < 7; k++)
				h = mix_double(h, v[k]);
		}
		for (int k = 0; k < w->dim; k++) {
			h = mix_double(h, b->tight.lo[k]);
			h = mix_double(h, b->tight.hi[k]);
		}
		const motion *m = &w->motions[s];
		const double mv[6] = {m->v.x, m->v.y, m->v.z, m->w.x, m->w.y, m->w.z};
		for (int k = 0; k < 6; k++)
			h = mix_double(h, mv[k]);
		h = mix(h, m->has_target);
		if (m->has_target) {
			const double tv[7] = {m->target3.p.x, m->target3.p.y, m->target3.p.z, m->target3.q.x,
				m->target3.q.y, m->target3.q.z, m->target3.q.w};
			const double t2[4] = {m->target2.p.x, m->target2.p.y, m->target2.q.c, m->target2.q.s};
			for (int k = 0; k < (w->dim == 2 ? 4 : 7); k++)
				h = mix_double(h, w->dim == 2 ? t2[k] : tv[k]);
		}
	}
	h = mix_double(h, w->time);
	h = mix(h, (uint64_t)w->touching);
	touch_walk(w, hash_pair, &h);
	for (int32_t i = 0; i < w->pending_end.count; i++)
		h = mix(h, (uint64_t)w->pending_end.items[i].a.index << 32 | w->pending_end.items[i].b.index);
	return h;
}
