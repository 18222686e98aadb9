// SPDX-License-Identifier: MIT
// The world: bodies in slots named by generational ids, the broad phase
// over their enlarged boxes, a persistent pair table (open addressing) with a simplex
// cache per candidate pair, and the begin/end events of each update.
//
// An update runs in three passes over the bodies that moved:
//   1. the broad phase is told of each body whose box left its enlarged box
//      (or that is new, or re-filtered); it reports candidate pairs added
//      and removed, which create pairs or mark them doomed;
//   2. every candidate pair of a moved body is looked at once: doomed pairs
//      are deleted, the others get the exact box test and the narrow phase,
//      and a change of their touching state is an event;
//   3. the events are sorted, so that every broad phase gives the same.
// A pair's lists: each body has a doubly linked list of its pairs, threaded
// through the pair (link 0 for the pair's lower slot, 1 for the higher).
//
// A step (imp_world_step, at the end of this file) gives each moving body
// its box swept over the step in place of its box, runs pass 1 on it,
// queues the pairs of the moving bodies by a lower bound on their time of
// impact (a time-ordered heap, world/heap.c), processes the queue with the
// narrow phase and the user's callback, then puts each body at its end pose
// and leaves it in the moved list for the next update's pass 2. Motions
// live in a per-slot array beside the bodies, so that an update's walks
// over bodies read none of them; each pair keeps its bound with the two
// motion serials it was found with (docs/toi.md).
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

static atomic_uint world_serial = 1;

imp_world_def imp_default_world_def(void)
{
	imp_world_def d;
	memset(&d, 0, sizeof d);
	d.dim = 3;
	d.broad_phase = IMP_BROAD_HASH;
	d.hash_alpha = 0.5;
	d.hash_beta = 1.0;
	d.fat_ratio = 0.1;
	d.margin = 0.0;
	d.narrow_phase = true;
	return d;
}

imp_filter imp_default_filter(void)
{
	imp_filter f = {1u, ~(uint64_t)0, 0};
	return f;
}

bool imp_filter_should_pair(imp_filter a, imp_filter b)
{
	if (a.group == b.group && a.group != 0)
		return a.group > 0;
	return (a.category & b.mask) != 0 && (b.category & a.mask) != 0;
}

imp_body_def imp_default_body_def(void)
{
	imp_body_def d;
	memset(&d, 0, sizeof d);
	d.type = IMP_BODY_DYNAMIC;
	d.pose2.q.c = 1.0;
	d.pose3.q.w = 1.0;
	d.filter = imp_default_filter();
	return d;
}

/* ---- ids and slots ---- */


/* ---- validation ---- */

static bool finite_nonneg(double x)
{
	return isfinite(x) && x >= 0.0;
}

static imp_status check_def(const imp_world_def *d)
{
	if (d->dim != 2 && d->dim != 3)
		return IMP_ERR_BAD_OPTIONS;
	if (d->broad_phase != IMP_BROAD_HASH && d->broad_phase != IMP_BROAD_SWEEP &&
	    d->broad_phase != IMP_BROAD_NAIVE)
		return IMP_ERR_BAD_OPTIONS;
	if (!(d->hash_alpha > 0.0 && d->hash_alpha < 1.0) || !(d->hash_beta >= 1.0 && d->hash_beta <= 1e6))
		return IMP_ERR_BAD_OPTIONS;
	if (!(finite_nonneg(d->fat_ratio) && d->fat_ratio <= 1e6))
		return IMP_ERR_BAD_OPTIONS;
	if (d->body_capacity < 0 || d->pair_capacity < 0 || d->body_capacity > (1 << 30) ||
	    d->pair_capacity > (1 << 30))
		return IMP_ERR_BAD_OPTIONS;
	if (!finite_nonneg(d->margin) || d->margin > IMP_MAX_COORDINATE)
		return IMP_ERR_BAD_RADIUS;
	if (!imp_allocator_is_valid(&d->allocator))
		return IMP_ERR_NULL_ARGUMENT;
	return IMP_OK;
}

static imp_status check_pose(const imp_world *w, const imp_body_def *d)
{
	return w->dim == 2 ? imp_pose2_status(d->pose2) : imp_pose3_status(d->pose3);
}

/* ---- boxes ---- */

/// The box of shape s at the rotation of the pose of the world's
/// dimension (the other is not read), relative to the position: the
/// shape's box at the pose is this plus the position.
static imp_status shape_rel_box(const imp_world *w, const imp_shape *s, const imp_pose2 *p2, const imp_pose3 *p3,
				imp_box *rel)
{
	if (imp_shape_is_composite(s)) {
		// Non-convex: the turned boxes of the hierarchy's upper nodes
		// (imp_shape_aabb3's box), a few boxes at any number of children
		// (a mesh's tight box would take every vertex at every turn).
		imp_composite_rel_box(imp_composite_of(s), w->dim == 2 ? &p2->q : NULL, w->dim == 3 ? &p3->q : NULL, rel);
		return IMP_OK;
	}
	if (w->dim == 2) {
		imp_aabb2 a;
		imp_status st = imp_shape2_aabb_rel(s, p2->q, &a);
		if (st != IMP_OK)
			return st;
		*rel = (imp_box){{a.lo.x, a.lo.y, 0.0}, {a.hi.x, a.hi.y, 0.0}};
	} else {
		imp_aabb3 a;
		imp_status st = imp_shape3_aabb_rel(s, p3->q, &a);
		if (st != IMP_OK)
			return st;
		*rel = (imp_box){{a.lo.x, a.lo.y, a.lo.z}, {a.hi.x, a.hi.y, a.hi.z}};
	}
	return IMP_OK;
}

/// The tight box: the relative box placed at the position, enlarged by
/// half the margin. The sum of its sides is finite exactly when every side
/// is, and a box wider than DBL_MAX is out of range anyway.
/// imp_box_contains on all three axes without a branch (a 2D box has 0 for
/// both z bounds).
static inline bool box_contains_all(const imp_box *outer, const imp_box *inner)
{
	return (inner->lo[0] >= outer->lo[0]) & (inner->hi[0] <= outer->hi[0]) & (inner->lo[1] >= outer->lo[1]) &
	       (inner->hi[1] <= outer->hi[1]) & (inner->lo[2] >= outer->lo[2]) & (inner->hi[2] <= outer->hi[2]);
}

/// Sets slot s's tight box and adds how far its coordinates moved to the
/// slot's odometer, rounded up so that the odometer is never short of the
/// true sum: with d within one rounding of the largest move, (odo + d) (1 +
/// 4 eps) rounded is at least odo + the move.
static inline void set_tight(imp_world *w, int32_t s, const imp_box *t)
{
	body *b = &w->bodies[s];
	double d = 0.0;
	for (int k = 0; k < 3; k++) {
		double lo = fabs(t->lo[k] - b->tight.lo[k]), hi = fabs(t->hi[k] - b->tight.hi[k]);
		d = d > lo ? d : lo;
		d = d > hi ? d : hi;
	}
	w->odo[s] = (w->odo[s] + d) * (1.0 + 4 * DBL_EPSILON);
	b->tight = *t;
}

IMP_ALWAYS_INLINE imp_status place_grown(const imp_world *w, const imp_box *rel, const imp_pose2 *p2,
					 const imp_pose3 *p3, double h, imp_box *out)
{
	if (w->dim == 2) {
		*out = (imp_box){{(rel->lo[0] + p2->p.x) - h, (rel->lo[1] + p2->p.y) - h, 0.0},
				 {(rel->hi[0] + p2->p.x) + h, (rel->hi[1] + p2->p.y) + h, 0.0}};
	} else {
		*out = (imp_box){{(rel->lo[0] + p3->p.x) - h, (rel->lo[1] + p3->p.y) - h, (rel->lo[2] + p3->p.z) - h},
				 {(rel->hi[0] + p3->p.x) + h, (rel->hi[1] + p3->p.y) + h, (rel->hi[2] + p3->p.z) + h}};
	}
	double span = (out->hi[0] - out->lo[0]) + (out->hi[1] - out->lo[1]) + (out->hi[2] - out->lo[2]);
	return isfinite(span) ? IMP_OK : IMP_ERR_OUT_OF_RANGE;
}

IMP_ALWAYS_INLINE imp_status place_box(const imp_world *w, const imp_box *rel, const imp_pose2 *p2,
				       const imp_pose3 *p3, imp_box *out)
{
	return place_grown(w, rel, p2, p3, 0.5 * w->def.margin, out);
}

imp_status imp_world_shape_box(const imp_world *w, const imp_shape *s, const imp_pose2 *p2, const imp_pose3 *p3,
			       imp_box *out)
{
	imp_box rel;
	imp_status st = shape_rel_box(w, s, p2, p3, &rel);
	return st != IMP_OK ? st : place_grown(w, &rel, p2, p3, 0.0, out);
}

/// Whether a new pose keeps the body's rotation (bit for bit, or equal
/// zeros): its relative box is then the same.
IMP_ALWAYS_INLINE bool same_rotation(const imp_world *w, const body *b, const imp_pose2 *p2, const imp_pose3 *p3)
{
	if (w->dim == 2)
		return p2->q.c == b->pose2.q.c && p2->q.s == b->pose2.q.s;
	return p3->q.x == b->pose3.q.x && p3->q.y == b->pose3.q.y && p3->q.z == b->pose3.q.z &&
	       p3->q.w == b->pose3.q.w;
}

static imp_box fatten(const imp_world *w, const body *b)
{
	// A static body does not move on its own: enlarging its box would only
	// widen the region it answers to in the broad phase and the queries.
	const imp_box *t = &b->tight;
	if (b->type == IMP_BODY_STATIC)
		return *t;
	double size = 0.0;
	for (int k = 0; k < w->dim; k++)
		size = imp_max(size, t->hi[k] - t->lo[k]);
	double e = w->def.fat_ratio * size;
	imp_box f = *t;
	for (int k = 0; k < w->dim; k++) {
		f.lo[k] -= e;
		f.hi[k] += e;
		if (!isfinite(f.lo[k]) || !isfinite(f.hi[k])) {
			f.lo[k] = t->lo[k];
			f.hi[k] = t->hi[k];
		}
	}
	return f;
}

/* ---- pairs ---- */

static uint64_t pair_key(int32_t p, int32_t q)
{
	uint32_t lo = (uint32_t)(p < q ? p : q), hi = (uint32_t)(p < q ? q : p);
	return (uint64_t)lo << 32 | hi;
}

static int32_t key_lo(uint64_t k)
{
	return (int32_t)(k >> 32);
}

static int32_t key_hi(uint64_t k)
{
	return (int32_t)(k & 0xffffffffu);
}

/// Which of the pair's two links belongs to slot s.
static int link_of(const pair *pr, int32_t s)
{
	return key_lo(pr->key) == s ? 0 : 1;
}

/// A new block of free pairs, each tied to its hot record; false when out
/// of memory. Used by pair_alloc and by imp_world_create for pair_capacity.
static bool pair_block_add(imp_world *w)
{
	pair_block *blk = imp_alloc(&w->alloc, sizeof *blk);
	if (blk == NULL)
		return false;
	blk->next = w->blocks;
	w->blocks = blk;
	for (int i = PAIR_BLOCK - 1; i >= 0; i--) {
		blk->hot[i] = (pair_hot){0};
		blk->items[i].hot = &blk->hot[i];
		blk->items[i].next[0] = w->free_pairs;
		w->free_pairs = &blk->items[i];
	}
	return true;
}

