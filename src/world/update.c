// SPDX-License-Identifier: MIT
// The update (imp_world_update), in three passes over the bodies that moved:
//   1. the broad phase is told of each body whose box left its enlarged box
//      (or that is new, or re-filtered); it reports candidate pairs added
//      and removed, which create pairs or mark them doomed;
//   2. every candidate pair of a moved body is looked at once: doomed pairs
//      are deleted, the others get the exact box test and the narrow phase,
//      and a change of their touching state is an event;
//   3. the events are sorted, so that every broad phase gives the same.
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

imp_status imp_world_broad_update(imp_world *w, int *moved, int *moves)
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

/// Whether the pair's shapes touch (its boxes overlap), by the narrow
/// phase; writes only pr's simplex cache, so that pairs run on several
/// workers at once.
static bool shapes_touch(const imp_world *w, pair *pr, const pair_hot *h)
{
	const body *a = &w->bodies[key_lo(h->key)], *b = &w->bodies[key_hi(h->key)];
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

/// What a part of pass 2 counted, added to the update's statistics once.
typedef struct pass2_counts {
	int32_t settled, unchanged; ///< pairs left without a box test, and after one
	int32_t tests, narrow;      ///< box tests and narrow-phase calls of the visits
} pass2_counts;

static void add_counts(imp_world *w, const pass2_counts *n)
{
	w->stats.settled += n->settled;
	w->stats.box_tests += n->unchanged + n->tests;
	w->stats.narrow_calls += n->narrow;
}

/// A visit's part on the pair's own fields (a pair not left by
/// pair_unchanged, m its boxes' least overlap): its stamp, its touching
/// state now (*t; the narrow phase where the boxes overlap), its new limit.
/// True when the world must change (apply_change): the pair is doomed, or
/// its touching state flips. Reads the pair's two bodies and writes only
/// the pair, so that pairs run on several workers at once.
static inline bool visit_decide(const imp_world *w, pair *pr, pair_hot *h, double m, pass2_counts *n, bool *t)
{
	h->stamp = w->stamp;
	*t = false;
	if (h->doomed)
		return true;
	bool narrow = w->def.narrow_phase;
	n->tests++;
	if (m >= 0.0) {
		n->narrow += narrow;
		*t = !narrow || shapes_touch(w, pr, h);
	}
	pair_limit(w, h, m, narrow);
	return *t != (bool)h->touching;
}

/// A visit's change to the world: a doomed pair's end event and deletion,
/// or a touching state's flip to t and its event. False when an event
/// could not be stored.
static bool apply_change(imp_world *w, pair *pr, bool t)
{
	pair_hot *h = pr->hot;
	imp_body_id a = imp_world_id_of(w, key_lo(h->key)), b = imp_world_id_of(w, key_hi(h->key));
	if (h->doomed) {
		if (h->touching && !imp_world_event_push(w, &w->end, a, b)) {
			h->stamp = 0;
			return false;
		}
		imp_world_pair_delete(w, pr);
		return true;
	}
	if ((t && !imp_world_touch_reserve(w)) || !imp_world_event_push(w, t ? &w->begin : &w->end, a, b)) {
		h->stamp = 0;
		return false;
	}
	imp_world_set_touching(w, pr, t);
	return true;
}

/// Pass 2's visit of one pair: decided and applied at once, or, when
/// gathering (more than one worker), stamped and kept for the workers
/// (apply_visits). False when an event could not be stored.
static bool pair_visit(imp_world *w, pair *pr, pair_hot *h, double m, bool gather, pass2_counts *n)
{
	if (gather) {
		h->stamp = w->stamp;
		assert(w->visit_count < w->visit_cap); // visits reserved before the walk
		w->visits[w->visit_count++] = (narrow_visit){pr, m, false, false};
		return true;
	}
	bool t;
	return !visit_decide(w, pr, h, m, n, &t) || apply_change(w, pr, t);
}

/// Pass 2's parts on the workers, their counts summed atomically once a
/// range.
typedef struct pass2_task {
	imp_world *w;
	atomic_int settled, unchanged, tests, narrow_calls;
} pass2_task;

static void task_add(pass2_task *t, const pass2_counts *n)
{
	atomic_fetch_add_explicit(&t->settled, n->settled, memory_order_relaxed);
	atomic_fetch_add_explicit(&t->unchanged, n->unchanged, memory_order_relaxed);
	atomic_fetch_add_explicit(&t->tests, n->tests, memory_order_relaxed);
	atomic_fetch_add_explicit(&t->narrow_calls, n->narrow, memory_order_relaxed);
}

/// Runs task over count items on the workers, then adds what they counted.
static void run_pass2_task(imp_world *w, imp_task_fn *task, int count, int min_range)
{
	pass2_task t = {.w = w};
	atomic_init(&t.settled, 0);
	atomic_init(&t.unchanged, 0);
	atomic_init(&t.tests, 0);
	atomic_init(&t.narrow_calls, 0);
	imp_world_run_task(w, task, count, min_range, &t);
	pass2_counts n = {atomic_load(&t.settled), atomic_load(&t.unchanged), atomic_load(&t.tests),
			  atomic_load(&t.narrow_calls)};
	add_counts(w, &n);
}

/// The gathered visits [start, end) decided (visit_decide).
static void visits_task(int start, int end, int worker, void *context)
{
	(void)worker;
	pass2_task *t = context;
	pass2_counts n = {0, 0, 0, 0};
	for (int i = start; i < end; i++) {
		narrow_visit *v = &t->w->visits[i];
		v->change = visit_decide(t->w, v->pr, v->pr->hot, v->m, &n, &v->touching);
	}
	task_add(t, &n);
}

/// The gathered visits: decided on the workers, then their changes applied
/// in the order gathered (the serial visits' order).
static bool apply_visits(imp_world *w)
{
	bool ok = true;
	run_pass2_task(w, visits_task, w->visit_count, 64);
	for (int32_t i = 0; i < w->visit_count && ok; i++) {
		const narrow_visit *v = &w->visits[i];
		ok = !v->change || apply_change(w, v->pr, v->touching);
	}
	w->visit_count = 0;
	return ok;
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
static bool pair_pass(imp_world *w, int32_t s, bool gather)
{
	bool narrow = w->def.narrow_phase, ok = true;
	pass2_counts n = {0, 0, 0, 0};
	pair *next;
	for (pair *pr = w->bodies[s].pairs; pr != NULL; pr = next) {
		next = list_next(pr, s);
		pair_hot *h = pr->hot;
		if (h->stamp == w->stamp)
			continue;
		if (pair_settled(w, h)) {
			n.settled++;
			h->stamp = w->stamp;
			continue;
		}
		double m = 0.0;
		if (pair_unchanged(w, h, &w->bodies[key_lo(h->key)], &w->bodies[key_hi(h->key)], narrow, &m)) {
			n.unchanged++;
			h->stamp = w->stamp;
			continue;
		}
		if (!pair_visit(w, pr, h, m, gather, &n)) {
			ok = false;
			break;
		}
	}
	add_counts(w, &n);
	return ok;
}

#define PREFETCH_AHEAD 8

/// Whether pass 2 looks at a body's pairs.
static bool pass2_body(const body *b)
{
	return b->alive && b->moved && b->in_broad;
}

/// Pass 2 over one pair block, each pair of a moved body visited. With
/// `changes` NULL the visits are applied at once (false when an event
/// could not be stored); else (on a worker) each visit is decided
/// (visit_decide) and only those that change the world are written to
/// changes[*count], to be applied in block order (apply_change).
static inline bool block_pass(imp_world *w, pair_block *blk, bool narrow, narrow_visit *changes, int32_t *count,
			      pass2_counts *n)
{
	// Whether the pairs up to PREFETCH_AHEAD ahead are settled, found when
	// they were looked ahead at (a pair's visit changes no other pair's
	// limit nor any odometer), slot i % PREFETCH_AHEAD for pair i.
	bool ahead_settled[PREFETCH_AHEAD];
	for (int i = 0; i < PAIR_BLOCK; i++) {
		pair_hot *h = &blk->hot[i];
		bool is_settled = i >= PREFETCH_AHEAD ? ahead_settled[i % PREFETCH_AHEAD] : h->live && pair_settled(w, h);
		// The bodies of a pair a few ahead that will need them, asked for
		// now: the pairs come in no order of their bodies, so each body is
		// a cache miss that this overlaps with the work on the pairs
		// before. (The odometers are one double a slot, mostly in the
		// cache.)
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
			n->settled++;
			continue;
		}
		const body *a = &w->bodies[key_lo(h->key)], *c = &w->bodies[key_hi(h->key)];
		if (!pass2_body(a) && !pass2_body(c))
			continue;
		double m = 0.0;
		if (pair_unchanged(w, h, a, c, narrow, &m)) {
			n->unchanged++;
			continue;
		}
		pair *pr = &blk->items[i];
		if (changes == NULL) {
			if (!pair_visit(w, pr, h, m, false, n))
				return false;
			continue;
		}
		bool t;
		if (visit_decide(w, pr, h, m, n, &t))
			changes[(*count)++] = (narrow_visit){pr, m, t, true};
	}
	return true;
}

/// The blocks of pass 2 on the workers: block k's changes go to
/// visits[k * PAIR_BLOCK ...], their count to block_changes[k].
static void pass2_blocks(int start, int end, int worker, void *context)
{
	(void)worker;
	pass2_task *t = context;
	imp_world *w = t->w;
	pass2_counts n = {0, 0, 0, 0};
	for (int k = start; k < end; k++) {
		w->block_changes[k] = 0;
		block_pass(w, w->block_array[k], w->def.narrow_phase, &w->visits[(int64_t)k * PAIR_BLOCK],
			   &w->block_changes[k], &n);
	}
	task_add(t, &n);
}

/// Room for pass 2 over every pair on the workers: the blocks in an array
/// and a change record for every pair; false when out of memory (the pass
/// then runs on the calling thread).
static bool blocks_reserve(imp_world *w)
{
	int32_t nb = w->block_count;
	if (!imp_grow(&w->alloc, (void **)&w->block_array, &w->block_array_cap, nb, sizeof *w->block_array) ||
	    !imp_grow(&w->alloc, (void **)&w->block_changes, &w->block_changes_cap, nb, sizeof *w->block_changes) ||
	    (int64_t)nb * PAIR_BLOCK > INT32_MAX ||
	    !imp_grow(&w->alloc, (void **)&w->visits, &w->visit_cap, nb * PAIR_BLOCK, sizeof *w->visits))
		return false;
	int32_t k = 0;
	for (pair_block *blk = w->blocks; blk != NULL; blk = blk->next)
		w->block_array[k++] = blk;
	assert(k == nb);
	return true;
}

/// Pass 2 when most bodies moved: the pair blocks walked in memory order
/// instead of each moved body's list, each pair of a moved body visited.
/// With more than one worker (and room), the blocks in ranges on the
/// workers, then their changes applied in block order: the serial walk's
/// order. False when an event could not be stored; every moved body then
/// stays moved (a pair looked at again next time gives no second event).
static bool pair_pass_all(imp_world *w)
{
	// Each pair is met once here: no stamps to read (the visits stamp
	// their pair, which nothing reads in this update).
	bool narrow = w->def.narrow_phase, ok = true;
	if (w->workers > 1 && blocks_reserve(w)) {
		run_pass2_task(w, pass2_blocks, w->block_count, 2);
		for (int32_t k = 0; k < w->block_count && ok; k++) {
			const narrow_visit *v = &w->visits[(int64_t)k * PAIR_BLOCK];
			for (int32_t i = 0; i < w->block_changes[k] && ok; i++)
				ok = apply_change(w, v[i].pr, v[i].touching);
		}
		return ok;
	}
	pass2_counts n = {0, 0, 0, 0};
	for (pair_block *blk = w->blocks; blk != NULL && ok; blk = blk->next)
		ok = block_pass(w, blk, narrow, NULL, NULL, &n);
	add_counts(w, &n);
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
	return imp_world_event_reserve(w, &w->begin, begins) && imp_world_event_reserve(w, &w->end, ends) &&
	       imp_grow(&w->alloc, (void **)&w->touch_new, &w->touch_new_cap, w->touch_new_count + begins,
			sizeof *w->touch_new) &&
	       imp_grow(&w->alloc, (void **)&w->touch_extra, &w->touch_extra_cap, runs, sizeof *w->touch_extra) &&
	       imp_grow(&w->alloc, (void **)&w->touch, &w->touch_cap, w->touch_count + runs, sizeof *w->touch);
}

imp_status imp_world_update(imp_world *w)
{
	if (w == NULL)
		return IMP_ERR_NULL_ARGUMENT;
	if (imp_world_busy(w))
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
	imp_status result = imp_world_broad_update(w, &w->stats.moved, &w->stats.broad_moves);
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
	//
	// With more than one worker, the visits are gathered (each pair
	// stamped as visited) and applied after the walk, their narrow phase
	// spread over the workers; without room to gather them (out of memory),
	// they are applied during the walk as with one.
	bool all = 4 * (int64_t)n >= w->body_count, events_ok = true;
	bool gather = !all && w->workers > 1 &&
		      imp_grow(&w->alloc, (void **)&w->visits, &w->visit_cap, w->pair_count, sizeof *w->visits);
	w->visit_count = 0;
	if (all)
		events_ok = pair_pass_all(w);
	int32_t kept = 0;
	for (int32_t i = 0; i < n; i++) {
		int32_t s = w->moved[i];
		body *b = &w->bodies[s];
		if (!b->alive) {
			b->moved = 0; // a removed body's entry (body.c)
			continue;
		}
		if (!b->moved)
			continue;
		if (!b->in_broad) { // pass 1 succeeded: every body is in (kept for the next update if not)
			w->moved[kept++] = s;
			continue;
		}
		if (!all)
			events_ok = pair_pass(w, s, gather) && events_ok;
		b->moved = 0;
	}
	if (gather)
		events_ok = apply_visits(w) && events_ok;
	assert(events_ok); // pass2_reserve made the room
	(void)events_ok;
	w->moved_count = kept;
	w->updates++;

	imp_world_touch_rebuild(w);
	imp_world_events_finish(w);
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
