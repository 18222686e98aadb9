// SPDX-License-Identifier: MIT
// The query tree: a dynamic bounding-volume tree over the broad phase's
// boxes, which answers region queries in time that grows with the log of
// the boxes stored and the boxes found, where the hash visits every cell a
// region covers at every level and the sweep every end-point along one
// axis. The broad phase makes it at the first query and keeps it in step
// with every insert, move and remove from then on, so a world that is never
// queried pays nothing for it.
//
// A leaf per proxy; an internal node bounds its two children. A box goes
// in next to the sibling that costs least, where cost is the growth of the
// surface (area in 3D, perimeter in 2D) of the nodes on the way down plus
// that of the new parent, the greedy rule of Goldsmith and Salmon (1987)
// that Bullet's and Box2D's trees use too; on the way back up, a node whose
// children's heights differ by more than one is rotated (its taller child
// moves up), which keeps the depth near logarithmic whatever the order of
// insertion. The tree made at the first query is built top down by median
// splits instead, balanced exactly and with tighter boxes than inserts
// give. A tree that has gone unchanged for a while gets a four-wide copy in
// floats (wide_build), which region and nearest queries walk instead until
// the next change (docs/queries.md).
#include <float.h>
#include <math.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "broad/tree.h"
#include "core/inline.h"
#include "core/sort.h"

#define NONE (-1)

/// A node of the four-wide copy: its children's boxes, axis by axis (a
/// lane per child), in floats rounded outwards, so that a node fills two
/// cache lines where doubles took more than three; and the children: a
/// wide node's index, or -1 - proxy for a leaf. An empty lane's box is
/// [+inf, -inf], which meets no finite box; `lanes` masks it out for the
/// infinite ones.
typedef struct wnode {
	float lo[3][4], hi[3][4];
	int32_t child[4];
	uint32_t lanes;  ///< bit j: lane j holds a box (an infinite query box meets empty lanes)
	uint32_t leaves; ///< bit j: lane j is a leaf
	int32_t pad[2];  ///< to 128 bytes: a node starts on a cache line
} wnode;

_Static_assert(sizeof(wnode) == 128, "a wide node is two cache lines");

typedef imp_tree_entry tree_entry;

/// imp_box_overlap on all three axes (a 2D box has 0 for both z bounds)
/// without a branch per axis.
static inline bool box_meets(const imp_box *a, const imp_box *b)
{
	return (a->lo[0] <= b->hi[0]) & (b->lo[0] <= a->hi[0]) & (a->lo[1] <= b->hi[1]) & (b->lo[1] <= a->hi[1]) &
	       (a->lo[2] <= b->hi[2]) & (b->lo[2] <= a->hi[2]);
}

static inline int32_t imax(int32_t a, int32_t b)
{
	return a > b ? a : b;
}

void imp_tree_init(imp_tree *t, int dim, const imp_allocator *alloc)
{
	memset(t, 0, sizeof *t);
	t->dim = dim;
	t->alloc = alloc;
	t->root = NONE;
	t->free_list = NONE;
}

void imp_tree_free(imp_tree *t)
{
	imp_free(t->alloc, t->nodes, (size_t)t->cap * sizeof *t->nodes);
	imp_free(t->alloc, t->leaf_of, (size_t)t->leaf_cap * sizeof *t->leaf_of);
	imp_free(t->alloc, t->wide_mem, t->wide_bytes);
	imp_tree_init(t, t->dim, t->alloc);
}

bool imp_tree_reserve(imp_tree *t, int32_t proxy)
{
	// A leaf and its parent: two free nodes, and a slot for the proxy.
	int32_t free_nodes = 0;
	for (int32_t i = t->free_list; i != NONE && free_nodes < 2; i = t->nodes[i].parent)
		free_nodes++;
	if (free_nodes < 2) {
		int32_t old = t->cap;
		if (!imp_grow(t->alloc, (void **)&t->nodes, &t->cap, t->cap + 2 - free_nodes, sizeof *t->nodes))
			return false;
		// New nodes onto the free list, lowest index first out.
		for (int32_t i = t->cap - 1; i >= old; i--) {
			t->nodes[i].height = NONE;
			t->nodes[i].parent = t->free_list;
			t->free_list = i;
		}
	}
	if (proxy >= t->leaf_cap) {
		int32_t old = t->leaf_cap;
		if (!imp_grow(t->alloc, (void **)&t->leaf_of, &t->leaf_cap, proxy + 1, sizeof *t->leaf_of))
			return false;
		for (int32_t i = old; i < t->leaf_cap; i++)
			t->leaf_of[i] = NONE;
	}
	return true;
}

static int32_t node_take(imp_tree *t)
{
	int32_t i = t->free_list;
	t->free_list = t->nodes[i].parent;
	t->nodes[i].parent = NONE;
	t->nodes[i].child[0] = t->nodes[i].child[1] = NONE;
	t->nodes[i].height = 0;
	t->nodes[i].proxy = NONE;
	return i;
}