static pair *pair_alloc(imp_world *w)
{
	if (w->free_pairs == NULL && !pair_block_add(w))
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

/// The next pair after pr in slot s's list.
static pair *list_next(const pair *pr, int32_t s)
{
	return pr->next[link_of(pr, s)];
}

/// Room for one more touching pair in the walk's arrays.
static bool touch_reserve(imp_world *w)
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

/// Sets a pair's touching state; a pair that begins needs touch_reserve
/// first.
static void set_touching(imp_world *w, pair *pr, bool t)
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

/// The end of an update: the pairs that began sorted and merged into the
/// small second run; the whole rebuilt into one (dead entries dropped)
/// only when the second run grows past 64 entries and a sixteenth of the
/// first, or dead entries pass a quarter, so that a frame in which a few pairs begin and
/// end costs what changed, not every touching pair. Cannot fail:
/// touch_reserve made the room.
static void touch_rebuild(imp_world *w)
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

/// Room in the table for `need` pairs (at most half full); false when out
/// of memory, the table as it was. The copy reads only the old slots.
static bool pair_table_reserve(imp_world *w, int64_t need)
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

static void pair_delete(imp_world *w, pair *pr)
{
	set_touching(w, pr, false);
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

/// The broad phase's report of a candidate pair added or removed.
static void on_broad_pair(void *ctx, int32_t p, int32_t q, bool added)
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
	if (!pair_table_reserve(w, (int64_t)w->pair_count + 1)) {
		w->oom = true;
		return;
	}
	pr = pair_alloc(w);
	if (pr == NULL) {
		w->oom = true;
		return;
	}
	pair_hot *hot = pr->hot;
	memset(pr, 0, sizeof *pr);
	memset(hot, 0, sizeof *hot);
	pr->hot = hot;
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

static bool event_reserve(const imp_world *w, event_array *e, int32_t need)
{
	return imp_grow(&w->alloc, (void **)&e->items, &e->cap, need, sizeof *e->items);
}

static bool event_push(imp_world *w, event_array *e, imp_body_id a, imp_body_id b)
{
	if (e->count == e->cap && !event_reserve(w, e, e->count + 1))
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

/// Sorts the events and, when failed updates left theirs, cancels a begin
/// against an end of the same pair: what remains is the difference between
/// the touching pairs of the last update that succeeded and this one.
static void events_finish(imp_world *w)
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

/* ---- the world ---- */

static void free_arrays(imp_world *w)
{
	const imp_allocator *a = &w->alloc;
	imp_free(a, w->bodies, (size_t)w->body_cap * sizeof *w->bodies);
	imp_free(a, w->moved, (size_t)w->moved_cap * sizeof *w->moved);
	imp_free(a, w->begin.items, (size_t)w->begin.cap * sizeof *w->begin.items);
	imp_free(a, w->end.items, (size_t)w->end.cap * sizeof *w->end.items);
	imp_free(a, w->pending_end.items, (size_t)w->pending_end.cap * sizeof *w->pending_end.items);
	imp_free(a, w->touch, (size_t)w->touch_cap * sizeof *w->touch);
	imp_free(a, w->touch_new, (size_t)w->touch_new_cap * sizeof *w->touch_new);
	imp_free(a, w->touch_extra, (size_t)w->touch_extra_cap * sizeof *w->touch_extra);
	imp_free(a, w->motions, (size_t)w->motion_cap * sizeof *w->motions);
	imp_free(a, w->odo, (size_t)w->odo_cap * sizeof *w->odo);
	imp_free(a, w->movers, (size_t)w->mover_cap * sizeof *w->movers);
	imp_free(a, w->step_bodies, (size_t)w->step_body_cap * sizeof *w->step_bodies);
	imp_free(a, w->changed, (size_t)w->changed_cap * sizeof *w->changed);
	imp_free(a, w->queued, (size_t)w->queued_cap * sizeof *w->queued);
	imp_free(a, w->deferred, (size_t)w->deferred_cap * sizeof *w->deferred);
	imp_free(a, w->capped, (size_t)w->capped_cap * sizeof *w->capped);
	imp_free(a, w->contacts, (size_t)w->contact_cap * sizeof *w->contacts);
	imp_free(a, w->qitems, (size_t)w->qitem_cap * sizeof *w->qitems);
	imp_free(a, w->qresults, (size_t)w->qresult_cap * sizeof *w->qresults);
	imp_free(a, w->table, (size_t)w->table_cap * sizeof *w->table);
	imp_heap_clear(&w->queue);
	for (pair_block *b = w->blocks; b != NULL;) {
		pair_block *n = b->next;
		imp_free(a, b, sizeof *b);
		b = n;
	}
}

imp_status imp_world_create(const imp_world_def *def, imp_world **out)
{
	if (def == NULL || out == NULL)
		return IMP_ERR_NULL_ARGUMENT;
	imp_status st = check_def(def);
	if (st != IMP_OK)
		return st;
	imp_world *w = imp_alloc(&def->allocator, sizeof *w);
	if (w == NULL)
		return IMP_ERR_OUT_OF_MEMORY;
	memset(w, 0, sizeof *w);
	w->def = *def;
	w->alloc = def->allocator;
	w->dim = def->dim;
	w->free_head = -1;
	imp_heap_init(&w->queue, &w->alloc);
	w->serial = atomic_fetch_add(&world_serial, 1u);
	if (w->serial == 0)
		w->serial = atomic_fetch_add(&world_serial, 1u);
	bool ok = imp_grow(&w->alloc, (void **)&w->bodies, &w->body_cap, def->body_capacity, sizeof *w->bodies) &&
		imp_grow(&w->alloc, (void **)&w->moved, &w->moved_cap, def->body_capacity, sizeof *w->moved) &&
		imp_grow(&w->alloc, (void **)&w->motions, &w->motion_cap, def->body_capacity, sizeof *w->motions) &&
		imp_grow(&w->alloc, (void **)&w->odo, &w->odo_cap, def->body_capacity, sizeof *w->odo);
	for (int32_t i = 0; ok && i < def->pair_capacity; i += PAIR_BLOCK)
		ok = pair_block_add(w);
	if (ok && def->pair_capacity > 0)
		ok = pair_table_reserve(w, def->pair_capacity);
	imp_broad_def bd = {def->broad_phase, def->dim, def->hash_alpha, def->hash_beta, &w->alloc, on_broad_pair, w};
	if (ok)
		ok = imp_broad_create(&bd, &w->broad) == IMP_OK;
	if (!ok) {
		free_arrays(w);
		imp_free(&def->allocator, w, sizeof *w);
		return IMP_ERR_OUT_OF_MEMORY;
	}
	*out = w;
	return IMP_OK;
}

void imp_world_destroy(imp_world *w)
{
	if (w == NULL)
		return;
	imp_broad_destroy(w->broad);
	imp_shape_destroy(w->ray_point);
	free_arrays(w);
	imp_allocator a = w->alloc;
	imp_free(&a, w, sizeof *w);
}

int imp_world_dim(const imp_world *w)
{
	return w != NULL ? w->dim : 0;
}

int imp_world_body_count(const imp_world *w)
{
	return w != NULL ? w->body_count : 0;
}

bool imp_body_is_valid(const imp_world *w, imp_body_id id)
{
	return w != NULL && imp_world_slot_of(w, id) >= 0;
}

/// Puts slot s in the moved list (room reserved by the caller).
static void mark_moved(imp_world *w, int32_t s)
{
	body *b = &w->bodies[s];
	if (!b->moved) {
		b->moved = 1;
		w->moved[w->moved_count++] = s;
	}
}

/// mark_moved for a change of the user's (an add, a pose, a filter, a
/// step's motion): also pending in the state hash until an update succeeds.
static void mark_changed(imp_world *w, int32_t s)
{
	w->motions[s].pending = w->updates + 1u;
	mark_moved(w, s);
}

static bool reserve_moved(imp_world *w)
{
	return imp_grow(&w->alloc, (void **)&w->moved, &w->moved_cap, w->moved_count + 1, sizeof *w->moved);
}

imp_status imp_world_add_body(imp_world *w, const imp_body_def *def, imp_body_id *out)
{
	if (w == NULL || def == NULL || out == NULL)
		return IMP_ERR_NULL_ARGUMENT;
	if (w->busy)
		return IMP_ERR_BUSY;
	if (def->shape == NULL)
		return IMP_ERR_NULL_ARGUMENT;
	if (imp_shape_dim(def->shape) == 0)
		return IMP_ERR_BAD_SHAPE;
	if (imp_shape_dim(def->shape) != w->dim)
		return IMP_ERR_DIMENSION_MISMATCH;
	if (def->type != IMP_BODY_STATIC && def->type != IMP_BODY_KINEMATIC && def->type != IMP_BODY_DYNAMIC)
		return IMP_ERR_BAD_OPTIONS;
	imp_status st = check_pose(w, def);
	if (st != IMP_OK)
		return st;
	imp_box rel, tight;
	st = shape_rel_box(w, def->shape, &def->pose2, &def->pose3, &rel);
	if (st == IMP_OK)
		st = place_box(w, &rel, &def->pose2, &def->pose3, &tight);
	if (st != IMP_OK)
		return st;
	int32_t s = w->free_head;
	if (s < 0) {
		if (w->body_high == INT32_MAX - 1)
			return IMP_ERR_OUT_OF_MEMORY;
		if (!imp_grow(&w->alloc, (void **)&w->bodies, &w->body_cap, w->body_high + 1, sizeof *w->bodies) ||
		    !imp_grow(&w->alloc, (void **)&w->motions, &w->motion_cap, w->body_high + 1, sizeof *w->motions) ||
		    !imp_grow(&w->alloc, (void **)&w->odo, &w->odo_cap, w->body_high + 1, sizeof *w->odo))
			return IMP_ERR_OUT_OF_MEMORY;
	}
	if (!reserve_moved(w))
		return IMP_ERR_OUT_OF_MEMORY;
	uint32_t generation = 1;
	if (s >= 0) {
		w->free_head = w->bodies[s].next_free;
		generation = w->bodies[s].generation;
	} else {
		s = w->body_high++;
		memset(&w->motions[s], 0, sizeof w->motions[s]);
		w->odo[s] = 0.0; // a new slot's; a reused slot keeps its odometer: pairs read only its growth
	}
	motion *m = &w->motions[s];
	uint32_t serial = m->serial + 1u;
	uint8_t listed = m->listed;
	memset(m, 0, sizeof *m);
	m->serial = serial;
	m->listed = listed; // a stale entry in the movers list stays until the next step prunes it
	m->reach = imp_shape_reach(def->shape);
	m->core_reach = imp_shape_core_reach(def->shape);
	if (m->reach > w->max_reach)
		w->max_reach = m->reach;
	body *b = &w->bodies[s];
	memset(b, 0, sizeof *b);
	b->generation = generation;
	b->tight = tight;
	b->rel = rel;
	b->shape = def->shape;
	b->pose2 = def->pose2;
	b->pose3 = def->pose3;
	b->filter = def->filter;
	b->user_data = def->user_data;
	b->type = (uint8_t)def->type;
	b->alive = 1;
	b->next_free = -1;
	w->body_count++;
	mark_changed(w, s);
	*out = imp_world_id_of(w, s);
	return IMP_OK;
}

imp_status imp_world_remove_body(imp_world *w, imp_body_id id)
{
	if (w == NULL)
		return IMP_ERR_NULL_ARGUMENT;
	if (w->busy)
		return IMP_ERR_BUSY;
	int32_t s = imp_world_slot_of(w, id);
	if (s < 0)
		return IMP_ERR_BAD_ID;
	body *b = &w->bodies[s];
	int32_t ending = 0;
	for (pair *pr = b->pairs; pr != NULL; pr = list_next(pr, s))
		ending += pr->hot->touching;
	if (!event_reserve(w, &w->pending_end, w->pending_end.count + ending))
		return IMP_ERR_OUT_OF_MEMORY;
	while (b->pairs != NULL) {
		pair *pr = b->pairs;
		if (pr->hot->touching)
			event_push(w, &w->pending_end, imp_world_id_of(w, key_lo(pr->key)), imp_world_id_of(w, key_hi(pr->key)));
		pair_delete(w, pr);
	}
	if (b->in_broad)
		imp_broad_remove(w->broad, s);
	motion *m = &w->motions[s];
	m->v = m->w = imp_vec3_make(0.0, 0.0, 0.0);
	m->has_target = 0;
	m->serial++;
	b->alive = 0;
	b->in_broad = 0;
	b->moved = 0; // a stale entry in the moved list is skipped
	b->shape = NULL;
	w->body_count--;
	if (b->generation < UINT32_MAX) {
		b->generation++;
		b->next_free = w->free_head;
		w->free_head = s;
	}
	return IMP_OK;
}

IMP_ALWAYS_INLINE imp_status set_pose(imp_world *w, imp_body_id id, const imp_pose2 *p2, const imp_pose3 *p3)
{
	if (w == NULL)
		return IMP_ERR_NULL_ARGUMENT;
	if (w->busy)
		return IMP_ERR_BUSY;
	if ((p2 != NULL) != (w->dim == 2))
		return IMP_ERR_DIMENSION_MISMATCH;
	int32_t s = imp_world_slot_of(w, id);
	if (s < 0)
		return IMP_ERR_BAD_ID;
	imp_status st = p2 != NULL ? imp_pose2_status(*p2) : imp_pose3_status(*p3);
	if (st != IMP_OK)
		return st;
	body *b = &w->bodies[s];
	// A body that only translates keeps its relative box: no rotation to
	// compute.
	imp_box rel = b->rel, tight;
	if (!same_rotation(w, b, p2, p3)) {
		st = shape_rel_box(w, b->shape, p2, p3, &rel);
		if (st != IMP_OK)
			return st;
	}
	st = place_box(w, &rel, p2, p3, &tight);
	if (st != IMP_OK)
		return st;
	if (!b->moved && w->moved_count >= w->moved_cap && !reserve_moved(w))
		return IMP_ERR_OUT_OF_MEMORY;
	if (p2 != NULL)
		b->pose2 = *p2;
	else
		b->pose3 = *p3;
	set_tight(w, s, &tight);
	b->rel = rel;
	b->inside = box_contains_all(&b->fat, &tight);
	w->motions[s].serial++;
	mark_changed(w, s);
	return IMP_OK;
}

imp_status imp_body_set_pose2(imp_world *w, imp_body_id id, imp_pose2 pose)
{
	return set_pose(w, id, &pose, NULL);
}

imp_status imp_body_set_pose3(imp_world *w, imp_body_id id, imp_pose3 pose)
{
	return set_pose(w, id, NULL, &pose);
}

/// The body an id names for a getter, or NULL with *st set.
static const body *get_body(const imp_world *w, imp_body_id id, const void *out, imp_status *st)
{
	if (w == NULL || out == NULL) {
		*st = IMP_ERR_NULL_ARGUMENT;
		return NULL;
	}
	int32_t s = imp_world_slot_of(w, id);
	if (s < 0) {
		*st = IMP_ERR_BAD_ID;
		return NULL;
	}
	*st = IMP_OK;
	return &w->bodies[s];
}

static void pose_at(const imp_world *w, int32_t s, double t, imp_pose2 *p2, imp_pose3 *p3);

/// A body's pose now: inside the step's callback, at the contact's time.
static void pose_now(const imp_world *w, const body *b, imp_pose2 *p2, imp_pose3 *p3)
{
	if (w->in_step) {
		pose_at(w, (int32_t)(b - w->bodies), w->step_now, p2, p3);
		return;
	}
	*p2 = b->pose2;
	*p3 = b->pose3;
}

imp_status imp_body_get_pose2(const imp_world *w, imp_body_id id, imp_pose2 *out)
{
	imp_status st;
	const body *b = get_body(w, id, out, &st);
	if (b == NULL)
		return st;
	if (w->dim != 2)
		return IMP_ERR_DIMENSION_MISMATCH;
	imp_pose3 p3;
	pose_now(w, b, out, &p3);
	return IMP_OK;
}

imp_status imp_body_get_pose3(const imp_world *w, imp_body_id id, imp_pose3 *out)
{
	imp_status st;
	const body *b = get_body(w, id, out, &st);
	if (b == NULL)
		return st;
	if (w->dim != 3)
		return IMP_ERR_DIMENSION_MISMATCH;
	imp_pose2 p2;
	pose_now(w, b, &p2, out);
	return IMP_OK;
}

imp_status imp_body_get_aabb2(const imp_world *w, imp_body_id id, imp_aabb2 *out)
{
	imp_status st;
	const body *b = get_body(w, id, out, &st);
	if (b == NULL)
		return st;
	if (w->dim != 2)
		return IMP_ERR_DIMENSION_MISMATCH;
	imp_pose2 p2;
	imp_pose3 p3;
	pose_now(w, b, &p2, &p3);
	return imp_shape_aabb2(b->shape, p2, out);
}

imp_status imp_body_get_aabb3(const imp_world *w, imp_body_id id, imp_aabb3 *out)
{
	imp_status st;
	const body *b = get_body(w, id, out, &st);
	if (b == NULL)
		return st;
	if (w->dim != 3)
		return IMP_ERR_DIMENSION_MISMATCH;
	imp_pose2 p2;
	imp_pose3 p3;
	pose_now(w, b, &p2, &p3);
	return imp_shape_aabb3(b->shape, p3, out);
}

imp_status imp_body_get_type(const imp_world *w, imp_body_id id, imp_body_type *out)
{
	imp_status st;
	const body *b = get_body(w, id, out, &st);
	if (b != NULL)
		*out = (imp_body_type)b->type;
	return st;
}

imp_status imp_body_get_shape(const imp_world *w, imp_body_id id, const imp_shape **out)
{
	imp_status st;
	const body *b = get_body(w, id, out, &st);
	if (b != NULL)
		*out = b->shape;
	return st;
}

imp_status imp_body_get_filter(const imp_world *w, imp_body_id id, imp_filter *out)
{
	imp_status st;
	const body *b = get_body(w, id, out, &st);
	if (b != NULL)
		*out = b->filter;
	return st;
}

imp_status imp_body_get_user_data(const imp_world *w, imp_body_id id, void **out)
{
	imp_status st;
	const body *b = get_body(w, id, out, &st);
	if (b != NULL)
		*out = b->user_data;
	return st;
}

imp_status imp_body_set_user_data(imp_world *w, imp_body_id id, void *user_data)
{
	if (w == NULL)
		return IMP_ERR_NULL_ARGUMENT;
	int32_t s = imp_world_slot_of(w, id);
	if (s < 0)
		return IMP_ERR_BAD_ID;
	w->bodies[s].user_data = user_data;
	return IMP_OK;
}

imp_status imp_body_set_filter(imp_world *w, imp_body_id id, imp_filter filter)
{
	if (w == NULL)
		return IMP_ERR_NULL_ARGUMENT;
	if (w->busy)
		return IMP_ERR_BUSY;
	int32_t s = imp_world_slot_of(w, id);
	if (s < 0)
		return IMP_ERR_BAD_ID;
	body *b = &w->bodies[s];
	if (!b->moved && !reserve_moved(w))
		return IMP_ERR_OUT_OF_MEMORY;
	b->filter = filter;
	b->refilter = 1;
	mark_changed(w, s);
	return IMP_OK;
}

/* ---- update ---- */

/// Pass 1a for one body: a move inside the broad phase, or, for a body that
/// must be (re)inserted, its old pairs doomed (unless the broad phase
/// reports them again) and the insert left to pass 1b.
static imp_status broad_pass(imp_world *w, int32_t s, int *moves)
{
	body *b = &w->bodies[s];
	if (!b->in_broad || b->refilter) {
		if (b->in_broad)
			imp_broad_remove(w->broad, s);
		b->in_broad = 0;
		for (pair *pr = b->pairs; pr != NULL; pr = list_next(pr, s))
			pr->hot->doomed = 1;
		b->inserting = 1;
		return IMP_OK;
	}
	if (b->inside)
		return IMP_OK;
	w->oom = false;
	b->fat = fatten(w, b);
	b->inside = 1;
	imp_status st = imp_broad_move(w->broad, s, &b->fat);
	++*moves;
	if (st == IMP_OK && w->oom)
		st = IMP_ERR_OUT_OF_MEMORY;
	if (st != IMP_OK) {
		// Out of the broad phase altogether; the next update inserts it again.
		imp_broad_remove(w->broad, s);
		b->in_broad = 0;
	}
	return st;
}

/// One insert of pass 1b (b->fat already made): false when the body was
/// not inserted (out of memory: it is left for the next update, *result
/// says so; or a slot met twice in the moved list, inserted once).
static bool insert_one(imp_world *w, int32_t s, int *moves, imp_status *result)
{
	body *b = &w->bodies[s];
	if (!b->alive || !b->moved || !b->inserting || b->in_broad)
		return false;
	w->oom = false;
	b->inside = 1;
	imp_status st = imp_broad_insert(w->broad, s, &b->fat, b->type == IMP_BODY_STATIC);
	++*moves;
	if (st == IMP_OK && w->oom)
		st = IMP_ERR_OUT_OF_MEMORY;
	if (st != IMP_OK) {
		imp_broad_remove(w->broad, s);
		b->inserting = 0;
		*result = st;
		return false;
	}
	b->in_broad = 1;
	return true;
}

/// From this many bodies to insert, pass 1b inserts them in spatial order.
#define ORDER_MIN 32

#define U64_LESS(x, y) ((x) < (y))
IMP_DEFINE_SORT(u64_sort, uint64_t, U64_LESS)

/// Pass 1b: the bodies pass 1a left, inserted; then the flush in which the
/// sweep reports their pairs. Out of memory in the flush takes them all out
/// again, for the next update.
///
/// From ORDER_MIN bodies, they are inserted in the order of the Morton
/// codes of their boxes' centres (imp_broad_morton; ties by slot), sorted
/// in O(m log m): slots are in no spatial order (bodies added at random
/// places), and inserting a large batch in slot order read the broad
/// phase's cells and counters and the neighbours' records at random, a
/// cache and TLB miss each (the first update of a 1M-body world). The
/// order changes no result: the pairs are a set, the events are sorted.
/// Out of memory for the keys (8 bytes a body, freed before returning),
/// nothing is inserted: every body is left for the next update, as when
/// its insert fails.
static imp_status insert_pass(imp_world *w, int32_t n, int *moves)
{
	imp_status result = IMP_OK;
	bool any = false;
	int32_t m = 0;
	imp_box bounds;
	for (int k = 0; k < 3; k++) {
		bounds.lo[k] = INFINITY;
		bounds.hi[k] = -INFINITY;
	}
	for (int32_t i = 0; i < n; i++) {
		body *b = &w->bodies[w->moved[i]];
		if (!b->alive || !b->moved || !b->inserting || b->in_broad)
			continue;
		b->fat = fatten(w, b);
		for (int k = 0; k < w->dim; k++) {
			double c = 0.5 * b->fat.lo[k] + 0.5 * b->fat.hi[k];
			bounds.lo[k] = imp_min(bounds.lo[k], c);
			bounds.hi[k] = imp_max(bounds.hi[k], c);
		}
		m++;
	}
	uint64_t *keys = NULL;
	if (m >= ORDER_MIN) {
		keys = imp_alloc(&w->alloc, (size_t)m * sizeof *keys);
		if (keys == NULL) {
			// As if every insert had failed: left for the next update.
			for (int32_t i = 0; i < n; i++) {
				body *b = &w->bodies[w->moved[i]];
				if (b->alive && b->moved && !b->in_broad)
					b->inserting = 0;
			}
			return IMP_ERR_OUT_OF_MEMORY;
		}
		int32_t j = 0;
		for (int32_t i = 0; i < n && j < m; i++) {
			int32_t s = w->moved[i];
			const body *b = &w->bodies[s];
			if (!b->alive || !b->moved || !b->inserting || b->in_broad)
				continue;
			keys[j++] = (uint64_t)imp_broad_morton(w->dim, &b->fat, &bounds) << 32 | (uint32_t)s;
		}
		u64_sort(keys, j);
		for (int32_t i = 0; i < j; i++)
			any = insert_one(w, (int32_t)(uint32_t)keys[i], moves, &result) || any;
		imp_free(&w->alloc, keys, (size_t)m * sizeof *keys);
	} else {
		for (int32_t i = 0; i < n; i++)
			any = insert_one(w, w->moved[i], moves, &result) || any;
	}
	if (!any)
		return result;
	w->oom = false;
	imp_broad_flush(w->broad);
	for (int32_t i = 0; i < n; i++) {
		int32_t s = w->moved[i];
		body *b = &w->bodies[s];
		if (!b->alive || !b->moved || !b->inserting)
			continue;
		b->inserting = 0;
		if (w->oom) {
			imp_broad_remove(w->broad, s);
			b->in_broad = 0;
		} else {
			b->refilter = 0;
		}
	}
	return w->oom ? IMP_ERR_OUT_OF_MEMORY : result;
}

/// Pass 1 over the moved list: the broad phase told of every body whose box
/// left its enlarged box, and of the bodies to insert; adds the bodies
/// looked at to *moved and the broad phase's moves and inserts to *moves.
/// Out of memory leaves the bodies it concerns for the next time.
static imp_status broad_update(imp_world *w, int *moved, int *moves)
{
	imp_status result = IMP_OK;
	int32_t n = w->moved_count, inserts = 0;
	for (int32_t i = 0; i < n; i++) {
		int32_t s = w->moved[i];
		body *b = &w->bodies[s];
		if (!b->alive || !b->moved)
			continue;
		++*moved;
		if (broad_pass(w, s, moves) != IMP_OK)
			result = IMP_ERR_OUT_OF_MEMORY;
		inserts += b->inserting;
	}
	if (inserts > 0 && insert_pass(w, n, moves) != IMP_OK)
		result = IMP_ERR_OUT_OF_MEMORY;
	return result;
}

/// The least overlap of two boxes over the world's axes (negative: minus
/// the largest gap), >= 0 exactly when they overlap: imp_box_gaps's
/// largest gap, negated.
static inline double least_overlap(const imp_world *w, const imp_box *a, const imp_box *c)
{
	double g[3];
	return -imp_box_gaps(a, c, w->dim, g);
}

/// The pair's limit after a box test that found least overlap m and left
/// its touching state matching it. Each o_k moves by at most the sum of the
/// two bodies' moves, which their odometers bound: while the odometers
/// have together run less than |m| since now, the boxes stay overlapping
/// (every o_k >= 0) or apart (the least o_k < 0), and the pair's state
/// with them. With the narrow phase, overlapping boxes say nothing of the
/// shapes: 0, never skipped. The factor 1 - 8 eps covers the roundings of
/// the sums (the odometers themselves round up).
static inline void pair_limit(const imp_world *w, pair_hot *h, double m, bool narrow)
{
	double run = w->odo[key_lo(h->key)] + w->odo[key_hi(h->key)];
	h->limit = m >= 0.0 && narrow ? 0.0 : (run + fabs(m)) * (1.0 - 8 * DBL_EPSILON);
}

/// Whether pass 2 may leave the pair unlooked at: its bodies' odometers
/// have not run far enough to change its boxes' status (pair_limit).
static inline bool pair_settled(const imp_world *w, const pair_hot *h)
{
	return w->odo[key_lo(h->key)] + w->odo[key_hi(h->key)] < h->limit && !h->doomed;
}

/// Whether the pair touches now, given m, its boxes' least overlap (from
/// pair_unchanged). Reads pr (its simplex cache) only for the narrow phase.
static bool narrow_touching(imp_world *w, pair *pr, const pair_hot *h, double m)
{
	const body *a = &w->bodies[key_lo(h->key)], *b = &w->bodies[key_hi(h->key)];
	w->stats.box_tests++;
	if (!(m >= 0.0))
		return false;
	if (!w->def.narrow_phase)
		return true;
	w->stats.narrow_calls++;
	double margin = w->def.margin;
	if (w->dim == 2) {
		if (margin > 0.0)
			return imp_distance2(a->shape, a->pose2, b->shape, b->pose2, &pr->cache) <= margin;
		return imp_overlap2(a->shape, a->pose2, b->shape, b->pose2, &pr->cache);
	}
	if (margin > 0.0)
		return imp_distance3(a->shape, a->pose3, b->shape, b->pose3, &pr->cache) <= margin;
	return imp_overlap3(a->shape, a->pose3, b->shape, b->pose3, &pr->cache);
}

/// Pass 2 for one pair: doomed, deleted; else its touching state brought up
/// to date, m being its boxes' least overlap (pair_unchanged). False when
/// an event could not be stored.
static bool pair_visit(imp_world *w, pair *pr, pair_hot *h, double m)
{
	h->stamp = w->stamp;
	if (h->doomed) {
		if (h->touching && !event_push(w, &w->end, imp_world_id_of(w, key_lo(h->key)), imp_world_id_of(w, key_hi(h->key)))) {
			h->stamp = 0;
			return false;
		}
		pair_delete(w, pr);
		return true;
	}
	bool t = narrow_touching(w, pr, h, m);
	if (t != (bool)h->touching) {
		if ((t && !touch_reserve(w)) ||
		    !event_push(w, t ? &w->begin : &w->end, imp_world_id_of(w, key_lo(h->key)), imp_world_id_of(w, key_hi(h->key)))) {
			h->stamp = 0;
			return false;
		}
		set_touching(w, pr, t);
	}
	pair_limit(w, h, m, w->def.narrow_phase);
	return true;
}

/// imp_box_overlap on all three axes without a branch (a 2D box has 0 for
/// both z bounds, so the third test holds).
static inline bool box_overlap_all(const imp_box *a, const imp_box *b)
{
	return (a->lo[0] <= b->hi[0]) & (b->lo[0] <= a->hi[0]) & (a->lo[1] <= b->hi[1]) & (b->lo[1] <= a->hi[1]) &
	       (a->lo[2] <= b->hi[2]) & (b->lo[2] <= a->hi[2]);
}

/// Pass 2's common cases, inline: a pair that stays apart, or stays
/// touching without a narrow phase, gets its new limit and is left; true
/// if so. Otherwise *m is its boxes' least overlap, for pair_visit (not
/// set for a doomed pair, which needs none). (The caller counts the box
/// test and, if it visits pairs twice, stamps the pair.)
static inline bool pair_unchanged(const imp_world *w, pair_hot *h, const body *a, const body *c, bool narrow,
				  double *m)
{
	if (h->doomed)
		return false;
	*m = least_overlap(w, &a->tight, &c->tight);
	bool same = !(*m >= 0.0) ? !h->touching : h->touching && !narrow;
	if (same)
		pair_limit(w, h, *m, narrow);
	return same;
}

/// Pass 2 for one body: each of its pairs looked at once this update.
/// False when an event could not be stored (the body stays moved).
static bool pair_pass(imp_world *w, int32_t s)
{
	bool narrow = w->def.narrow_phase;
	pair *next;
	for (pair *pr = w->bodies[s].pairs; pr != NULL; pr = next) {
		next = list_next(pr, s);
		pair_hot *h = pr->hot;
		if (h->stamp == w->stamp)
			continue;
		if (pair_settled(w, h)) {
			w->stats.settled++;
			h->stamp = w->stamp;
			continue;
		}
		double m = 0.0;
		if (pair_unchanged(w, h, &w->bodies[key_lo(h->key)], &w->bodies[key_hi(h->key)], narrow, &m)) {
			w->stats.box_tests++;
			h->stamp = w->stamp;
			continue;
		}
		if (!pair_visit(w, pr, h, m))
			return false;
	}
	return true;
}

#define PREFETCH_AHEAD 8

/// Whether pass 2 looks at a body's pairs.
static bool pass2_body(const body *b)
{
	return b->alive && b->moved && b->in_broad;
}

/// Pass 2 when most bodies moved: the pair blocks walked in memory order
/// instead of each moved body's list, each pair of a moved body visited.
/// False when an event could not be stored; every moved body then stays
/// moved (a pair looked at again next time gives no second event).
static bool pair_pass_all(imp_world *w)
{
	// Each pair is met once here: no stamps to read or write (the visits
	// that change something stamp their pair, which nothing reads in this
	// update).
	bool narrow = w->def.narrow_phase, ok = true;
	int32_t unchanged = 0, settled = 0;
	for (pair_block *blk = w->blocks; blk != NULL && ok; blk = blk->next) {
		// Whether the pairs up to PREFETCH_AHEAD ahead are settled, found
		// when they were looked ahead at (a pair's visit changes no other
		// pair's limit nor any odometer), slot i % PREFETCH_AHEAD for pair
		// i.
		bool ahead_settled[PREFETCH_AHEAD];
		for (int i = 0; i < PAIR_BLOCK; i++) {
			pair_hot *h = &blk->hot[i];
			bool is_settled = i >= PREFETCH_AHEAD ? ahead_settled[i % PREFETCH_AHEAD]
							      : h->live && pair_settled(w, h);
			// The bodies of a pair a few ahead that will need them, asked
			// for now: the pairs come in no order of their bodies, so each
			// body is a cache miss that this overlaps with the work on the
			// pairs before. (The odometers are one double a slot, mostly
			// in the cache.)
			if (i + PREFETCH_AHEAD < PAIR_BLOCK) {
				const pair_hot *ahead = &blk->hot[i + PREFETCH_AHEAD];
				bool s_ahead = ahead->live && pair_settled(w, ahead);
				ahead_settled[i % PREFETCH_AHEAD] = s_ahead;
				if (ahead->live && !s_ahead) {
					IMP_PREFETCH(&w->bodies[key_lo(ahead->key)]);
					IMP_PREFETCH(&w->bodies[key_hi(ahead->key)]);
				}
			}
			if (!h->live)
				continue;
			// A settled pair is left as it is whether or not its bodies
			// moved, and its bodies are not read.
			if (is_settled) {
				settled++;
				continue;
			}
			const body *a = &w->bodies[key_lo(h->key)], *c = &w->bodies[key_hi(h->key)];
			if (!pass2_body(a) && !pass2_body(c))
				continue;
			double m = 0.0;
			if (pair_unchanged(w, h, a, c, narrow, &m)) {
				unchanged++;
				continue;
			}
			if (!pair_visit(w, &blk->items[i], h, m)) {
				ok = false;
				break;
			}
		}
	}
	w->stats.box_tests += unchanged;
	w->stats.settled += settled;
	return ok;
}

/// Room for everything pass 2 can add, so that it cannot fail: each pair
/// changes at most once in an update, so at most the pairs not touching
/// begin (an event, an entry in the walk's arrays each) and at most the
/// touching ones end, besides the ends the removals left.
static bool pass2_reserve(imp_world *w)
{
	int32_t begins = w->pair_count - w->touching, ends = w->touching + w->pending_end.count;
	int32_t runs = w->touch_extra_count + w->touch_new_count + begins;
	return event_reserve(w, &w->begin, begins) && event_reserve(w, &w->end, ends) &&
	       imp_grow(&w->alloc, (void **)&w->touch_new, &w->touch_new_cap, w->touch_new_count + begins,
			sizeof *w->touch_new) &&
	       imp_grow(&w->alloc, (void **)&w->touch_extra, &w->touch_extra_cap, runs, sizeof *w->touch_extra) &&
	       imp_grow(&w->alloc, (void **)&w->touch, &w->touch_cap, w->touch_count + runs, sizeof *w->touch);
}

imp_status imp_world_update(imp_world *w)
{
	if (w == NULL)
		return IMP_ERR_NULL_ARGUMENT;
	if (w->busy)
		return IMP_ERR_BUSY;
	if (++w->stamp == 0)
		w->stamp = 1;
	memset(&w->stats, 0, sizeof w->stats);
	imp_broad_counters c0 = imp_broad_get_counters(w->broad);

	// Pass 1, the only part that can fail for want of memory, and the room
	// for pass 2 (the pairs it made included). A failure changes nothing
	// the state hash or the user sees: no touching pair and no event
	// changes, the moved list keeps every body (those the broad phase
	// could not take are out of it, for the next update to insert), and
	// the events stay those of the last update that succeeded.
	int32_t n = w->moved_count;
	imp_status result = broad_update(w, &w->stats.moved, &w->stats.broad_moves);
	if (result == IMP_OK && !pass2_reserve(w))
		result = IMP_ERR_OUT_OF_MEMORY;
	if (result != IMP_OK) {
		w->stats.bodies = w->body_count;
		w->stats.candidates = w->pair_count;
		w->stats.touching = w->touching;
		return result;
	}

	// From here nothing fails. The events: the ends of removed bodies'
	// pairs, then pass 2's.
	w->begin.count = 0;
	if (w->pending_end.count > 0)
		memcpy(w->end.items, w->pending_end.items, (size_t)w->pending_end.count * sizeof *w->end.items);
	w->end.count = w->pending_end.count;
	w->pending_end.count = 0;
	// Pass 2. The pairs are visited through the moved bodies' lists, or,
	// when a quarter of the bodies or more moved, by one walk over all of
	// them in memory order.
	bool all = 4 * (int64_t)n >= w->body_count, events_ok = true;
	if (all)
		events_ok = pair_pass_all(w);
	int32_t kept = 0;
	for (int32_t i = 0; i < n; i++) {
		int32_t s = w->moved[i];
		body *b = &w->bodies[s];
		if (!b->alive || !b->moved)
			continue;
		if (!b->in_broad) { // pass 1 succeeded: every body is in (kept for the next update if not)
			w->moved[kept++] = s;
			continue;
		}
		if (!all)
			events_ok = pair_pass(w, s) && events_ok;
		b->moved = 0;
	}
	assert(events_ok); // pass2_reserve made the room
	(void)events_ok;
	w->moved_count = kept;
	w->updates++;

	touch_rebuild(w);
	events_finish(w);
	w->stats.bodies = w->body_count;
	w->stats.candidates = w->pair_count;
	w->stats.touching = w->touching;
	w->stats.begin_count = w->begin.count;
	w->stats.end_count = w->end.count;
	imp_broad_counters c1 = imp_broad_get_counters(w->broad);
	w->stats.broad_swaps = (int)(c1.swaps - c0.swaps);
	w->stats.broad_cells = (int)(c1.cell_visits - c0.cell_visits);
	w->stats.broad_tests = (int)(c1.box_tests - c0.box_tests);
	return IMP_OK;
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
	imp_world *mw = (imp_world *)w; // the world is never const underneath
	mw->busy = true;
	pair_walk p = {fn, user};
	touch_walk(w, visit_pair, &p);
	mw->busy = false;
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

/* ---- motion ---- */

static bool within_range(double x)
{
	return fabs(x) <= IMP_MAX_COORDINATE; // false for NaN and infinities
}

static imp_status vec3_status(imp_vec3 v)
{
	if (!isfinite(v.x) || !isfinite(v.y) || !isfinite(v.z))
		return IMP_ERR_NOT_FINITE;
	return within_range(v.x) && within_range(v.y) && within_range(v.z) ? IMP_OK : IMP_ERR_OUT_OF_RANGE;
}

static bool vec3_is_zero(imp_vec3 v)
{
	return v.x == 0.0 && v.y == 0.0 && v.z == 0.0;
}

static bool has_motion(const motion *m)
{
	return m->has_target || !vec3_is_zero(m->v) || !vec3_is_zero(m->w);
}

/// Whether slot s moves in the step in progress.
static bool in_step(const imp_world *w, int32_t s)
{
	return w->motions[s].step == w->step_stamp && w->step_stamp != 0;
}

/// The body's pose at step time t: its base pose moved by the step's
/// velocity over t - t0 (imp_motion2/3_at), or its pose when it does not
/// move in this step.
static void pose_at(const imp_world *w, int32_t s, double t, imp_pose2 *p2, imp_pose3 *p3)
{
	const body *b = &w->bodies[s];
	const motion *m = &w->motions[s];
	if (!in_step(w, s)) {
		*p2 = b->pose2;
		*p3 = b->pose3;
		return;
	}
	if (w->dim == 2) {
		imp_motion2 mo = {m->base2, imp_vec2_make(m->sv.x, m->sv.y), m->sw.z};
		*p2 = imp_motion2_at(mo, t - m->t0);
	} else {
		imp_motion3 mo = {m->base3, m->sv, m->sw};
		*p3 = imp_motion3_at(mo, t - m->t0);
	}
}

/// The position of body s's origin at step time t.
static imp_vec3 position_at(const imp_world *w, int32_t s, double t)
{
	const body *b = &w->bodies[s];
	const motion *m = &w->motions[s];
	if (!in_step(w, s))
		return w->dim == 2 ? imp_vec3_make(b->pose2.p.x, b->pose2.p.y, 0.0) : b->pose3.p;
	imp_vec3 o = w->dim == 2 ? imp_vec3_make(m->base2.p.x, m->base2.p.y, 0.0) : m->base3.p;
	return imp_vec3_add(o, imp_vec3_scale(t - m->t0, m->sv));
}

/// The position of a pose of the world's dimension (z = 0 in 2D).
static imp_vec3 position_of(const imp_world *w, const imp_pose2 *p2, const imp_pose3 *p3)
{
	return w->dim == 2 ? imp_vec3_make(p2->p.x, p2->p.y, 0.0) : p3->p;
}

/// Whether a body at position p moving at v from step time t0 stays within
/// the coordinate range up to step time t1.
static bool path_in_range(imp_vec3 p, imp_vec3 v, double span)
{
	return within_range(p.x + v.x * span) && within_range(p.y + v.y * span) && within_range(p.z + v.z * span);
}

/// Common checks of the motion setters; the slot, or -1 with *st set.
static int32_t motion_slot(imp_world *w, imp_body_id id, int dim, imp_status *st)
{
	*st = IMP_OK;
	if (w == NULL) {
		*st = IMP_ERR_NULL_ARGUMENT;
		return -1;
	}
	if (w->dim != dim) {
		*st = IMP_ERR_DIMENSION_MISMATCH;
		return -1;
	}
	int32_t s = imp_world_slot_of(w, id);
	if (s < 0) {
		*st = IMP_ERR_BAD_ID;
		return -1;
	}
	if (w->bodies[s].type == IMP_BODY_STATIC)
		*st = IMP_ERR_BAD_OPTIONS;
	return *st == IMP_OK ? s : -1;
}

/// Puts a body with a motion in the movers list.
static bool list_mover(imp_world *w, int32_t s)
{
	motion *m = &w->motions[s];
	if (m->listed)
		return true;
	if (!imp_grow(&w->alloc, (void **)&w->movers, &w->mover_cap, w->mover_count + 1, sizeof *w->movers))
		return false;
	w->movers[w->mover_count++] = s;
	m->listed = 1;
	return true;
}

static bool vec3_equal(imp_vec3 a, imp_vec3 b)
{
	return a.x == b.x && a.y == b.y && a.z == b.z;
}

static imp_status set_velocity(imp_world *w, int32_t s, imp_vec3 v, imp_vec3 av)
{
	motion *m = &w->motions[s];
	// The same velocity again (a simulator that sets every body's each
	// frame): nothing changes, and the pairs keep their bounds.
	if (!m->has_target && vec3_equal(m->v, v) && vec3_equal(m->w, av) &&
	    (!in_step(w, s) || (vec3_equal(m->sv, v) && vec3_equal(m->sw, av))))
		return IMP_OK;
	if (w->in_step) {
		// Inside the step's callback: the new motion starts at the
		// contact's time from where the body is then. Room for the lists
		// was made when the step began.
		double now = w->step_now;
		imp_pose2 p2;
		imp_pose3 p3;
		pose_at(w, s, now, &p2, &p3);
		if (!path_in_range(position_of(w, &p2, &p3), v, w->step_dt - now))
			return IMP_ERR_OUT_OF_RANGE;
		if (!in_step(w, s)) {
			m->step = w->step_stamp;
			m->started = 1;
			w->step_bodies[w->step_body_count++] = s;
		}
		if (m->set_in != w->step_stamp) { // the motion before the step, for step_undo
			m->set_in = w->step_stamp;
			m->saved_v = m->v;
			m->saved_w = m->w;
			m->saved_target = m->has_target;
		}
		m->t0 = now;
		m->base2 = p2;
		m->base3 = p3;
		m->sv = v;
		m->sw = av;
		if (!m->changed) {
			m->changed = 1;
			w->changed[w->changed_count++] = s;
		}
		list_mover(w, s);
	} else if (!list_mover(w, s)) {
		return IMP_ERR_OUT_OF_MEMORY;
	}
	m->v = v;
	m->w = av;
	m->has_target = 0;
	m->serial++;
	return IMP_OK;
}

/// The velocity a body moves at in the step in progress: zero for a body
/// that does not move in it (at rest, or with a target and a step of dt 0).
static void step_velocity(const imp_world *w, int32_t s, imp_vec3 *v, imp_vec3 *av)
{
	const motion *m = &w->motions[s];
	bool moving = in_step(w, s);
	*v = moving ? m->sv : imp_vec3_make(0.0, 0.0, 0.0);
	*av = moving ? m->sw : imp_vec3_make(0.0, 0.0, 0.0);
}

imp_status imp_body_set_velocity2(imp_world *w, imp_body_id id, imp_vec2 linear, double angular)
{
	imp_status st;
	int32_t s = motion_slot(w, id, 2, &st);
	if (s < 0)
		return st;
	imp_vec3 v = imp_vec3_make(linear.x, linear.y, 0.0), av = imp_vec3_make(0.0, 0.0, angular);
	if ((st = vec3_status(v)) != IMP_OK || (st = vec3_status(av)) != IMP_OK)
		return st;
	return set_velocity(w, s, v, av);
}

imp_status imp_body_set_velocity3(imp_world *w, imp_body_id id, imp_vec3 linear, imp_vec3 angular)
{
	imp_status st;
	int32_t s = motion_slot(w, id, 3, &st);
	if (s < 0)
		return st;
	if ((st = vec3_status(linear)) != IMP_OK || (st = vec3_status(angular)) != IMP_OK)
		return st;
	return set_velocity(w, s, linear, angular);
}

/// The velocity in effect: the step's while the body moves in a step, else
/// the one set.
static void velocity_of(const imp_world *w, int32_t s, imp_vec3 *v, imp_vec3 *av)
{
	const motion *m = &w->motions[s];
	if (in_step(w, s)) {
		*v = m->sv;
		*av = m->sw;
	} else {
		*v = m->v;
		*av = m->w;
	}
}

/// The getters' common part: the velocity in effect for a body of a world
/// of dimension `dim`.
static imp_status get_velocity(const imp_world *w, imp_body_id id, int dim, bool any_out, imp_vec3 *v,
			       imp_vec3 *av)
{
	if (w == NULL || !any_out)
		return IMP_ERR_NULL_ARGUMENT;
	int32_t s = imp_world_slot_of(w, id);
	if (s < 0)
		return IMP_ERR_BAD_ID;
	if (w->dim != dim)
		return IMP_ERR_DIMENSION_MISMATCH;
	velocity_of(w, s, v, av);
	return IMP_OK;
}

imp_status imp_body_get_velocity2(const imp_world *w, imp_body_id id, imp_vec2 *linear, double *angular)
{
	imp_vec3 v, av;
	imp_status st = get_velocity(w, id, 2, linear != NULL || angular != NULL, &v, &av);
	if (st == IMP_OK && linear != NULL)
		*linear = imp_vec2_make(v.x, v.y);
	if (st == IMP_OK && angular != NULL)
		*angular = av.z;
	return st;
}

imp_status imp_body_get_velocity3(const imp_world *w, imp_body_id id, imp_vec3 *linear, imp_vec3 *angular)
{
	imp_vec3 v, av;
	imp_status st = get_velocity(w, id, 3, linear != NULL || angular != NULL, &v, &av);
	if (st == IMP_OK && linear != NULL)
		*linear = v;
	if (st == IMP_OK && angular != NULL)
		*angular = av;
	return st;
}

static imp_status set_target(imp_world *w, imp_body_id id, const imp_pose2 *p2, const imp_pose3 *p3)
{
	if (w != NULL && w->busy)
		return IMP_ERR_BUSY;
	imp_status st;
	int32_t s = motion_slot(w, id, p2 != NULL ? 2 : 3, &st);
	if (s < 0)
		return st;
	st = p2 != NULL ? imp_pose2_status(*p2) : imp_pose3_status(*p3);
	if (st != IMP_OK)
		return st;
	if (!list_mover(w, s))
		return IMP_ERR_OUT_OF_MEMORY;
	motion *m = &w->motions[s];
	if (p2 != NULL)
		m->target2 = *p2;
	else
		m->target3 = *p3;
	m->has_target = 1;
	m->serial++;
	return IMP_OK;
}

imp_status imp_body_set_target_pose2(imp_world *w, imp_body_id id, imp_pose2 target)
{
	return set_target(w, id, &target, NULL);
}

imp_status imp_body_set_target_pose3(imp_world *w, imp_body_id id, imp_pose3 target)
{
	return set_target(w, id, NULL, &target);
}

/// The velocity that takes a body from its pose to its target in dt > 0:
/// the straight segment, and the smaller turn.
static void target_velocity(const imp_world *w, int32_t s, double dt, imp_vec3 *v, imp_vec3 *av)
{
	const body *b = &w->bodies[s];
	const motion *m = &w->motions[s];
	if (w->dim == 2) {
		*v = imp_vec3_make((m->target2.p.x - b->pose2.p.x) / dt, (m->target2.p.y - b->pose2.p.y) / dt, 0.0);
		*av = imp_vec3_make(0.0, 0.0, imp_turn2(b->pose2.q, m->target2.q) / dt);
		return;
	}
	*v = imp_vec3_scale(1.0 / dt, imp_vec3_sub(m->target3.p, b->pose3.p));
	*av = imp_vec3_scale(1.0 / dt, imp_turn3(b->pose3.q, m->target3.q));
}

/* ---- the time-of-impact step ---- */

imp_step_opts imp_default_step_opts(void)
{
	imp_step_opts o;
	memset(&o, 0, sizeof o);
	o.max_pair_calls = 65536;
	return o;
}

static imp_status check_step_opts(const imp_step_opts *o)
{
	if (!isfinite(o->tolerance) || o->tolerance < 0.0 || o->tolerance > IMP_MAX_COORDINATE ||
	    o->max_pair_calls < 1 || !isfinite(o->resting_speed) || o->resting_speed < 0.0)
		return IMP_ERR_BAD_OPTIONS;
	return IMP_OK;
}

/// What the step keeps while it runs.
typedef struct step_ctx {
	double dt;
	double tolerance;     ///< the option: 0 automatic
	double resting;       ///< the option: 0 none
	int max_calls;
	imp_contact_fn *fn;
	void *user;
} step_ctx;

/// The contact tolerance of a pair: the option, or 1e-6 times the smaller
/// of the two bound diameters (the larger when one is a point).
static double pair_tolerance(const imp_world *w, const step_ctx *c, int32_t p, int32_t q)
{
	if (c->tolerance > 0.0)
		return c->tolerance;
	double ra = w->motions[p].reach, rb = w->motions[q].reach;
	double r = imp_min(ra, rb) > 0.0 ? imp_min(ra, rb) : imp_max(ra, rb);
	return r > 0.0 ? 2e-6 * r : 1e-300;
}

/// How far a moving body's swept box reaches beyond its shape, so that every
/// pair within its tolerance has overlapping boxes: the option, or the
/// largest automatic tolerance the body can have in a pair.
static double sweep_grow(const imp_world *w, const step_ctx *c, int32_t s)
{
	if (c->tolerance > 0.0)
		return c->tolerance;
	// A point's pairs take the other body's tolerance, which may be any
	// body's: the largest there is covers them all.
	double r = w->motions[s].reach > 0.0 ? w->motions[s].reach : w->max_reach;
	return 2e-6 * r + 1e-300;
}

/// The box of body s over step times [ta, tb] with its step motion,
/// enlarged by its margin and `grow`: exact for a body that only
/// translates (a convex set swept along a segment is boxed by its two
/// ends), else the box of the ball of its reach about its origin's path.
/// `rel` is the relative box at the base pose's rotation when known (NULL:
/// computed).
static imp_box swept_box(const imp_world *w, int32_t s, double ta, double tb, const imp_box *rel, double grow)
{
	const body *b = &w->bodies[s];
	const motion *m = &w->motions[s];
	imp_box box;
	if (vec3_is_zero(m->sw)) {
		imp_pose2 a2, b2;
		imp_pose3 a3, b3;
		pose_at(w, s, ta, &a2, &a3);
		pose_at(w, s, tb, &b2, &b3);
		imp_box r;
		if (rel != NULL || shape_rel_box(w, b->shape, &a2, &a3, &r) == IMP_OK) {
			if (rel != NULL)
				r = *rel;
			imp_box x, y;
			place_box(w, &r, &a2, &a3, &x);
			place_box(w, &r, &b2, &b3, &y);
			box = imp_box_union(&x, &y);
			for (int k = 0; k < w->dim; k++) {
				box.lo[k] -= grow;
				box.hi[k] += grow;
			}
			return box;
		}
	}
	// The origin moves on a segment: its ends need no rotation.
	imp_vec3 pa = position_at(w, s, ta), pb = position_at(w, s, tb);
	double e = m->reach + 0.5 * w->def.margin + grow;
	box = (imp_box){{imp_min(pa.x, pb.x) - e, imp_min(pa.y, pb.y) - e, imp_min(pa.z, pb.z) - e},
			{imp_max(pa.x, pb.x) + e, imp_max(pa.y, pb.y) + e, imp_max(pa.z, pb.z) + e}};
	if (w->dim == 2)
		box.lo[2] = box.hi[2] = 0.0;
	return box;
}

bool imp_world_closest(const imp_world *w, const imp_shape *a, const imp_pose2 *a2, const imp_pose3 *a3,
		       const imp_shape *b, const imp_pose2 *b2, const imp_pose3 *b3, imp_simplex_cache *cache,
		       const imp_query_options *o, imp_query_result *r, imp_query_state *state)
{
	imp_query_state st;
	if (w->dim == 2) {
		imp_closest2_result c;
		if (imp_closest2_ex(a, *a2, b, *b2, cache, o, &c) != IMP_OK || c.state == IMP_STATE_DEGENERATE ||
		    !isfinite(c.distance))
			return false;
		r->distance = c.distance;
		r->point = imp_vec3_make(c.point_a.x, c.point_a.y, 0.0);
		r->body_point = imp_vec3_make(c.point_b.x, c.point_b.y, 0.0);
		r->normal = imp_vec3_make(c.normal.x, c.normal.y, 0.0);
		st = c.state;
	} else {
		imp_closest3_result c;
		if (imp_closest3_ex(a, *a3, b, *b3, cache, o, &c) != IMP_OK || c.state == IMP_STATE_DEGENERATE ||
		    !isfinite(c.distance))
			return false;
		r->distance = c.distance;
		r->point = c.point_a;
		r->body_point = c.point_b;
		r->normal = c.normal;
		st = c.state;
	}
	if (state != NULL)
		*state = st;
	return true;
}

/// One look at a pair at step time t.
typedef struct probe {
	double distance;
	double least;        ///< the least distance over a non-convex pair's pairs of children (else distance)
	int32_t child[2];    ///< a non-convex pair: the children of the answer (-1: a convex side)
	imp_vec3 point_a, point_b, normal;
	double approach;     ///< (v_a - v_b) . n: the rate at which the translations close the gap along n
	double spin;         ///< |w_a x n| r_a + |w_b x n| r_b (r: core reach): the most the turns can add
	                     ///< to it (a turn about n does not move a shape along n)
	double normal_speed; ///< relative normal velocity of the witness points
} probe;

static imp_vec3 point_velocity(imp_vec3 v, imp_vec3 av, imp_vec3 origin, imp_vec3 p)
{
	return imp_vec3_add(v, imp_vec3_cross(av, imp_vec3_sub(p, origin)));
}

/// imp_world_closest for a pair with a non-convex body in the step: the
/// contact imp_composite_contact2/3 picks among the pairs of children
/// within tol.
static bool composite_contact(const imp_world *w, const imp_shape *a, const imp_pose2 *a2, const imp_pose3 *a3,
			      imp_vec3 va, imp_vec3 wa, const imp_shape *b, const imp_pose2 *b2, const imp_pose3 *b3,
			      imp_vec3 vb, imp_vec3 wb, double tol, imp_simplex_cache *cache, imp_query_result *r,
			      double *least, int32_t *child, int *pairs)
{
	if (w->dim == 2) {
		imp_closest2_result c;
		if (imp_composite_contact2(a, *a2, imp_vec2_make(va.x, va.y), wa.z, b, *b2, imp_vec2_make(vb.x, vb.y), wb.z,
					   tol, cache, &c, least, pairs) != IMP_OK ||
		    c.state == IMP_STATE_DEGENERATE || !isfinite(c.distance))
			return false;
		r->distance = c.distance;
		r->point = imp_vec3_make(c.point_a.x, c.point_a.y, 0.0);
		r->body_point = imp_vec3_make(c.point_b.x, c.point_b.y, 0.0);
		r->normal = imp_vec3_make(c.normal.x, c.normal.y, 0.0);
		child[0] = c.child_a;
		child[1] = c.child_b;
		return true;
	}
	imp_closest3_result c;
	if (imp_composite_contact3(a, *a3, va, wa, b, *b3, vb, wb, tol, cache, &c, least, pairs) != IMP_OK ||
	    c.state == IMP_STATE_DEGENERATE || !isfinite(c.distance))
		return false;
	r->distance = c.distance;
	r->point = c.point_a;
	r->body_point = c.point_b;
	r->normal = c.normal;
	child[0] = c.child_a;
	child[1] = c.child_b;
	return true;
}

/// Counts n more narrow-phase calls (pairs of children answered) against a
/// pair's max_pair_calls and in the step's statistics: a look at a pair
/// with a non-convex body costs one per pair of children its queries
/// answer, so that the cap bounds the step's work on such a pair as on a
/// convex one (a long chain turning among bodies, its far end fast enough
/// that each look advances by a sliver of the step: fuzz finding,
/// test_step_cap_counts_children).
static void charge(imp_world *w, pair *pr, int n)
{
	if (n <= 0)
		return;
	pr->calls = (uint32_t)n <= UINT32_MAX - pr->calls ? pr->calls + (uint32_t)n : UINT32_MAX;
	w->step_stats.narrow_calls = n <= INT_MAX - w->step_stats.narrow_calls ? w->step_stats.narrow_calls + n : INT_MAX;
	if (pr->calls > (uint32_t)w->step_stats.most_pair_calls)
		w->step_stats.most_pair_calls = pr->calls <= INT_MAX ? (int)pr->calls : INT_MAX;
}

/// The narrow phase on a pair at step time t (Level 3, with the pair's
/// simplex cache). False when the query failed (a user support that is not
/// finite).
static bool probe_pair(imp_world *w, pair *pr, double t, double tol, probe *out)
{
	int32_t sa = key_lo(pr->key), sb = key_hi(pr->key);
	const body *a = &w->bodies[sa], *b = &w->bodies[sb];
	imp_pose2 a2, b2;
	imp_pose3 a3, b3;
	pose_at(w, sa, t, &a2, &a3);
	pose_at(w, sb, t, &b2, &b3);
	w->step_stats.narrow_calls++;
	imp_vec3 va, wa, vb, wb;
	step_velocity(w, sa, &va, &wa);
	step_velocity(w, sb, &vb, &wb);
	imp_query_result r;
	if (imp_shape_is_composite(a->shape) || imp_shape_is_composite(b->shape)) {
		// A non-convex pair in contact with several pairs of children
		// (a body in a corner of a level) reports the one it moves into.
		int pairs = 0;
		bool ok = composite_contact(w, a->shape, &a2, &a3, va, wa, b->shape, &b2, &b3, vb, wb, tol, &pr->cache,
					    &r, &out->least, out->child, &pairs);
		charge(w, pr, pairs - 1); // the look counted one
		if (!ok)
			return false;
	} else if (!imp_world_closest(w, a->shape, &a2, &a3, b->shape, &b2, &b3, &pr->cache, NULL, &r, NULL)) {
		return false;
	} else {
		out->least = r.distance;
		out->child[0] = out->child[1] = -1;
	}
	out->distance = r.distance;
	out->point_a = r.point;
	out->point_b = r.body_point;
	out->normal = r.normal;
	// A pair with a non-convex body is scheduled by composite_advance, not
	// by these: another pair of children may close along its own normal.
	out->approach = imp_vec3_dot(imp_vec3_sub(va, vb), out->normal);
	out->spin = imp_vec3_length(imp_vec3_cross(wa, out->normal)) * w->motions[sa].core_reach +
		    imp_vec3_length(imp_vec3_cross(wb, out->normal)) * w->motions[sb].core_reach;
	imp_vec3 pva = point_velocity(va, wa, position_of(w, &a2, &a3), out->point_a);
	imp_vec3 pvb = point_velocity(vb, wb, position_of(w, &b2, &b3), out->point_b);
	out->normal_speed = imp_vec3_dot(imp_vec3_sub(pvb, pva), out->normal);
	return true;
}

/// Puts a pair in the heap at step time t (or moves it there if queued).
static void heap_at(imp_world *w, pair *pr, double t)
{
	if (pr->queued) {
		imp_heap_update(&w->queue, pr->handle, t);
		return;
	}
	// Room was reserved for every pair of the world; new pairs made by a
	// callback's motion reserve theirs in reschedule(). Equal times come
	// out in the order of the pairs' body slots, whatever the broad phase.
	imp_status st = imp_heap_push(&w->queue, t, pr->key, pr->slot, &pr->handle);
	assert(st == IMP_OK);
	(void)st;
	pr->queued = 1;
	if (imp_heap_count(&w->queue) > w->step_stats.queue_peak)
		w->step_stats.queue_peak = imp_heap_count(&w->queue);
}

/// Queues a pair at step time t. A pair queued again at the time being
/// processed (a callback changed a motion, or a look found it must be looked
/// at again at once) waits for the next sweep at that time, after every pair
/// now due there: simultaneous contacts go round in sweeps (a column resting
/// on a floor is seen bottom to top, then again), never depth first between
/// two of them.
static void queue_at(imp_world *w, pair *pr, double t)
{
	if (t <= w->queue_now) {
		if (pr->queued && imp_heap_key(&w->queue, pr->handle) <= t)
			return; // due in this sweep
		if (pr->queued) {
			imp_heap_remove(&w->queue, pr->handle);
			pr->queued = 0;
		}
		if (pr->deferred == 0)
			w->deferred[w->deferred_count++] = pr;
		pr->deferred = 1;
		return;
	}
	if (pr->deferred == 1)
		pr->deferred = 2;
	heap_at(w, pr, t);
}

/// Takes a pair out of the queue and the next sweep.
static void unqueue(imp_world *w, pair *pr)
{
	if (pr->queued) {
		imp_heap_remove(&w->queue, pr->handle);
		pr->queued = 0;
	}
	if (pr->deferred == 1)
		pr->deferred = 2;
}

/// The next sweep at queue_now: the deferred pairs into the heap there.
static void next_sweep(imp_world *w)
{
	bool any = false;
	for (int32_t i = 0; i < w->deferred_count; i++) {
		pair *pr = w->deferred[i];
		if (pr->deferred == 1) {
			heap_at(w, pr, w->queue_now);
			any = true;
		}
		pr->deferred = 0;
	}
	w->deferred_count = 0;
	w->step_stats.sweeps += any;
}

/// Records a bound: no contact within the tolerance tol before step time t,
/// while the two bodies' motions hold. Returns t.
static double record_bound(imp_world *w, pair *pr, double t, double tol)
{
	pr->toi = w->time + t;
	pr->toi_tol = tol;
	pr->toi_ok = 1;
	pr->toi_serial[0] = w->motions[key_lo(pr->key)].serial;
	pr->toi_serial[1] = w->motions[key_hi(pr->key)].serial;
	return t;
}

/// Records a bound and queues the pair there when it falls within the step.
static void schedule(imp_world *w, pair *pr, double t, double tol)
{
	if (record_bound(w, pr, t, tol) <= w->step_dt)
		queue_at(w, pr, t);
}

/// A bound found without the narrow phase: the first step time from t on
/// at which the balls of the two bodies' reach about their origins (which
/// hold them however they turn) come within the tolerance, in closed form
/// (+inf: never, with these motions).
static double ball_bound(const imp_world *w, const pair *pr, double t, double tol)
{
	int32_t sa = key_lo(pr->key), sb = key_hi(pr->key);
	imp_vec3 va, wa, vb, wb, pa = position_at(w, sa, t), pb = position_at(w, sb, t);
	step_velocity(w, sa, &va, &wa);
	step_velocity(w, sb, &vb, &wb);
	double closest;
	double r = w->motions[sa].reach + w->motions[sb].reach + tol;
	return t + imp_ball_sweep(imp_vec3_sub(pb, pa), imp_vec3_sub(vb, va), r, INFINITY, &closest);
}

/// Gives a pair of the step the key t: queued there when t falls within the
/// step, else out of the queue with t kept as its bound.
static void rekey(imp_world *w, pair *pr, double t, double tol)
{
	if (t <= w->step_dt) {
		queue_at(w, pr, t);
		return;
	}
	unqueue(w, pr);
	record_bound(w, pr, t, tol);
}

/// For a pair with a non-convex body, after its look at t: the first time
/// some pair of children could reach its level, each at the rate along its
/// own normal (imp_composite_advance2/3 with the tolerance: a pair in
/// contact by schedule_contact's rule, another by schedule_advance's;
/// docs/toi.md); the whole pair's rate bounds it when that query fails.
static double composite_advance(imp_world *w, pair *pr, double t, double tol)
{
	int32_t sa = key_lo(pr->key), sb = key_hi(pr->key);
	const body *a = &w->bodies[sa], *b = &w->bodies[sb];
	imp_pose2 a2, b2;
	imp_pose3 a3, b3;
	pose_at(w, sa, t, &a2, &a3);
	pose_at(w, sb, t, &b2, &b3);
	imp_vec3 va, wa, vb, wb;
	step_velocity(w, sa, &va, &wa);
	step_velocity(w, sb, &vb, &wb);
	double spin = imp_vec3_length(wa) * w->motions[sa].core_reach + imp_vec3_length(wb) * w->motions[sb].core_reach;
	imp_vec3 dv = imp_vec3_sub(va, vb);
	int pairs = 0;
	double dt = w->dim == 2 ? imp_composite_advance2(a->shape, a2, b->shape, b2, imp_vec2_make(dv.x, dv.y), spin, 0.0,
							 tol, &pairs)
				: imp_composite_advance3(a->shape, a3, b->shape, b3, dv, spin, 0.0, tol, &pairs);
	charge(w, pr, pairs > 1 ? pairs : 1);
	if (isnan(dt)) {
		double rate = imp_vec3_length(dv) + spin;
		dt = rate > 0.0 ? 0.5 * tol / rate : INFINITY;
	}
	return dt;
}

static bool pair_is_composite(const imp_world *w, const pair *pr)
{
	return imp_shape_is_composite(w->bodies[key_lo(pr->key)].shape) ||
	       imp_shape_is_composite(w->bodies[key_hi(pr->key)].shape);
}

/// A pair within the tolerance, after its look at t: looked at again when
/// its distance may have fallen by half the tolerance (to below half the
/// tolerance under the contact, or by a turn: its far side can come down),
/// or when its separation along the normal may have grown to twice the
/// tolerance (then a contact is a new one). A pair whose distance nothing
/// makes fall nor grow is left for the step: only a change of motion, which
/// queues it again, can make it approach. A pair overlapping by more than
/// the tolerance is looked at again, while it approaches, when it may have
/// sunk half the tolerance below its last report (judge), and not for its
/// separation: it is the user's to separate.
static void schedule_contact(imp_world *w, pair *pr, const probe *p, double t, double tol, bool approach)
{
	// The pair was just taken from the queue: it is in neither the heap
	// nor the next sweep.
	pr->toi_ok = 0; // looked at afresh in the next step
	if (pair_is_composite(w, pr)) {
		// Each pair of children by the rule below for a pair in contact,
		// and one farther than the tolerance by schedule_advance's (a new
		// contact of another pair of children is to be seen when it comes
		// within half the tolerance, as another pair of bodies would be):
		// the first of those times (composite_advance). Not for a
		// separation: the next look sees it.
		(void)approach;
		double next = t + composite_advance(w, pr, t, tol);
		if (next <= w->step_dt)
			queue_at(w, pr, imp_max(next, t));
		return;
	}
	double rate = p->approach + p->spin, next = INFINITY;
	if (p->distance < -tol && approach && rate > 0.0)
		next = t + imp_max(p->distance - pr->rep_distance + 0.5 * tol, 0.5 * tol) / rate;
	else if (p->distance >= -tol && rate > 0.0)
		next = t + imp_max(p->distance + 0.5 * tol, 0.5 * tol) / rate;
	else if (p->distance >= -tol && rate < 0.0)
		next = t + (2.0 * tol - p->distance) / -rate;
	if (next <= w->step_dt)
		queue_at(w, pr, imp_max(next, t));
}

/// A pair apart by more than the tolerance: conservative advancement
/// (docs/toi.md) to where the gap could first be half the tolerance.
static void schedule_advance(imp_world *w, pair *pr, const probe *p, double t, double tol)
{
	if (pair_is_composite(w, pr)) {
		schedule(w, pr, t + composite_advance(w, pr, t, tol), tol);
		return;
	}
	double rate = p->approach + p->spin;
	schedule(w, pr, rate > 0.0 ? t + (p->distance - 0.5 * tol) / rate : INFINITY, tol);
}

/// Makes pr one of the step's pairs (its slot in the queued array, its
/// call count); room reserved by the caller. A pair reported in an earlier
/// step is looked at afresh from this step's start (so a contact that lasts
/// is reported once a step): true if so.
static bool enlist(imp_world *w, pair *pr)
{
	bool was_contact = pr->contact;
	pr->contact = 0;
	pr->step = w->step_stamp;
	pr->calls = 0;
	pr->queued = 0;
	pr->deferred = 0;
	pr->capped = 0;
	pr->rep_approach = 0;
	pr->slot = w->queued_count;
	w->queued[w->queued_count++] = pr;
	return was_contact;
}

/// Whether the two bodies of a pair have the motions they had when the
/// serials were taken.
static bool same_motions(const imp_world *w, const pair *pr, const uint32_t serial[2])
{
	return serial[0] == w->motions[key_lo(pr->key)].serial && serial[1] == w->motions[key_hi(pr->key)].serial;
}

/// Whether a pair's bound still holds for the tolerance tol: found with the
/// motions the bodies have now, for a tolerance no smaller.
static bool bound_holds(const imp_world *w, const pair *pr, double tol)
{
	return pr->toi_ok && tol <= pr->toi_tol && same_motions(w, pr, pr->toi_serial);
}

/// After the callback: each body whose motion it changed gets its box swept
/// over the rest of the step (the broad phase told when it leaves its
/// enlarged box) and each of its pairs is looked at again from time t.
static imp_status reschedule(imp_world *w, const step_ctx *c, double t)
{
	for (int32_t i = 0; i < w->changed_count; i++) {
		int32_t s = w->changed[i];
		body *b = &w->bodies[s];
		w->motions[s].changed = 0;
		imp_box rest = swept_box(w, s, t, c->dt, NULL, sweep_grow(w, c, s));
		imp_box grown = imp_box_union(&b->tight, &rest);
		set_tight(w, s, &grown);
		if (b->in_broad && !box_contains_all(&b->fat, &b->tight)) {
			w->oom = false;
			b->fat = fatten(w, b);
			imp_status st = imp_broad_move(w->broad, s, &b->fat);
			w->step_stats.broad_moves++;
			if (st != IMP_OK || w->oom) {
				// Out of the broad phase: the next update inserts it again
				// (room in the moved list was made when the step began).
				imp_broad_remove(w->broad, s);
				b->in_broad = 0;
				mark_moved(w, s);
				return IMP_ERR_OUT_OF_MEMORY;
			}
		}
		if (!imp_grow(&w->alloc, (void **)&w->queued, &w->queued_cap, w->queued_count + w->pair_count,
			      sizeof *w->queued) ||
		    !imp_grow(&w->alloc, (void **)&w->deferred, &w->deferred_cap, w->queued_count + w->pair_count,
			      sizeof *w->deferred) ||
		    imp_heap_reserve(&w->queue, w->pair_count) != IMP_OK)
			return IMP_ERR_OUT_OF_MEMORY;
		for (pair *pr = b->pairs; pr != NULL; pr = list_next(pr, s)) {
			if (pr->step != w->step_stamp)
				enlist(w, pr);
			if (pr->capped)
				continue; // left for the step, reported at its end
			double tol = pair_tolerance(w, c, key_lo(pr->key), key_hi(pr->key));
			rekey(w, pr, ball_bound(w, pr, t, tol), tol);
			w->step_stats.rescheduled++;
		}
	}
	w->changed_count = 0;
	return IMP_OK;
}

/// A contact: stored, given to the callback, and the motions it changed
/// taken into account.
static imp_status report(imp_world *w, const step_ctx *c, pair *pr, const probe *p, double t, bool capped)
{
	if (w->contact_count == w->contact_cap &&
	    !imp_grow(&w->alloc, (void **)&w->contacts, &w->contact_cap, w->contact_count + 1, sizeof *w->contacts))
		return IMP_ERR_OUT_OF_MEMORY;
	imp_contact_event *e = &w->contacts[w->contact_count++];
	memset(e, 0, sizeof *e); // the padding too: events compare bit for bit
	e->a = imp_world_id_of(w, key_lo(pr->key));
	e->b = imp_world_id_of(w, key_hi(pr->key));
	e->t = t;
	e->time = w->time + t;
	e->distance = p->distance;
	e->point_a = p->point_a;
	e->point_b = p->point_b;
	e->normal = p->normal;
	e->normal_speed = p->normal_speed;
	e->capped = capped;
	w->step_stats.events++;
	if (c->fn == NULL)
		return IMP_OK;
	w->busy = true;
	w->in_step = true;
	w->step_now = t;
	c->fn(e, c->user);
	w->in_step = false;
	w->busy = false;
	return w->changed_count > 0 ? reschedule(w, c, t) : IMP_OK;
}

/// What a look at a pair within the tolerance leads to.
typedef enum verdict {
	WATCH,    ///< not reported; queued again (schedule_contact)
	REPORT,   ///< reported, then queued again
	DECLINED, ///< an approach reported and left as it was: left until a motion changes
} verdict;

/// A look at a pair at step time t found it within the tolerance tol:
/// whether to report it. The first time in the step it is (a new contact, or
/// a resting one seen at the step's start), always. After that, when it
/// approaches fast enough to overlap by more than the tolerance at the
/// step's end if it kept that speed (or faster than the resting speed, when
/// the option gives one) and it is not
/// the approach it was last reported with: a callback has changed either
/// body's motion since, or the last report was not of an approach. An
/// approach reported and left as it was is the user's choice: not reported
/// again until a motion changes. A pair overlapping by more than the
/// tolerance (it began the step so, or was let through) is reported again
/// only once it has also sunk half the tolerance deeper than at its last
/// report: its approaches cannot take turns with a neighbour's without end
/// at one time (a body stuck in another and reflected off a third), and it
/// is seen again as long as it is pushed deeper.
static verdict judge(const imp_world *w, const step_ctx *c, const pair *pr, const probe *p, double t, double tol,
		     bool *approach)
{
	double vn = p->normal_speed;
	// In a step of no time (an Impulse pass without motion) every approach.
	*approach = (c->resting > 0.0 && vn < -c->resting) ||
		    (vn < 0.0 && (c->dt == 0.0 || p->distance + vn * (c->dt - t) < -tol));
	if (!pr->contact)
		return REPORT;
	if (!*approach)
		return WATCH;
	// A non-convex pair's contact with other children than its last
	// report's is another contact (as another pair of bodies would be).
	if (p->child[0] != pr->rep_child[0] || p->child[1] != pr->rep_child[1])
		return REPORT;
	if (pr->rep_approach && same_motions(w, pr, pr->rep_serial))
		return DECLINED;
	return p->distance >= -tol || p->distance < pr->rep_distance - 0.5 * tol ? REPORT : WATCH;
}

/// The most contacts one look reports on a pair with a non-convex body.
#define COMPOSITE_REPORTS 8

/// After a look reported an approach of a pair with a non-convex body and
/// the callback changed a motion: the pair again at once, while another
/// pair of its children within the tolerance approaches (imp_composite_
/// contact2/3 picks the fastest), up to COMPOSITE_REPORTS contacts in all.
/// A body resting in a valley of a level touches two of its segments: as
/// two bodies, each would be a pair reported in the same sweep; as one, the
/// pair answers one of them a look (simulation2d's wavy floor: one look a
/// report left 1 step of 420 ending with an overlap 1.4 times the
/// tolerance; this, none).
static imp_status composite_reports(imp_world *w, const step_ctx *c, pair *pr, double t, double tol)
{
	for (int k = 1; k < COMPOSITE_REPORTS && !same_motions(w, pr, pr->rep_serial); ++k) {
		probe p;
		pr->calls++;
		if (!probe_pair(w, pr, t, tol, &p) || p.distance > tol)
			return IMP_OK;
		bool approach;
		if (judge(w, c, pr, &p, t, tol, &approach) != REPORT || !approach)
			return IMP_OK;
		pr->rep_distance = p.distance;
		pr->rep_child[0] = p.child[0];
		pr->rep_child[1] = p.child[1];
		pr->rep_serial[0] = w->motions[key_lo(pr->key)].serial;
		pr->rep_serial[1] = w->motions[key_hi(pr->key)].serial;
		schedule_contact(w, pr, &p, t, tol, approach);
		imp_status st = report(w, c, pr, &p, t, false);
		if (st != IMP_OK)
			return st;
	}
	return IMP_OK;
}

/// Looks at a pair popped at step time t: a contact reported, or the pair
/// queued again.
static imp_status look(imp_world *w, const step_ctx *c, pair *pr, double t)
{
	pr->calls++;
	if ((int)pr->calls > w->step_stats.most_pair_calls)
		w->step_stats.most_pair_calls = (int)pr->calls;
	probe p;
	double tol = pair_tolerance(w, c, key_lo(pr->key), key_hi(pr->key));
	if (!probe_pair(w, pr, t, tol, &p)) {
		pr->toi_ok = 0; // a user support failed: looked at again next step
		return IMP_OK;
	}
	if (p.distance > tol) {
		pr->contact = 0;
		schedule_advance(w, pr, &p, t, tol);
		return IMP_OK;
	}
	bool approach;
	verdict v = judge(w, c, pr, &p, t, tol, &approach);
	if (v == DECLINED) {
		pr->toi_ok = 0; // out of the queue since it was taken, until a motion changes
		return IMP_OK;
	}
	pr->contact = 1;
	if (v == REPORT) {
		pr->rep_distance = p.distance;
		pr->rep_child[0] = p.child[0];
		pr->rep_child[1] = p.child[1];
	}
	schedule_contact(w, pr, &p, t, tol, approach);
	if (v != REPORT)
		return IMP_OK;
	pr->rep_approach = approach;
	pr->rep_serial[0] = w->motions[key_lo(pr->key)].serial;
	pr->rep_serial[1] = w->motions[key_hi(pr->key)].serial;
	imp_status st = report(w, c, pr, &p, t, false);
	if (approach && same_motions(w, pr, pr->rep_serial)) {
		// The callback left the approach as it was: declined now rather
		// than at the next look.
		unqueue(w, pr);
		pr->toi_ok = 0;
	}
	if (st == IMP_OK && approach && pair_is_composite(w, pr))
		st = composite_reports(w, c, pr, t, tol);
	return st;
}

/// The queue processed in time order to the end of the step: the pairs due
/// at one time in sweeps (those queued again at that time wait for the
/// next), each pair at most max_calls looks.
static imp_status run_queue(imp_world *w, const step_ctx *c)
{
	for (;;) {
		imp_heap_entry e;
		bool any = imp_heap_peek(&w->queue, &e);
		if (w->deferred_count > 0 && (!any || e.key > w->queue_now)) {
			next_sweep(w);
			continue;
		}
		if (!any || e.key > c->dt)
			return IMP_OK;
		imp_heap_pop(&w->queue, &e);
		pair *pr = w->queued[e.value];
		pr->queued = 0;
		w->queue_now = e.key;
		if (pr->calls >= (uint32_t)c->max_calls) {
			if (!pr->capped)
				w->step_stats.capped_pairs++;
			pr->capped = 1;
			pr->toi_ok = 0;
			continue;
		}
		imp_status st = look(w, c, pr, e.key);
		if (st != IMP_OK)
			return st;
	}
}

static int pair_ptr_cmp(const void *x, const void *y)
{
	uint64_t a = (*(pair *const *)x)->key, b = (*(pair *const *)y)->key;
	return (a > b) - (a < b);
}

/// The pairs that reached the cap, looked at and reported at the step's
/// end (in the order of their body slots), so that a pair the step gave up
/// on is never silently left: the callback sees where it stands and may
/// respond, and whatever its response makes due at the end is processed
/// (which may cap more pairs: reported in turn).
static imp_status report_capped(imp_world *w, const step_ctx *c)
{
	for (;;) {
		int32_t n = 0;
		if (w->step_stats.capped_pairs == 0)
			return IMP_OK;
		if (!imp_grow(&w->alloc, (void **)&w->capped, &w->capped_cap, w->queued_count, sizeof *w->capped))
			return IMP_ERR_OUT_OF_MEMORY;
		for (int32_t i = 0; i < w->queued_count; i++)
			if (w->queued[i]->capped == 1)
				w->capped[n++] = w->queued[i];
		if (n == 0)
			return IMP_OK;
		qsort(w->capped, (size_t)n, sizeof *w->capped, pair_ptr_cmp);
		w->queue_now = c->dt;
		for (int32_t i = 0; i < n; i++) {
			pair *pr = w->capped[i];
			pr->capped = 2;
			probe p;
			if (!probe_pair(w, pr, c->dt, pair_tolerance(w, c, key_lo(pr->key), key_hi(pr->key)), &p))
				continue;
			imp_status st = report(w, c, pr, &p, c->dt, true);
			if (st != IMP_OK)
				return st;
		}
		imp_status st = run_queue(w, c);
		if (st != IMP_OK)
			return st;
	}
}

/// Room for everything the step can need apart from new pairs and
/// contacts: every body may move, every pair be queued.
static bool step_reserve(imp_world *w)
{
	int32_t n = w->body_high;
	return imp_grow(&w->alloc, (void **)&w->step_bodies, &w->step_body_cap, n, sizeof *w->step_bodies) &&
	       imp_grow(&w->alloc, (void **)&w->changed, &w->changed_cap, n, sizeof *w->changed) &&
	       imp_grow(&w->alloc, (void **)&w->movers, &w->mover_cap, n, sizeof *w->movers) &&
	       imp_grow(&w->alloc, (void **)&w->moved, &w->moved_cap, w->moved_count + n, sizeof *w->moved) &&
	       imp_grow(&w->alloc, (void **)&w->queued, &w->queued_cap, w->pair_count, sizeof *w->queued) &&
	       imp_grow(&w->alloc, (void **)&w->deferred, &w->deferred_cap, w->pair_count, sizeof *w->deferred) &&
	       imp_heap_reserve(&w->queue, w->pair_count) == IMP_OK;
}

/// The movers list pruned of bodies without a motion, and each left checked
/// for the step: its end position within range.
static imp_status step_check(imp_world *w, double dt)
{
	int32_t kept = 0;
	imp_status result = IMP_OK;
	for (int32_t i = 0; i < w->mover_count; i++) {
		int32_t s = w->movers[i];
		motion *m = &w->motions[s];
		const body *b = &w->bodies[s];
		if (!b->alive || b->type == IMP_BODY_STATIC || !has_motion(m)) {
			m->listed = 0;
			continue;
		}
		w->movers[kept++] = s;
		if (result != IMP_OK)
			continue;
		if (m->has_target) {
			// The target is within range; the velocity that reaches it in
			// dt must be too, as a velocity set is (a tiny dt gives a huge one).
			imp_vec3 v, av;
			if (dt > 0.0)
				target_velocity(w, s, dt, &v, &av);
			if (dt > 0.0 && (vec3_status(v) != IMP_OK || vec3_status(av) != IMP_OK))
				result = IMP_ERR_OUT_OF_RANGE;
			continue;
		}
		if (!path_in_range(position_of(w, &b->pose2, &b->pose3), m->v, dt) || !(m->reach <= IMP_MAX_COORDINATE))
			result = IMP_ERR_OUT_OF_RANGE;
	}
	w->mover_count = kept;
	return result;
}

/// The step's start: each moving body's step motion (a target turned into
/// the velocity that reaches it) and its box swept over the step in place
/// of its box, for the broad phase.
static void step_begin(imp_world *w, const step_ctx *c)
{
	w->step_body_count = 0;
	for (int32_t i = 0; i < w->mover_count; i++) {
		int32_t s = w->movers[i];
		motion *m = &w->motions[s];
		body *b = &w->bodies[s];
		if (m->has_target && c->dt == 0.0)
			continue; // a target waits for a step that has time
		m->step = w->step_stamp;
		m->started = 0;
		m->changed = 0;
		m->t0 = 0.0;
		m->base2 = b->pose2;
		m->base3 = b->pose3;
		if (m->has_target) {
			target_velocity(w, s, c->dt, &m->sv, &m->sw);
			m->serial++; // a new velocity each step
		} else {
			m->sv = m->v;
			m->sw = m->w;
		}
		w->step_bodies[w->step_body_count++] = s;
		imp_box swept = swept_box(w, s, 0.0, c->dt, &b->rel, sweep_grow(w, c, s));
		set_tight(w, s, &swept);
		b->inside = box_contains_all(&b->fat, &b->tight);
		mark_moved(w, s);
	}
}

/// Puts back each moving body's box at its pose (the step failed: the poses
/// are the ones it began with) and the motions the callback set: the world
/// as it was before the step.
static void step_undo(imp_world *w)
{
	for (int32_t i = 0; i < w->step_body_count; i++) {
		int32_t s = w->step_bodies[i];
		body *b = &w->bodies[s];
		motion *m = &w->motions[s];
		if (m->set_in == w->step_stamp) {
			m->v = m->saved_v;
			m->w = m->saved_w;
			m->has_target = m->saved_target;
			m->set_in = 0;
		}
		imp_box placed;
		place_box(w, &b->rel, &b->pose2, &b->pose3, &placed);
		set_tight(w, s, &placed);
		b->inside = box_contains_all(&b->fat, &b->tight);
		m->step = 0;
		m->changed = 0;
		m->serial++; // bounds found in the failed step do not hold
	}
	w->changed_count = 0;
	w->step_body_count = 0;
	w->contact_count = 0;
	imp_heap_empty(&w->queue);
}

/// The step's end: each moving body at its pose at dt (a target exactly),
/// its box there, marked moved for the next update.
static void step_commit(imp_world *w, const step_ctx *c)
{
	for (int32_t i = 0; i < w->step_body_count; i++) {
		int32_t s = w->step_bodies[i];
		body *b = &w->bodies[s];
		motion *m = &w->motions[s];
		imp_pose2 p2;
		imp_pose3 p3;
		bool target = m->has_target; // a velocity set in the callback drops it
		if (target) {
			p2 = m->target2;
			p3 = m->target3;
			m->has_target = 0;
			m->v = m->w = imp_vec3_make(0.0, 0.0, 0.0);
			m->serial++;
		} else {
			pose_at(w, s, c->dt, &p2, &p3);
		}
		// Turned: the rotation is not the one b->rel was made for (the
		// step's start), bit for bit. Not "the step's angular velocity is
		// not 0, or a target": a callback that stopped a turning body at a
		// contact (imp_body_set_velocity2 inside the step) left sw at 0
		// with the body turned up to then, and its box stayed that of the
		// old rotation, so the next update missed pairs it touched (fuzz
		// findings 34, 38 and 40). A pose that did not turn keeps its
		// rotation exactly (imp_motion2_at, imp_motion3_at).
		bool turned = !same_rotation(w, b, &p2, &p3);
		// A computed rotation renormalised, so that rounding cannot pile
		// up over many steps; a target is the user's, bit for bit, and so
		// is a rotation the step did not turn.
		if (turned && !target) {
			if (w->dim == 2) {
				double l = sqrt(p2.q.c * p2.q.c + p2.q.s * p2.q.s);
				p2.q.c /= l;
				p2.q.s /= l;
			} else {
				p3.q = imp_quat_normalize(p3.q);
			}
		}
		if (w->dim == 2)
			b->pose2 = p2;
		else
			b->pose3 = p3;
		m->step = 0;
		imp_box rel;
		if (turned && shape_rel_box(w, b->shape, &b->pose2, &b->pose3, &rel) == IMP_OK)
			b->rel = rel;
		else if (turned) // a user support that failed: the ball of the reach
			b->rel = (imp_box){{-m->reach, -m->reach, w->dim == 3 ? -m->reach : 0.0},
					   {m->reach, m->reach, w->dim == 3 ? m->reach : 0.0}};
		imp_box placed;
		place_box(w, &b->rel, &b->pose2, &b->pose3, &placed);
		set_tight(w, s, &placed);
		b->inside = box_contains_all(&b->fat, &b->tight);
		mark_changed(w, s);
	}
	w->step_body_count = 0;
}

/// The pairs of the moving bodies whose swept boxes overlap, queued at the
/// bound they keep from earlier steps (skipped when it lies past the step)
/// or at the step's start.
static void step_candidates(imp_world *w, const step_ctx *c)
{
	for (int32_t i = 0; i < w->step_body_count; i++) {
		int32_t s = w->step_bodies[i];
		pair *next;
		for (pair *pr = w->bodies[s].pairs; pr != NULL; pr = next) {
			next = list_next(pr, s);
			if (pr->step == w->step_stamp)
				continue;
			if (pr->hot->doomed) {
				// Gone from the broad phase: deleted here unless the next
				// update owes it an end event, so that a world that is only
				// stepped does not keep the pairs its bodies left behind.
				if (!pr->hot->touching)
					pair_delete(w, pr);
				continue;
			}
			bool was_contact = enlist(w, pr);
			const body *a = &w->bodies[key_lo(pr->key)], *b = &w->bodies[key_hi(pr->key)];
			if (!box_overlap_all(&a->tight, &b->tight))
				continue;
			w->step_stats.candidates++;
			// The bound kept from earlier steps, or a new one from the
			// balls (kept for the steps to come when it is past this one).
			double tol = pair_tolerance(w, c, key_lo(pr->key), key_hi(pr->key));
			double t = !was_contact && bound_holds(w, pr, tol)
					   ? imp_max(pr->toi - w->time, 0.0)
					   : record_bound(w, pr, ball_bound(w, pr, 0.0, tol), tol);
			if (t > c->dt)
				continue;
			queue_at(w, pr, t);
			w->step_stats.queued++;
		}
	}
}

imp_status imp_world_step(imp_world *w, double dt, const imp_step_opts *opts)
{
	if (w == NULL)
		return IMP_ERR_NULL_ARGUMENT;
	if (w->busy)
		return IMP_ERR_BUSY;
	if (isnan(dt) || isinf(dt))
		return IMP_ERR_NOT_FINITE;
	if (dt < 0.0 || dt > IMP_MAX_COORDINATE)
		return IMP_ERR_OUT_OF_RANGE;
	imp_step_opts o = opts != NULL ? *opts : imp_default_step_opts();
	imp_status st = check_step_opts(&o);
	if (st != IMP_OK)
		return st;
	if ((st = step_check(w, dt)) != IMP_OK)
		return st;
	// From here a failure leaves no contacts of an earlier step behind.
	memset(&w->step_stats, 0, sizeof w->step_stats);
	w->contact_count = 0;
	if (!step_reserve(w))
		return IMP_ERR_OUT_OF_MEMORY;
	step_ctx c = {dt, o.tolerance, o.resting_speed, o.max_pair_calls, o.on_contact, o.user};
	w->changed_count = 0;
	w->queued_count = 0;
	w->deferred_count = 0;
	w->queue_now = -INFINITY;
	w->step_dt = dt;
	if (++w->step_stamp == 0)
		w->step_stamp = 1;
	uint64_t ops0 = w->queue.ops;
	imp_heap_empty(&w->queue);

	// The broad phase over the swept boxes (pass 1 of an update), its
	// statistics kept apart from the update's.
	step_begin(w, &c);
	w->step_stats.moving = w->step_body_count;
	int looked_at = 0; // the update's statistic, not the step's
	st = broad_update(w, &looked_at, &w->step_stats.broad_moves);
	if (st == IMP_OK && !step_reserve(w)) // the pass may have made pairs
		st = IMP_ERR_OUT_OF_MEMORY;
	if (st != IMP_OK) {
		step_undo(w);
		return st;
	}
	step_candidates(w, &c);
	st = run_queue(w, &c);
	if (st == IMP_OK)
		st = report_capped(w, &c);
	w->step_stats.heap_ops = (int64_t)(w->queue.ops - ops0);
	imp_heap_empty(&w->queue);
	for (int32_t i = 0; i < w->queued_count; i++)
		w->queued[i]->queued = w->queued[i]->deferred = 0;
	w->deferred_count = 0;
	if (st != IMP_OK) {
		step_undo(w);
		return st;
	}
	step_commit(w, &c);
	w->time += dt;
	w->step_stats.state = w->step_stats.capped_pairs > 0 ? IMP_STEP_PAIR_CAPPED : IMP_STEP_COMPLETE;
	return IMP_OK;
}

imp_contact_events imp_world_get_contacts(const imp_world *w)
{
	imp_contact_events e = {NULL, 0};
	if (w != NULL) {
		e.items = w->contacts;
		e.count = w->contact_count;
	}
	return e;
}

imp_step_stats imp_world_get_step_stats(const imp_world *w)
{
	imp_step_stats s;
	memset(&s, 0, sizeof s);
	return w != NULL ? w->step_stats : s;
}

double imp_world_time(const imp_world *w)
{
	return w != NULL ? w->time : 0.0;
}
