// SPDX-License-Identifier: MIT
// The broad phase: boxes named by integer proxies, and the pairs of them
// that are "close". It knows nothing of shapes or bodies.
//
// Each structure keeps a relation S over its proxies that contains every
// pair of overlapping boxes (closed boxes: touching counts):
//   naive and sweep: S = the pairs whose boxes overlap;
//   hash:            S = the pairs that share a cell at the coarser of their
//                    two levels (Mirtich's "close" pairs, a superset).
// Insert and move report every change of S as it happens through the
// caller's callback: added (a pair entered S) or removed (it left). Within
// one call a pair may be reported added and removed more than once; the
// last report is its state (the sweep reports an insert's pairs at the
// next flush, move or remove). Remove reports nothing: the caller drops the
// proxy's pairs itself. Static proxies are never reported paired with each
// other.
#ifndef IMPACT_BROAD_BROAD_H
#define IMPACT_BROAD_BROAD_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>

#include "core/box.h"
#include "impact/base.h"
#include "impact/world.h"

/// Told of each change of S: p != q, in no particular order.
typedef void imp_broad_pair_fn(void *ctx, int32_t p, int32_t q, bool added);

typedef struct imp_broad_def {
	imp_broad_kind kind;
	int dim;
	double alpha, beta;          ///< the hash's parameters
	const imp_allocator *alloc;  ///< kept by pointer: must outlive the broad phase
	imp_broad_pair_fn *fn;
	void *ctx;
} imp_broad_def;

typedef struct imp_broad imp_broad;

imp_status imp_broad_create(const imp_broad_def *def, imp_broad **out);
void imp_broad_destroy(imp_broad *b);

/// Proxies are small non-negative integers chosen by the caller (body
/// slots), each inserted at most once at a time. Out of memory: the call
/// returns IMP_ERR_OUT_OF_MEMORY with the proxy possibly half stored; the
/// caller must then remove it (which always works) and drop its pairs.
imp_status imp_broad_insert(imp_broad *b, int32_t proxy, const imp_box *box, bool is_static);
imp_status imp_broad_move(imp_broad *b, int32_t proxy, const imp_box *box);
void imp_broad_remove(imp_broad *b, int32_t proxy);

/// The sweep defers the work of inserts (and their reports) to this call,
/// which merges them all at once; move and remove flush first. Cannot fail:
/// inserts reserved the room. The other kinds report in insert.
void imp_broad_flush(imp_broad *b);

/// Told of each proxy whose box overlaps a query box (or, through the
/// query tree, misses it by a float's rounding); returns false to stop.
typedef bool imp_broad_query_fn(void *ctx, int32_t proxy);

/// A query's own traversal memory (broad/tree.h): queries may run on
/// several threads at once, each with its own.
typedef struct imp_tree_scratch imp_tree_scratch;

/// Every stored proxy whose box overlaps `box` (closed boxes), each once,
/// in no particular order; proxies inserted but not yet flushed included.
/// Through the query tree's four-wide copy (imp_tree_query) a few proxies
/// whose boxes miss `box` by less than a float's rounding may come too:
/// the caller tests exact boxes. Returns false when fn stopped it, or when
/// the scratch could not grow (s->oom). No report through the pair
/// callback. The first query makes the query tree, once, whatever the
/// threads asking (if that runs out of memory, the kind's own structure
/// answers, and the next query tries again); a query allocates nothing
/// else unless its scratch outgrows the caller's stack. Queries may run on
/// several threads at once while nothing changes the broad phase.
bool imp_broad_query(const imp_broad *b, const imp_box *box, imp_broad_query_fn *fn, void *ctx,
		     imp_tree_scratch *s);

/// Told of a proxy whose box may be within the current bound
/// (imp_box_bound from the query box; see imp_broad_nearest); returns the
/// bound for the rest of the search.
typedef double imp_broad_visit_fn(void *ctx, int32_t proxy, double bound);

/// Branch and bound over the stored proxies: every one whose box's lower
/// bound from `box` is at most `bound` (as keys: imp_box_key against
/// bound |bound|), nearest boxes first (through the query tree, whose
/// four-wide copy may add a few within a float's rounding of the bound,
/// in the order of their float boxes; in index order if the tree cannot
/// be made), fn lowering the bound. False when the scratch could not grow
/// (s->oom): the search stopped.
bool imp_broad_nearest(const imp_broad *b, const imp_box *box, double bound, imp_broad_visit_fn *fn, void *ctx,
		       imp_tree_scratch *s);

/// Counters of work done since creation.
typedef struct imp_broad_counters {
	uint64_t swaps;       ///< sweep: end-point exchanges
	uint64_t cell_visits; ///< hash: cells entered or left
	uint64_t box_tests;   ///< exact box tests
} imp_broad_counters;

imp_broad_counters imp_broad_get_counters(const imp_broad *b);

/// The Morton code (Morton 1966: the Z-order curve) of box's centre on a
/// grid over `bounds` (the bounds of a batch's box centres): 2^10 cells an
/// axis in 3D, 2^15 in 2D, the axes' bits interleaved, x lowest. Inserting
/// a batch in the order of these codes makes the boxes that meet follow one
/// another, so the structures they share (cells, counters, end-points,
/// body records) are touched while they are in cache. Centres off the grid
/// (or NaN) are clamped to it; a flat or non-finite extent puts every
/// centre at cell 0 along that axis.
uint32_t imp_broad_morton(int dim, const imp_box *box, const imp_box *bounds);

#endif