static void node_give(imp_tree *t, int32_t i)
{
	t->nodes[i].height = NONE;
	t->nodes[i].parent = t->free_list;
	t->free_list = i;
}

static void relink(imp_tree *t, int32_t parent, int32_t old_child, int32_t new_child)
{
	if (parent == NONE) {
		t->root = new_child;
		return;
	}
	tnode *p = &t->nodes[parent];
	p->child[p->child[0] == old_child ? 0 : 1] = new_child;
}

/// Node a's taller child moves up into a's place when the two children's
/// heights differ by more than one; returns the node now at a's place.
static int32_t balance(imp_tree *t, int32_t a)
{
	tnode *n = t->nodes;
	// Read the children's heights, not a's own: refit calls this before it
	// brings a's height up to date.
	if (n[a].height == 0)
		return a;
	int32_t b = n[a].child[0], c = n[a].child[1];
	int32_t skew = n[c].height - n[b].height;
	if (skew >= -1 && skew <= 1)
		return a;
	// `up` is the taller child, `stay` the other; `up` takes a's place, a
	// becomes its child and keeps up's shorter child.
	int side = skew > 1 ? 1 : 0;
	int32_t up = n[a].child[side], stay = n[a].child[1 - side];
	int32_t f = n[up].child[0], g = n[up].child[1];
	int32_t tall = n[f].height > n[g].height ? f : g, low = tall == f ? g : f;
	n[up].parent = n[a].parent;
	relink(t, n[a].parent, a, up);
	n[a].parent = up;
	n[up].child[0] = a;
	n[up].child[1] = tall;
	n[a].child[side] = low;
	n[a].child[1 - side] = stay;
	n[low].parent = a;
	n[a].box = imp_box_union(&n[stay].box, &n[low].box);
	n[a].height = 1 + imax(n[stay].height, n[low].height);
	n[up].box = imp_box_union(&n[a].box, &n[tall].box);
	n[up].height = 1 + imax(n[a].height, n[tall].height);
	return up;
}

/// From node i up to the root: boxes and heights brought up to date,
/// unbalanced nodes rotated.
static void refit(imp_tree *t, int32_t i)
{
	tnode *n = t->nodes;
	while (i != NONE) {
		i = balance(t, i);
		int32_t a = n[i].child[0], b = n[i].child[1];
		n[i].height = 1 + imax(n[a].height, n[b].height);
		n[i].box = imp_box_union(&n[a].box, &n[b].box);
		i = n[i].parent;
	}
}

/// Where a box goes: down from the root towards the child whose surface
/// grows least, stopping where making a new parent here is cheaper.
static int32_t best_sibling(const imp_tree *t, const imp_box *box)
{
	const tnode *n = t->nodes;
	int32_t i = t->root;
	while (n[i].height > 0) {
		double area = imp_box_area(&n[i].box, t->dim);
		imp_box both = imp_box_union(&n[i].box, box);
		double here = 2.0 * imp_box_area(&both, t->dim);
		// What every node below pays for this node's growth.
		double inherited = 2.0 * (imp_box_area(&both, t->dim) - area);
		double cost[2];
		for (int k = 0; k < 2; k++) {
			const tnode *c = &n[n[i].child[k]];
			imp_box with = imp_box_union(&c->box, box);
			cost[k] = imp_box_area(&with, t->dim) + inherited;
			if (c->height > 0)
				cost[k] -= imp_box_area(&c->box, t->dim);
		}
		if (here < cost[0] && here < cost[1])
			break;
		i = n[i].child[cost[1] < cost[0] ? 1 : 0];
	}
	return i;
}

/// A change of the tree: the wide copy is gone, and the count of quiet
/// queries starts again (no query runs during a change).
static void changed(imp_tree *t)
{
	atomic_store_explicit(&t->wide_ok, false, memory_order_relaxed);
	atomic_store_explicit(&t->wide_refused, false, memory_order_relaxed);
	atomic_store_explicit(&t->quiet, 0, memory_order_relaxed);
}

void imp_tree_insert(imp_tree *t, int32_t proxy, const imp_box *box)
{
	changed(t);
	int32_t leaf = node_take(t);
	t->nodes[leaf].box = *box;
	t->nodes[leaf].proxy = proxy;
	t->leaf_of[proxy] = leaf;
	t->leaves++;
	if (t->root == NONE) {
		t->root = leaf;
		return;
	}
	int32_t sibling = best_sibling(t, box);
	int32_t parent = node_take(t), grand = t->nodes[sibling].parent;
	tnode *n = t->nodes;
	n[parent].parent = grand;
	n[parent].child[0] = sibling;
	n[parent].child[1] = leaf;
	n[parent].box = imp_box_union(&n[sibling].box, box);
	n[parent].height = n[sibling].height + 1;
	relink(t, grand, sibling, parent);
	n[sibling].parent = parent;
	n[leaf].parent = parent;
	refit(t, grand);
}

void imp_tree_remove(imp_tree *t, int32_t proxy)
{
	if (proxy < 0 || proxy >= t->leaf_cap || t->leaf_of[proxy] == NONE)
		return;
	int32_t leaf = t->leaf_of[proxy];
	t->leaf_of[proxy] = NONE;
	t->leaves--;
	changed(t);
	tnode *n = t->nodes;
	int32_t parent = n[leaf].parent;
	node_give(t, leaf);
	if (parent == NONE) {
		t->root = NONE;
		return;
	}
	int32_t grand = n[parent].parent;
	int32_t sibling = n[parent].child[n[parent].child[0] == leaf ? 1 : 0];
	relink(t, grand, parent, sibling);
	n[sibling].parent = grand;
	node_give(t, parent);
	refit(t, grand);
}

void imp_tree_move(imp_tree *t, int32_t proxy, const imp_box *box)
{
	if (proxy < 0 || proxy >= t->leaf_cap || t->leaf_of[proxy] == NONE)
		return;
	// Out and in again: the two nodes it frees are the two it takes.
	imp_tree_remove(t, proxy);
	imp_tree_insert(t, proxy, box);
}

/// The float next to f towards -inf (step -1) or +inf (step 1), for f
/// not 0 and not the infinity it steps towards (a normal f steps to a
/// normal float unless it is the least normal float stepping to 0).
static inline float float_step(float f, int step)
{
	uint32_t u;
	memcpy(&u, &f, sizeof u);
	u = (f > 0.0f) == (step > 0) ? u + 1u : u - 1u;
	memcpy(&f, &u, sizeof f);
	return f;
}

/// Whether x is a nonzero double of the given sign (read from its bits,
/// whatever the processor does with subnormals).
static inline bool nonzero_of_sign(double x, bool negative)
{
	uint64_t u;
	memcpy(&u, &x, sizeof u);
	return (u << 1) != 0 && (u >> 63 != 0) == negative;
}

/// x rounded to a float no greater (down) or no smaller (up): the wide
/// nodes' boxes hold their binary nodes' boxes. No side is a subnormal
/// float: one below the least normal float in size goes out to 0 or to
/// that float, so that a program that has the processor read subnormals
/// as zero (DAZ) sees the same sides. The tests for that are on the bits
/// and on normal numbers only, so they hold in that mode too.
static inline float float_down(double x)
{
	if (fabs(x) < (double)FLT_MIN)
		return nonzero_of_sign(x, true) ? -FLT_MIN : 0.0f;
	float f = (float)x; // normal or infinite: |x| is at least FLT_MIN
	return (double)f > x ? float_step(f, -1) : f;
}

static inline float float_up(double x)
{
	if (fabs(x) < (double)FLT_MIN)
		return nonzero_of_sign(x, false) ? FLT_MIN : 0.0f;
	float f = (float)x;
	return (double)f < x ? float_step(f, 1) : f;
}

/// Whether a leaf's float box is much wider than its own: on some axis
/// the rounding added more than a quarter of the box's extent (any at all
/// to a point's, everything beyond float's range).
static bool lossy_leaf(const imp_box *b, const wnode *w, int j, int dim)
{
	for (int a = 0; a < dim; a++) {
		double grown = (b->lo[a] - (double)w->lo[a][j]) + ((double)w->hi[a][j] - b->hi[a]);
		if (!(grown <= 0.25 * (b->hi[a] - b->lo[a])))
			return true;
	}
	return false;
}

/// The wide node for the subtree at binary node b: b's children, then the
/// lane of the largest surface opened into its two children while there
/// is room (four lanes), each internal lane's subtree a wide node of its
/// own. The binary nodes' boxes are rounded out to floats; the leaves
/// whose boxes grew much in the rounding are counted in *lossy.
static int32_t wide_make(imp_tree *t, int32_t b, int32_t *lossy)
{
	const tnode *n = t->nodes;
	int32_t w = t->wide_count++;
	int32_t lane[4], k;
	if (n[b].height == 0) {
		lane[0] = b;
		k = 1;
	} else {
		lane[0] = n[b].child[0];
		lane[1] = n[b].child[1];
		k = 2;
	}
	while (k < 4) {
		int best = -1;
		double area = -1.0;
		for (int j = 0; j < k; j++) {
			double sj = n[lane[j]].height > 0 ? imp_box_area(&n[lane[j]].box, t->dim) : -1.0;
			if (sj > area) {
				area = sj;
				best = j;
			}
		}
		if (best < 0)
			break;
		int32_t x = lane[best];
		lane[best] = n[x].child[0];
		lane[k++] = n[x].child[1];
	}
	wnode *x = &t->wide[w]; // t->wide does not move: room was made
	memset(x, 0, sizeof *x);
	x->lanes = (1u << k) - 1u;
	for (int j = 0; j < 4; j++)
		for (int a = 0; a < 3; a++) {
			x->lo[a][j] = j < k ? float_down(n[lane[j]].box.lo[a]) : INFINITY;
			x->hi[a][j] = j < k ? float_up(n[lane[j]].box.hi[a]) : -INFINITY;
		}
	for (int j = 0; j < k; j++) {
		const tnode *c = &n[lane[j]];
		if (c->height == 0) {
			x->leaves |= 1u << j;
			x->child[j] = -1 - c->proxy;
			*lossy += lossy_leaf(&c->box, x, j, t->dim);
		} else {
			x->child[j] = wide_make(t, lane[j], lossy);
		}
	}
	return w;
}

/// Room for n wide nodes, the first at a cache line's start (the old
/// copy is dropped, not kept); false when out of memory.
static bool wide_room(imp_tree *t, int32_t n)
{
	if (n <= t->wide_cap)
		return true;
	size_t bytes = ((size_t)n + 1) * sizeof(wnode);
	void *m = imp_alloc(t->alloc, bytes);
	if (m == NULL)
		return false;
	imp_free(t->alloc, t->wide_mem, t->wide_bytes);
	t->wide_mem = m;
	t->wide_bytes = bytes;
	t->wide = (wnode *)(((uintptr_t)m + 63) & ~(uintptr_t)63);
	t->wide_cap = n;
	return true;
}

/// Queries of a tree that goes unchanged pay for the wide copy
/// after this many (about the copy's cost in queries saved).
static int32_t wide_after(const imp_tree *t)
{
	return 32 + t->leaves / 64;
}

/// Makes the wide copy of a non-empty tree. False, and not tried again
/// until the tree changes, when out of memory or when floats cannot hold
/// the boxes well (more than half the leaves' float boxes much wider than
/// the boxes: tiny boxes far from the origin, coordinates beyond float's
/// range, where the copy would tell of many boxes that miss): the queries
/// then walk the tree itself.
static bool wide_build(imp_tree *t)
{
	if (t->root == NONE || !wide_room(t, t->leaves + 1))
		return false;
	t->wide_count = 0;
	int32_t lossy = 0;
	wide_make(t, t->root, &lossy);
	return lossy <= t->leaves / 2;
}

bool imp_tree_wide_ready(const imp_tree *t)
{
	return atomic_load_explicit(&t->wide_ok, memory_order_acquire);
}

bool imp_tree_wide_due(imp_tree *t)
{
	if (atomic_load_explicit(&t->wide_refused, memory_order_relaxed))
		return false;
	return atomic_fetch_add_explicit(&t->quiet, 1, memory_order_relaxed) + 1 >= wide_after(t);
}

void imp_tree_wide_build(imp_tree *t)
{
	if (atomic_load_explicit(&t->wide_ok, memory_order_relaxed) ||
	    atomic_load_explicit(&t->wide_refused, memory_order_relaxed))
		return;
	// Released: a query that sees wide_ok sees the copy.
	if (wide_build(t))
		atomic_store_explicit(&t->wide_ok, true, memory_order_release);
	else
		atomic_store_explicit(&t->wide_refused, true, memory_order_relaxed);
}

void imp_tree_scratch_init(imp_tree_scratch *s, const imp_allocator *alloc)
{
	s->stack = s->stack_local;
	s->stack_cap = IMP_TREE_SCRATCH_LOCAL;
	s->heap = s->heap_local;
	s->heap_cap = IMP_TREE_HEAP_LOCAL;
	s->alloc = alloc;
	s->oom = false;
}

void imp_tree_scratch_free(imp_tree_scratch *s)
{
	if (s->stack != s->stack_local)
		imp_free(s->alloc, s->stack, (size_t)s->stack_cap * sizeof *s->stack);
	if (s->heap != s->heap_local)
		imp_free(s->alloc, s->heap, (size_t)s->heap_cap * sizeof *s->heap);
	imp_tree_scratch_init(s, s->alloc);
}

/// Room for `need` entries on the scratch's stack (oom set when out of
/// memory).
static bool stack_room(imp_tree_scratch *s, int32_t need)
{
	if (imp_grow_from(s->alloc, (void **)&s->stack, &s->stack_cap, s->stack_local, need, s->stack_cap,
			  sizeof *s->stack))
		return true;
	s->oom = true;
	return false;
}

bool imp_tree_scratch_reserve(imp_tree_scratch *s, int32_t need)
{
	return stack_room(s, need);
}

/// The same for the best-first queue.
static bool heap_room(imp_tree_scratch *s, int32_t need)
{
	if (imp_grow_from(s->alloc, (void **)&s->heap, &s->heap_cap, s->heap_local, need, s->heap_cap,
			  sizeof *s->heap))
		return true;
	s->oom = true;
	return false;
}

/// The query box in floats. Rounding (to nearest, or in whatever mode
/// the program has set) is monotonic, so a side of a stored box that is
/// not past the query's side is not past it in floats either: the boxes
/// that overlap in doubles overlap in floats. (The same holds where
/// subnormals are flushed to zero.)
typedef struct fbox {
	float lo[3], hi[3];
} fbox;

static fbox fbox_of(const imp_box *b)
{
	fbox f;
	for (int a = 0; a < 3; a++) {
		f.lo[a] = (float)b->lo[a];
		f.hi[a] = (float)b->hi[a];
	}
	return f;
}

#if !defined(__SSE2__)
/// Lane j's box of wide node w, in doubles (the plain loops' view).
static imp_box lane_box(const wnode *w, int j)
{
	imp_box b;
	for (int a = 0; a < 3; a++) {
		b.lo[a] = w->lo[a][j];
		b.hi[a] = w->hi[a][j];
	}
	return b;
}
#endif

/// Which of a wide node's four boxes meet `box`: bit j for lane j.
#if defined(__SSE2__)
static inline unsigned wide_meets(const wnode *w, const fbox *box)
{
	// Per axis, the four lanes' lo <= box.hi and box.lo <= hi.
	__m128 m = _mm_and_ps(_mm_cmple_ps(_mm_load_ps(w->lo[0]), _mm_set1_ps(box->hi[0])),
			      _mm_cmple_ps(_mm_set1_ps(box->lo[0]), _mm_load_ps(w->hi[0])));
	for (int a = 1; a < 3; a++)
		m = _mm_and_ps(m, _mm_and_ps(_mm_cmple_ps(_mm_load_ps(w->lo[a]), _mm_set1_ps(box->hi[a])),
					     _mm_cmple_ps(_mm_set1_ps(box->lo[a]), _mm_load_ps(w->hi[a]))));
	return (unsigned)_mm_movemask_ps(m) & w->lanes;
}
#else
static inline unsigned wide_meets(const wnode *w, const fbox *box)
{
	// Floats compare the same as doubles made from them.
	imp_box q;
	for (int a = 0; a < 3; a++) {
		q.lo[a] = box->lo[a];
		q.hi[a] = box->hi[a];
	}
	unsigned m = 0;
	for (int j = 0; j < 4; j++) {
		imp_box b = lane_box(w, j);
		m |= (unsigned)box_meets(&b, &q) << j;
	}
	return m & w->lanes;
}
#endif

/// The index of the lowest bit set in m (not 0) of a lane mask.
static inline int lowest_bit(unsigned m)
{
#if defined(__GNUC__)
	return __builtin_ctz(m);
#else
	return (m & 1u) ? 0 : (m & 2u) ? 1 : (m & 4u) ? 2 : 3;
#endif
}

/// imp_tree_query on the wide copy: a node's four boxes tested together,
/// half the binary tree's levels, taken level by level (a queue: each
/// wide node goes in once, so the stack's room, a node each, is enough).
static bool wide_query(const imp_tree *t, const imp_box *box, imp_tree_fn *fn, void *ctx, imp_tree_scratch *s,
		       uint64_t *visits)
{
	int32_t head = 0, tail = 0;
	uint64_t seen = 0;
	fbox fb = fbox_of(box);
	s->stack[tail++] = 0;
	while (head < tail) {
		if (tail + 4 > s->stack_cap && !stack_room(s, tail + 4)) {
			*visits += seen;
			return false;
		}
		int32_t *queue = s->stack;
		const wnode *w = &t->wide[queue[head++]];
		seen += 4;
		unsigned m = wide_meets(w, &fb);
		// Inner lanes first, into the queue (and asked of memory now, so
		// that a level's nodes arrive together), then the leaves.
		for (unsigned in = m & ~w->leaves; in != 0; in &= in - 1) {
			int32_t c = w->child[lowest_bit(in)];
			IMP_PREFETCH(&t->wide[c]);
			IMP_PREFETCH((const char *)&t->wide[c] + 64);
			queue[tail++] = c;
		}
		for (unsigned lf = m & w->leaves; lf != 0; lf &= lf - 1)
			if (!fn(ctx, -1 - w->child[lowest_bit(lf)])) {
				*visits += seen;
				return false;
			}
	}
	*visits += seen;
	return true;
}

bool imp_tree_query(const imp_tree *t, const imp_box *box, bool wide, imp_tree_fn *fn, void *ctx,
		    imp_tree_scratch *s, uint64_t *visits)
{
	if (t->root == NONE)
		return true;
	if (wide)
		return wide_query(t, box, fn, ctx, s, visits);
	const tnode *n = t->nodes;
	int32_t *stack = s->stack;
	int32_t top = 0;
	uint64_t seen = 1;
	if (box_meets(&n[t->root].box, box))
		stack[top++] = t->root;
	// Only nodes whose box meets the query's go on the stack: each child is
	// tested as its parent is taken off, so that a child that misses costs
	// no push and no pop.
	while (top > 0) {
		const tnode *nd = &n[stack[--top]];
		if (nd->height == 0) {
			if (!fn(ctx, nd->proxy)) {
				*visits += seen;
				return false;
			}
			continue;
		}
		int32_t c0 = nd->child[0], c1 = nd->child[1];
		seen += 2;
		if (!stack_room(s, top + 2)) {
			*visits += seen;
			return false;
		}
		stack = s->stack;
		stack[top] = c0;
		top += box_meets(&n[c0].box, box);
		stack[top] = c1;
		top += box_meets(&n[c1].box, box);
	}
	*visits += seen;
	return true;
}

/* ---- building in one go ---- */

/// A leaf waiting for its place: its proxy and box, and the box's centre
/// doubled.
typedef struct pending {
	int32_t proxy;
	const imp_box *box;
	double c[3];
} pending;

/// Moves the k-th smallest (by axis `a` of the centre) of p[0..n) to p[k],
/// smaller ones before it, larger after (Hoare's selection).
static void select_kth(pending *p, int32_t n, int32_t k, int a)
{
	int32_t lo = 0, hi = n - 1;
	while (lo < hi) {
		double pivot = p[lo + (hi - lo) / 2].c[a];
		int32_t i = lo, j = hi;
		while (i <= j) {
			while (p[i].c[a] < pivot)
				i++;
			while (p[j].c[a] > pivot)
				j--;
			if (i <= j) {
				pending x = p[i];
				p[i++] = p[j];
				p[j--] = x;
			}
		}
		if (k <= j)
			hi = j;
		else if (k >= i)
			lo = i;
		else
			break;
	}
}

/// The subtree over p[0..n): split at the median along the axis where the
/// centres spread most. Its height is ceil(log2 n), and two halves differ
/// by at most one leaf, so the balance the incremental updates keep holds.
static int32_t build_range(imp_tree *t, pending *p, int32_t n)
{
	// Nodes are taken in pre-order (a node, then its first subtree, then
	// the second): a subtree lies together in memory, leaves near each
	// other in space near each other in memory.
	int32_t i = node_take(t);
	if (n == 1) {
		t->nodes[i].box = *p[0].box;
		t->nodes[i].proxy = p[0].proxy;
		t->leaf_of[p[0].proxy] = i;
		return i;
	}
	double lo[3] = {p[0].c[0], p[0].c[1], p[0].c[2]}, hi[3] = {lo[0], lo[1], lo[2]};
	for (int32_t i = 1; i < n; i++)
		for (int k = 0; k < t->dim; k++) {
			lo[k] = p[i].c[k] < lo[k] ? p[i].c[k] : lo[k];
			hi[k] = p[i].c[k] > hi[k] ? p[i].c[k] : hi[k];
		}
	int a = 0;
	for (int k = 1; k < t->dim; k++)
		if (hi[k] - lo[k] > hi[a] - lo[a])
			a = k;
	int32_t half = n / 2;
	select_kth(p, n, half, a);
	int32_t left = build_range(t, p, half), right = build_range(t, p + half, n - half);
	tnode *x = &t->nodes[i];
	x->child[0] = left;
	x->child[1] = right;
	t->nodes[left].parent = t->nodes[right].parent = i;
	x->box = imp_box_union(&t->nodes[left].box, &t->nodes[right].box);
	x->height = 1 + imax(t->nodes[left].height, t->nodes[right].height);
	return i;
}

bool imp_tree_build(imp_tree *t, const int32_t *proxies, const imp_box *const *boxes, int32_t n, int32_t max_proxy)
{
	imp_tree_free(t); // the wide copy with the rest
	if (n == 0) {
		// Out of memory part way: what the reserve had grown freed too.
		if (imp_tree_reserve(t, max_proxy > 0 ? max_proxy : 0))
			return true;
		imp_tree_free(t);
		return false;
	}
	pending *p = imp_alloc(t->alloc, (size_t)n * sizeof *p);
	bool ok = p != NULL && imp_grow(t->alloc, (void **)&t->nodes, &t->cap, 2 * n + 2, sizeof *t->nodes) &&
		  imp_grow(t->alloc, (void **)&t->leaf_of, &t->leaf_cap, max_proxy + 1, sizeof *t->leaf_of);
	if (!ok) {
		imp_free(t->alloc, p, (size_t)n * sizeof *p);
		imp_tree_free(t);
		return false;
	}
	for (int32_t i = t->cap - 1; i >= 0; i--) {
		t->nodes[i].height = NONE;
		t->nodes[i].parent = t->free_list;
		t->free_list = i;
	}
	for (int32_t i = 0; i < t->leaf_cap; i++)
		t->leaf_of[i] = NONE;
	for (int32_t i = 0; i < n; i++) {
		p[i].proxy = proxies[i];
		p[i].box = boxes[i];
		for (int k = 0; k < 3; k++)
			p[i].c[k] = boxes[i]->lo[k] + boxes[i]->hi[k];
	}
	t->leaves = n;
	t->root = build_range(t, p, n);
	t->nodes[t->root].parent = NONE;
	imp_free(t->alloc, p, (size_t)n * sizeof *p);
	return true;
}

#define ENTRY_LESS(x, y) ((x).lb < (y).lb)
IMP_DEFINE_HEAP(queue, tree_entry, ENTRY_LESS)

/// The greedy step of the nearest searches: the search goes on to e,
/// within the bound, when no entry of the queue comes before it (true);
/// otherwise e joins the queue.
IMP_ALWAYS_INLINE bool go_on(tree_entry *h, int32_t *count, tree_entry e, tree_entry *cur)
{
	if (*count == 0 || e.lb <= h[0].lb) {
		*cur = e;
		return true;
	}
	queue_push(h, (*count)++, e);
	return false;
}

/// The queue's least entry into *cur; false when the queue is empty or
/// that entry is past the bound (so is every other).
IMP_ALWAYS_INLINE bool take_next(tree_entry *h, int32_t *count, double bkey, tree_entry *cur)
{
	if (*count == 0)
		return false;
	*cur = queue_pop(h, (*count)--);
	return cur->lb <= bkey;
}

/// The four lanes' keys (imp_box_key of the lanes' boxes) from `box`; an
/// empty lane's means nothing. The float boxes hold the binary nodes'
/// boxes, and the gaps are taken in doubles by imp_box_key's operations in
/// its order, each monotonic in the box's sides: so no key comes out
/// above the binary node's own. For a finite query box (an infinite
/// side could meet a float side rounded out to the same infinity: NaN).
/// `dim` axes (a constant where it is inlined).
#if defined(__SSE2__)
IMP_ALWAYS_INLINE void wide_keys(const wnode *w, const imp_box *box, int dim, double key[4])
{
	// Two lanes a register, in doubles.
	__m128d zero = _mm_setzero_pd();
	for (int h = 0; h < 2; h++) {
		__m128d m = _mm_set1_pd(-INFINITY), sum = zero;
		for (int a = 0; a < dim; a++) {
			__m128 lo4 = _mm_load_ps(w->lo[a]), hi4 = _mm_load_ps(w->hi[a]);
			if (h == 1) {
				lo4 = _mm_movehl_ps(lo4, lo4);
				hi4 = _mm_movehl_ps(hi4, hi4);
			}
			__m128d g = _mm_max_pd(_mm_sub_pd(_mm_cvtps_pd(lo4), _mm_set1_pd(box->hi[a])),
					       _mm_sub_pd(_mm_set1_pd(box->lo[a]), _mm_cvtps_pd(hi4)));
			m = _mm_max_pd(m, g);
			__m128d p = _mm_max_pd(g, zero);
			sum = _mm_add_pd(sum, _mm_mul_pd(p, p));
		}
		__m128d apart = _mm_cmpgt_pd(m, zero);
		__m128d k = _mm_or_pd(_mm_and_pd(apart, sum), _mm_andnot_pd(apart, _mm_sub_pd(zero, _mm_mul_pd(m, m))));
		_mm_storeu_pd(&key[2 * h], k);
	}
}
#else
IMP_ALWAYS_INLINE void wide_keys(const wnode *w, const imp_box *box, int dim, double key[4])
{
	for (int j = 0; j < 4; j++) {
		imp_box b = lane_box(w, j);
		key[j] = imp_box_key(&b, box, dim);
	}
}
#endif

/// imp_tree_nearest on the wide copy: entries are wide nodes (index >= 0)
/// and leaves (-1 - proxy), keyed by their lane's box; the node in hand
/// goes on to its nearest lane when no entry of the queue comes before it.
static void wide_nearest(const imp_tree *t, const imp_box *box, double bound, imp_tree_visit_fn *fn, void *ctx,
			 imp_tree_scratch *s, uint64_t *visits)
{
	tree_entry *h = s->heap;
	int32_t count = 0;
	uint64_t seen = 0;
	double bkey = bound * fabs(bound);
	tree_entry cur = {-INFINITY, 0};
	for (;;) {
		if (cur.node < 0) {
			bound = fn(ctx, -1 - cur.node, bound);
			bkey = bound * fabs(bound);
		} else {
			const wnode *w = &t->wide[cur.node];
			if (!heap_room(s, count + 4))
				break;
			h = s->heap;
			double key[4];
			if (t->dim == 3)
				wide_keys(w, box, 3, key);
			else
				wide_keys(w, box, 2, key);
			seen += 4;
			// The lanes within the bound (not empty lanes, whose key +inf
			// an infinite bound would let through).
			unsigned in = 0;
			for (int j = 0; j < 4; j++)
				in |= (unsigned)(key[j] <= bkey) << j;
			in &= w->lanes;
			int near = -1;
			for (int j = 0; j < 4; j++)
				if ((in >> j & 1u) && (near < 0 || key[j] < key[near]))
					near = j;
			for (int j = 0; j < 4; j++)
				if (j != near && (in >> j & 1u)) {
					int32_t c = w->child[j];
					if (c >= 0) {
						IMP_PREFETCH(&t->wide[c]);
						IMP_PREFETCH((const char *)&t->wide[c] + 64);
					}
					queue_push(h, count++, (tree_entry){key[j], c});
				}
			if (near >= 0 && go_on(h, &count, (tree_entry){key[near], w->child[near]}, &cur))
				continue;
		}
		if (!take_next(h, &count, bkey, &cur))
			break;
	}
	*visits += seen;
}

void imp_tree_nearest(const imp_tree *t, const imp_box *box, bool wide, double bound, imp_tree_visit_fn *fn,
		      void *ctx, imp_tree_scratch *s, uint64_t *visits)
{
	if (t->root == NONE)
		return;
	// The copy's keys need a finite query box (wide_keys); this sum is
	// finite only when every side is.
	double sides = box->lo[0] + box->lo[1] + box->lo[2] + box->hi[0] + box->hi[1] + box->hi[2];
	if (isfinite(sides) && wide) {
		wide_nearest(t, box, bound, fn, ctx, s, visits);
		return;
	}
	// Best first, nodes keyed by imp_box_key (no square root). The node in
	// hand goes on to its nearer child directly when that child is no
	// farther than the queue's least, as it is on most steps down: only
	// the farther children go through the queue. A depth-first walk cost
	// less per node but looked at a third more leaves, each a narrow-phase
	// query, before its bound fell as far.
	const tnode *n = t->nodes;
	tree_entry *h = s->heap;
	int32_t count = 0;
	uint64_t seen = 1;
	double bkey = bound * fabs(bound);
	tree_entry cur = {imp_box_key(&n[t->root].box, box, t->dim), t->root};
	if (cur.lb <= bkey) {
		for (;;) {
			const tnode *nd = &n[cur.node];
			if (nd->height == 0) {
				bound = fn(ctx, nd->proxy, bound);
				bkey = bound * fabs(bound);
			} else {
				if (!heap_room(s, count + 2))
					break;
				h = s->heap;
				tree_entry near = {imp_box_key(&n[nd->child[0]].box, box, t->dim), nd->child[0]};
				tree_entry far = {imp_box_key(&n[nd->child[1]].box, box, t->dim), nd->child[1]};
				seen += 2;
				if (far.lb < near.lb) {
					tree_entry e = near;
					near = far;
					far = e;
				}
				if (far.lb <= bkey)
					queue_push(h, count++, far);
				if (near.lb <= bkey && go_on(h, &count, near, &cur))
					continue;
			}
			if (!take_next(h, &count, bkey, &cur))
				break;
		}
	}
	*visits += seen;
}

int32_t imp_tree_height(const imp_tree *t)
{
	return t->root == NONE ? 0 : t->nodes[t->root].height;
}

bool imp_tree_valid(const imp_tree *t)
{
	// Every node's box holds its children's, heights are right, parents
	// point back, and every leaf is found by its proxy. (Balance is not
	// strict: a leaf inserted next to a tall subtree leaves its new parent
	// lopsided, and one rotation per node on the way up only evens what it
	// can, as in the other dynamic trees.)
	int32_t leaves = 0;
	for (int32_t i = 0; i < t->cap; i++) {
		const tnode *x = &t->nodes[i];
		if (x->height < 0)
			continue;
		if (x->height == 0) {
			leaves++;
			if (x->proxy < 0 || x->proxy >= t->leaf_cap || t->leaf_of[x->proxy] != i)
				return false;
			continue;
		}
		const tnode *a = &t->nodes[x->child[0]], *b = &t->nodes[x->child[1]];
		if (a->parent != i || b->parent != i || x->height != 1 + imax(a->height, b->height))
			return false;
		if (!imp_box_contains(&x->box, &a->box, t->dim) || !imp_box_contains(&x->box, &b->box, t->dim))
			return false;
	}
	return leaves == t->leaves && (t->root == NONE || t->nodes[t->root].parent == NONE);
}
