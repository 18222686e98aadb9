// SPDX-License-Identifier: MIT
// Mirtich's hierarchical spatial hash, coherent variant (Mirtich 1998,
// §2.1-2.2; docs/broad.md).
//
// Levels are cell sizes rho_L = r^L with r = beta / alpha, L any integer:
// a box of size sz (its largest side) lives at the finest level with
// alpha <= sz / rho_L <= beta, i.e. L = ceil(log_r(sz / beta)), so the
// levels are those of the sizes present and a new size adds a level. A box
// is stored in the cells it overlaps at its own level ("own") and at every
// coarser level present ("guest"). Two boxes are close when they share a
// cell at the coarser of their two levels: in a cell, an own box counts
// with every box, a guest only with own boxes. A counter per close pair
// holds the number of such shared cells. A close pair whose boxes overlap
// is in the set the broad phase reports (the same set as the other kinds):
// a pair that becomes close is reported added if the boxes overlap; one
// that stops being close is reported removed if they overlapped (the
// registered boxes: a moving box's is still the old one then); and after a
// move, each close pair met in the box's cells is reported if the overlap
// of the old box and of the new differ. A moved box enters and
// leaves only the cells that changed (entering first, so that a counter
// never drops to 0 and back within a move). Static boxes never pair with
// each other and, never moving, are stored once.
//
// Cells are a uthash table, holding their members in two small arrays;
// counters small open-addressing tables, one per block of ranks.
#include <math.h>
#include <string.h>

#include "broad/broad_internal.h"
#include "core/uthash_imp.h"

#define CELL_CLAMP 1073741824.0 /* 2^30: far cells merge, which only adds close pairs */
#define LEVEL_MIN (-2000)
#define LEVEL_NONE INT32_MIN
#define RHO_SLOTS 16
/// The parameters the hash uses (docs/broad.md): beta at most BETA_MAX, so
/// that a box enters at most (BETA_MAX + 1)^dim cells at a level (a
/// larger beta sent a sphere of radius 0.1 into 400^3 cells: gigabytes for
/// two bodies), and levels RATIO_MIN to RATIO_MAX times apart (a ratio
/// near 1 stored every box at as many levels as there are sizes; a huge
/// one put boxes in cells millions of times their size, every pair close).
/// Any level assignment is correct (a box is stored at its own level and
/// every coarser one present); these keep the memory linear in the boxes.
#define BETA_MAX 4.0
#define RATIO_MIN 2.0
#define RATIO_MAX 16.0

typedef struct member_list {
	int32_t *items;
	int32_t count, cap;
} member_list;

typedef struct cell {
	int32_t key[4];      ///< level, i, j, k
	member_list own, guest;
	UT_hash_handle hh;
} cell;

/// A close pair's counter: a slot of an open-addressing table (linear
/// probing, at most half full); count 0 marks an empty slot.
/// One cache line per look-up where a chained table walked a chain of
/// separate nodes: the counters are the most visited memory of an insert
/// (16 close pairs a box in the 3D uniform scene).
typedef struct counter {
	uint32_t lo, hi;     ///< the pair's proxies, lo < hi
	int32_t count;       ///< shared cells; 0: an empty slot
} counter;

/// The counters are not one table but one small table per block of
/// RANK_BLOCK ranks, holding the counters whose later rank lies in the
/// block. A proxy's rank is its place in the order of inserts (the ranks
/// of removed proxies are handed out again), so when a batch is inserted
/// in spatial order (imp_broad_morton) each insert's new counters have its
/// own rank and go to the block the inserts before it were filling: the
/// tables are written one after the other, each while it is in cache.
/// One table hashed over all the counters took a cache and a TLB miss a
/// counter once it outgrew them, and grew by doubling, the whole table
/// copied each time: the first update of 1,000,000 boxes made its 16.8
/// million counters in a 1 GB table after copies through 512 MB, 256 MB and
/// so on, where 100,000 boxes needed 64 MB (docs/broad.md). Each block
/// grows on its own, to three times its counters (any size: a home is the
/// hash's place scaled to the table), so the memory follows the counters.
typedef struct counter_table {
	counter *slots;      ///< cap slots (NULL: none yet)
	uint32_t cap, used;
} counter_table;

#define RANK_BLOCK_BITS 6
#define RANK_BLOCK (1 << RANK_BLOCK_BITS)
#define COUNTERS_MIN 16

typedef struct range {
	int32_t lo[3], hi[3];
} range;

typedef struct hash {
	double log_r;        ///< log(beta / alpha)
	int32_t lmin, lmax;  ///< the levels whose cell size is a finite, nonzero double
	int32_t *levels;     ///< the levels present, ascending (fine to coarse)
	int32_t level_count, level_cap;
	int32_t *level_own;  ///< own boxes per level present
	int32_t level_own_cap;
	imp_box *reg;        ///< per proxy: the box its cells were registered with
	int32_t reg_cap;
	cell *cells;
	counter_table *tables; ///< per block of RANK_BLOCK ranks, table_cap of them
	int32_t table_cap;
	int32_t *rank;       ///< per proxy: its rank, -1 when it has none
	int32_t rank_cap;
	int32_t *free_ranks; ///< ranks handed back by removed proxies (a stack)
	int32_t free_count, free_cap;
	int32_t next_rank;   ///< ranks handed out so far: every rank is below it
	uint64_t counter_used; ///< counters in all the tables
	double rho[RHO_SLOTS];         ///< cell sizes of recent levels
	int32_t rho_level[RHO_SLOTS];  ///< their levels, LEVEL_NONE when empty
} hash;

/* ---- levels and cells ---- */

/// rho_L = (beta / alpha)^L, remembered per level in a small direct-mapped
/// table: pow is the dearest part of finding a box's cells.
static double cell_size(hash *h, int32_t level, const imp_broad *b)
{
	int i = (int)((uint32_t)level & (RHO_SLOTS - 1));
	if (h->rho_level[i] != level) {
		h->rho[i] = pow(b->beta / b->alpha, level);
		h->rho_level[i] = level;
	}
	return h->rho[i];
}

static int32_t level_of(const imp_broad *b, hash *h, const imp_box *box)
{
	double sz = 0.0;
	for (int k = 0; k < b->dim; k++)
		sz = fmax(sz, box->hi[k] - box->lo[k]);
	if (!(sz > 0.0))
		return h->lmin;
	double t = ceil(log(sz / b->beta) / h->log_r);
	if (!(t > h->lmin))
		return h->lmin;
	if (!(t < h->lmax))
		return h->lmax;
	int32_t level = (int32_t)t;
	// Rounding of log: the finest level whose cells are at least sz / beta.
	while (level > h->lmin && cell_size(h, level - 1, b) * b->beta >= sz)
		level--;
	while (level < h->lmax && cell_size(h, level, b) * b->beta < sz)
		level++;
	return level;
}

static int32_t cell_coord(double x, double rho)
{
	double c = floor(x / rho);
	if (!(c > -CELL_CLAMP))
		return (int32_t)-CELL_CLAMP;
	if (!(c < CELL_CLAMP))
		return (int32_t)CELL_CLAMP;
	return (int32_t)c;
}

static range range_of(const imp_broad *b, hash *h, const imp_box *box, int32_t level)
{
	double rho = cell_size(h, level, b);
	range r = {{0, 0, 0}, {0, 0, 0}};
	for (int k = 0; k < b->dim; k++) {
		r.lo[k] = cell_coord(box->lo[k], rho);
		r.hi[k] = cell_coord(box->hi[k], rho);
	}
	return r;
}

static bool range_equal(const range *a, const range *b)
{
	return memcmp(a, b, sizeof *a) == 0;
}

static bool in_range(const range *r, const int32_t c[3])
{
	for (int k = 0; k < 3; k++)
		if (c[k] < r->lo[k] || c[k] > r->hi[k])
			return false;
	return true;
}

/* ---- counters ---- */

static bool pairs_with(const imp_broad *b, int32_t p, int32_t q)
{
	return p != q && !both_static(b, p, q);
}

/// A pair's first slot in a table of cap slots: a hash of the pair scaled
/// to the table.
static uint32_t counter_home(uint32_t lo, uint32_t hi, uint32_t cap)
{
	uint64_t key = (uint64_t)lo << 32 | hi;
	key ^= key >> 33;
	key *= 0xff51afd7ed558ccdu;
	key ^= key >> 33;
	return (uint32_t)(((key & 0xffffffffu) * cap) >> 32);
}

/// The slot of t holding the pair lo < hi, or the empty slot where it would go.
static uint32_t counter_slot(const counter_table *t, uint32_t lo, uint32_t hi)
{
	uint32_t cap = t->cap, i = counter_home(lo, hi, cap);
	while (t->slots[i].count != 0 && (t->slots[i].lo != lo || t->slots[i].hi != hi))
		i = i + 1 < cap ? i + 1 : 0;
	return i;
}

/// The table of the pair p, q: its block's, by the later of their ranks.
static counter_table *table_of(const hash *h, int32_t p, int32_t q)
{
	int32_t a = h->rank[p], c = h->rank[q];
	return &h->tables[(a > c ? a : c) >> RANK_BLOCK_BITS];
}

/// Room for one more counter in t (at most half full): a table of three
/// times its counters when full, or for a block's first table, of 2.25
/// times what a block holds on average (so that the blocks a batch of
/// inserts fills are made at their size, not grown through a dozen
/// copies); false when out of memory, the table as it was.
static bool counters_reserve(imp_broad *b, hash *h, counter_table *t)
{
	uint64_t need = (uint64_t)t->used + 1;
	if (2 * need <= (uint64_t)t->cap)
		return true;
	uint64_t cap = 3 * need;
	if (t->cap == 0 && h->next_rank > 0) {
		double guess = 2.25 * (double)h->counter_used / h->next_rank * RANK_BLOCK;
		if (guess > (double)cap && guess < (double)(1u << 24))
			cap = (uint64_t)guess;
	}
	if (cap < COUNTERS_MIN)
		cap = COUNTERS_MIN;
	if (cap > UINT32_MAX / 2)
		return false;
	counter *n = imp_alloc(b->alloc, (size_t)cap * sizeof *n);
	if (n == NULL)
		return false;
	memset(n, 0, (size_t)cap * sizeof *n);
	counter *old = t->slots;
	uint32_t old_cap = t->cap;
	t->slots = n;
	t->cap = (uint32_t)cap;
	for (uint32_t i = 0; i < old_cap; i++)
		if (old[i].count != 0)
			t->slots[counter_slot(t, old[i].lo, old[i].hi)] = old[i];
	imp_free(b->alloc, old, (size_t)old_cap * sizeof *old);
	return true;
}

/// Counts one more shared cell for p and q; false when out of memory.
static bool count_up(imp_broad *b, hash *h, int32_t p, int32_t q)
{
	uint32_t lo = (uint32_t)(p < q ? p : q), hi = (uint32_t)(p < q ? q : p);
	counter_table *t = table_of(h, p, q);
	uint32_t i = 0, cap = t->cap;
	if (cap > 0) {
		i = counter_slot(t, lo, hi);
		if (t->slots[i].count != 0) {
			t->slots[i].count++;
			return true;
		}
	}
	if (!counters_reserve(b, h, t))
		return false;
	if (t->cap != cap) // grown: the pair's empty slot has moved
		i = counter_slot(t, lo, hi);
	counter *c = &t->slots[i];
	c->lo = lo;
	c->hi = hi;
	c->count = 1;
	t->used++;
	h->counter_used++;
	b->counters.box_tests++;
	if (imp_box_overlap(&b->proxy[p].box, &b->proxy[q].box, b->dim))
		b->fn(b->ctx, p, q, true);
	return true;
}

/// Empties slot i of t, moving back the entries after it that probing
/// would no longer find (deletion without tombstones).
static void counter_delete(counter_table *t, uint32_t i)
{
	uint32_t cap = t->cap;
	for (uint32_t j = i + 1 < cap ? i + 1 : 0; t->slots[j].count != 0; j = j + 1 < cap ? j + 1 : 0) {
		uint32_t k = counter_home(t->slots[j].lo, t->slots[j].hi, cap);
		// j's entry may fill the hole at i unless its home lies in (i, j].
		bool stays = i <= j ? (i < k && k <= j) : (i < k || k <= j);
		if (stays)
			continue;
		t->slots[i] = t->slots[j];
		i = j;
	}
	t->slots[i].count = 0;
	t->used--;
}

static void count_down(imp_broad *b, hash *h, int32_t p, int32_t q)
{
	counter_table *t = table_of(h, p, q);
	if (t->cap == 0)
		return;
	uint32_t lo = (uint32_t)(p < q ? p : q), hi = (uint32_t)(p < q ? q : p);
	uint32_t i = counter_slot(t, lo, hi);
	counter *c = &t->slots[i];
	if (c->count == 0 || --c->count > 0)
		return;
	counter_delete(t, i);
	h->counter_used--;
	b->counters.box_tests++;
	if (imp_box_overlap(&h->reg[p], &h->reg[q], b->dim))
		b->fn(b->ctx, p, q, false);
}

/// The box of p changed from `old` (still p's registered box) to its
/// proxy box: each box met in one of p's cells that p pairs with is
/// reported if the two overlaps differ. A pair met in several cells is
/// reported each time, the same way; a pair that became close in this move
/// (reported by count_up) may be reported again.
static void retest_cell(imp_broad *b, hash *h, int32_t p, bool own, const int32_t key[4])
{
	cell *c;
	HASH_FIND(hh, h->cells, key, 4 * sizeof(int32_t), c);
	if (c == NULL)
		return;
	const imp_box *old = &h->reg[p], *now = &b->proxy[p].box;
	for (int m = 0; m < 2; m++) {
		const member_list *l = m == 0 ? &c->own : &c->guest;
		if (m == 1 && !own)
			break;
		for (int32_t i = 0; i < l->count; i++) {
			int32_t q = l->items[i];
			if (!pairs_with(b, p, q))
				continue;
			b->counters.box_tests++;
			bool was = imp_box_overlap(old, &h->reg[q], b->dim);
			bool is = imp_box_overlap(now, &b->proxy[q].box, b->dim);
			if (was != is)
				b->fn(b->ctx, p, q, is);
		}
	}
}


/* ---- entering and leaving cells ---- */

static void list_remove(member_list *l, int32_t p)
{
	for (int32_t i = 0; i < l->count; i++) {
		if (l->items[i] == p) {
			l->items[i] = l->items[--l->count];
			return;
		}
	}
}


/// Leaves one cell: counters down, membership dropped, an empty cell freed.
static void leave_cell(imp_broad *b, hash *h, int32_t p, bool own, const int32_t key[4])
{
	const imp_allocator *uth_alloc = b->alloc;
	cell *c;
	HASH_FIND(hh, h->cells, key, 4 * sizeof(int32_t), c);
	if (c == NULL)
		return;
	member_list *mine = own ? &c->own : &c->guest;
	int32_t before = mine->count;
	list_remove(mine, p);
	if (mine->count == before)
		return; // not there (a rolled-back entry)
	b->counters.cell_visits++;
	for (int32_t i = 0; i < c->own.count; i++)
		if (pairs_with(b, p, c->own.items[i]))
			count_down(b, h, p, c->own.items[i]);
	if (own)
		for (int32_t i = 0; i < c->guest.count; i++)
			if (pairs_with(b, p, c->guest.items[i]))
				count_down(b, h, p, c->guest.items[i]);
	if (c->own.count == 0 && c->guest.count == 0) {
		HASH_DEL(h->cells, c);
		imp_free(b->alloc, c->own.items, (size_t)c->own.cap * sizeof(int32_t));
		imp_free(b->alloc, c->guest.items, (size_t)c->guest.cap * sizeof(int32_t));
		imp_free(b->alloc, c, sizeof *c);
	}
}

static void free_cell_if_empty(imp_broad *b, hash *h, cell *c)
{
	const imp_allocator *uth_alloc = b->alloc;
	if (c->own.count > 0 || c->guest.count > 0)
		return;
	HASH_DEL(h->cells, c);
	imp_free(b->alloc, c->own.items, (size_t)c->own.cap * sizeof(int32_t));
	imp_free(b->alloc, c->guest.items, (size_t)c->guest.cap * sizeof(int32_t));
	imp_free(b->alloc, c, sizeof *c);
}

/// Enters one cell; false when out of memory, the cell and counters as they were.
static bool enter_cell(imp_broad *b, hash *h, int32_t p, bool own, const int32_t key[4])
{
	const imp_allocator *uth_alloc = b->alloc;
	bool uth_oom = false;
	cell *c;
	HASH_FIND(hh, h->cells, key, 4 * sizeof(int32_t), c);
	if (c == NULL) {
		c = imp_alloc(b->alloc, sizeof *c);
		if (c == NULL)
			return false;
		memset(c, 0, sizeof *c);
		memcpy(c->key, key, sizeof c->key);
		HASH_ADD(hh, h->cells, key, sizeof c->key, c);
		if (uth_oom) {
			imp_free(b->alloc, c, sizeof *c);
			return false;
		}
	}
	member_list *mine = own ? &c->own : &c->guest;
	if (!imp_grow(b->alloc, (void **)&mine->items, &mine->cap, mine->count + 1, sizeof *mine->items)) {
		free_cell_if_empty(b, h, c);
		return false;
	}
	b->counters.cell_visits++;
	int32_t n_own = 0, n_guest = 0;
	bool ok = true;
	for (; n_own < c->own.count; n_own++) {
		int32_t q = c->own.items[n_own];
		if (pairs_with(b, p, q) && !count_up(b, h, p, q)) {
			ok = false;
			break;
		}
	}
	if (ok && own) {
		for (; n_guest < c->guest.count; n_guest++) {
			int32_t q = c->guest.items[n_guest];
			if (pairs_with(b, p, q) && !count_up(b, h, p, q)) {
				ok = false;
				break;
			}
		}
	}
	if (ok) {
		mine->items[mine->count++] = p;
		return true;
	}
	for (int32_t i = 0; i < n_own; i++)
		if (pairs_with(b, p, c->own.items[i]))
			count_down(b, h, p, c->own.items[i]);
	for (int32_t i = 0; i < n_guest; i++)
		if (pairs_with(b, p, c->guest.items[i]))
			count_down(b, h, p, c->guest.items[i]);
	free_cell_if_empty(b, h, c);
	return false;
}

/// Every cell of a range, in a fixed order: calls visit(key) for each cell
/// of `r` that is not in `skip` (NULL: none); stops at the first false.
/// Returns the number of cells visited before the stop, or -1 if none
/// stopped.
typedef struct range_walk {
	imp_broad *b;
	hash *h;
	int32_t p;
	int32_t level;
	bool own;
} range_walk;

static void leave_range(const range_walk *rw, const range *r, const range *keep)
{
	int32_t key[4] = {rw->level, 0, 0, 0};
	for (int32_t i = r->lo[0]; i <= r->hi[0]; i++)
		for (int32_t j = r->lo[1]; j <= r->hi[1]; j++)
			for (int32_t k = r->lo[2]; k <= r->hi[2]; k++) {
				key[1] = i, key[2] = j, key[3] = k;
				if (keep == NULL || !in_range(keep, key + 1))
					leave_cell(rw->b, rw->h, rw->p, rw->own, key);
			}
}

/// Enters the cells of r not in `have`; on failure leaves those entered and
/// returns false.
static bool enter_range(const range_walk *rw, const range *r, const range *have)
{
	int32_t key[4] = {rw->level, 0, 0, 0};
	for (int32_t i = r->lo[0]; i <= r->hi[0]; i++)
		for (int32_t j = r->lo[1]; j <= r->hi[1]; j++)
			for (int32_t k = r->lo[2]; k <= r->hi[2]; k++) {
				key[1] = i, key[2] = j, key[3] = k;
				if (have != NULL && in_range(have, key + 1))
					continue;
				if (enter_cell(rw->b, rw->h, rw->p, rw->own, key))
					continue;
				// Undo: leave the cells of r before this one (and not in have).
				for (int32_t i2 = r->lo[0]; i2 <= r->hi[0]; i2++)
					for (int32_t j2 = r->lo[1]; j2 <= r->hi[1]; j2++)
						for (int32_t k2 = r->lo[2]; k2 <= r->hi[2]; k2++) {
							if (i2 == i && j2 == j && k2 == k)
								return false;
							int32_t c[3] = {i2, j2, k2};
							key[1] = i2, key[2] = j2, key[3] = k2;
							if (have == NULL || !in_range(have, c))
								leave_cell(rw->b, rw->h, rw->p, rw->own, key);
						}
				return false;
			}
	return true;
}

/* ---- levels ---- */

/// Index of `level` in the levels present, or -(insertion point) - 1.
static int32_t level_index(const hash *h, int32_t level)
{
	int32_t lo = 0, hi = h->level_count;
	while (lo < hi) {
		int32_t mid = (lo + hi) / 2;
		if (h->levels[mid] < level)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < h->level_count && h->levels[lo] == level ? lo : -lo - 1;
}

/// Stores proxy p (registered box reg[p], own level L) at level `at`.
static bool store(imp_broad *b, hash *h, int32_t p, int32_t at)
{
	range_walk rw = {b, h, p, at, at == b->proxy[p].level};
	range r = range_of(b, h, &h->reg[p], at);
	return enter_range(&rw, &r, NULL);
}

static void unstore(imp_broad *b, hash *h, int32_t p, int32_t at)
{
	range_walk rw = {b, h, p, at, at == b->proxy[p].level};
	range r = range_of(b, h, &h->reg[p], at);
	leave_range(&rw, &r, NULL);
}

/// Makes `level` present: every stored box of a finer level is stored
/// there too. False when out of memory (nothing changed).
static bool add_level(imp_broad *b, hash *h, int32_t level)
{
	int32_t at = level_index(h, level);
	if (at >= 0)
		return true;
	at = -at - 1;
	int32_t cap_l = h->level_cap, cap_o = h->level_own_cap;
	if (!imp_grow(b->alloc, (void **)&h->levels, &cap_l, h->level_count + 1, sizeof *h->levels))
		return false;
	h->level_cap = cap_l;
	if (!imp_grow(b->alloc, (void **)&h->level_own, &cap_o, h->level_count + 1, sizeof *h->level_own))
		return false;
	h->level_own_cap = cap_o;
	if (at > 0) {
		// Coarser than the boxes already stored below it: they become guests here.
		for (int32_t p = 0; p < b->cap; p++) {
			if (b->proxy[p].state == PROXY_ABSENT || b->proxy[p].level == LEVEL_NONE ||
			    b->proxy[p].level >= level)
				continue;
			if (!store(b, h, p, level)) {
				for (int32_t q = 0; q < p; q++)
					if (b->proxy[q].state != PROXY_ABSENT && b->proxy[q].level != LEVEL_NONE &&
					    b->proxy[q].level < level)
						unstore(b, h, q, level);
				return false;
			}
		}
	}
	memmove(h->levels + at + 1, h->levels + at, (size_t)(h->level_count - at) * sizeof *h->levels);
	memmove(h->level_own + at + 1, h->level_own + at, (size_t)(h->level_count - at) * sizeof *h->level_own);
	h->levels[at] = level;
	h->level_own[at] = 0;
	h->level_count++;
	return true;
}

/// retest_cell over every cell p is stored in (those of its proxy box;
/// reg[p] still the old box).
static void retest_all(imp_broad *b, hash *h, int32_t p)
{
	int32_t level = b->proxy[p].level;
	for (int32_t i = level_index(h, level); i < h->level_count; i++) {
		int32_t at = h->levels[i];
		range r = range_of(b, h, &b->proxy[p].box, at);
		int32_t key[4] = {at, 0, 0, 0};
		for (int32_t x = r.lo[0]; x <= r.hi[0]; x++)
			for (int32_t y = r.lo[1]; y <= r.hi[1]; y++)
				for (int32_t z = r.lo[2]; z <= r.hi[2]; z++) {
					key[1] = x, key[2] = y, key[3] = z;
					retest_cell(b, h, p, at == level, key);
				}
	}
}

/* ---- the broad-phase interface ---- */

imp_status imp_hash_create(imp_broad *b)
{
	hash *h = imp_alloc(b->alloc, sizeof *h);
	if (h == NULL)
		return IMP_ERR_OUT_OF_MEMORY;
	memset(h, 0, sizeof *h);
	for (int i = 0; i < RHO_SLOTS; i++)
		h->rho_level[i] = LEVEL_NONE;
	double ratio = fmin(fmax(b->beta / b->alpha, RATIO_MIN), RATIO_MAX);
	b->beta = fmin(b->beta, BETA_MAX);
	b->alpha = b->beta / ratio;
	h->log_r = log(b->beta / b->alpha);
	// Cell sizes between 1e-300 and 1e300.
	h->lmin = (int32_t)ceil(log(1e-300) / h->log_r);
	h->lmax = (int32_t)floor(log(1e300) / h->log_r);
	if (h->lmin < LEVEL_MIN)
		h->lmin = LEVEL_MIN;
	if (h->lmax > -LEVEL_MIN)
		h->lmax = -LEVEL_MIN;
	b->impl = h;
	return IMP_OK;
}

void imp_hash_destroy(imp_broad *b)
{
	hash *h = b->impl;
	const imp_allocator *uth_alloc = b->alloc;
	cell *c, *tmp;
	HASH_ITER(hh, h->cells, c, tmp)
	{
		HASH_DEL(h->cells, c);
		imp_free(b->alloc, c->own.items, (size_t)c->own.cap * sizeof(int32_t));
		imp_free(b->alloc, c->guest.items, (size_t)c->guest.cap * sizeof(int32_t));
		imp_free(b->alloc, c, sizeof *c);
	}
	for (int32_t i = 0; i < h->table_cap; i++)
		imp_free(b->alloc, h->tables[i].slots, (size_t)h->tables[i].cap * sizeof(counter));
	imp_free(b->alloc, h->tables, (size_t)h->table_cap * sizeof *h->tables);
	imp_free(b->alloc, h->rank, (size_t)h->rank_cap * sizeof *h->rank);
	imp_free(b->alloc, h->free_ranks, (size_t)h->free_cap * sizeof *h->free_ranks);
	imp_free(b->alloc, h->levels, (size_t)h->level_cap * sizeof *h->levels);
	imp_free(b->alloc, h->level_own, (size_t)h->level_own_cap * sizeof *h->level_own);
	imp_free(b->alloc, h->reg, (size_t)h->reg_cap * sizeof *h->reg);
	imp_free(b->alloc, h, sizeof *h);
}

/// Stores p (box reg[p], level set) at its level and every coarser one;
/// on failure nothing is stored.
static bool store_all(imp_broad *b, hash *h, int32_t p)
{
	int32_t level = b->proxy[p].level;
	if (!add_level(b, h, level))
		return false;
	int32_t first = level_index(h, level);
	for (int32_t i = first; i < h->level_count; i++) {
		if (!store(b, h, p, h->levels[i])) {
			for (int32_t j = first; j < i; j++)
				unstore(b, h, p, h->levels[j]);
			return false;
		}
	}
	h->level_own[first]++;
	return true;
}

static void unstore_all(imp_broad *b, hash *h, int32_t p)
{
	int32_t level = b->proxy[p].level;
	int32_t first = level_index(h, level);
	for (int32_t i = first; i < h->level_count; i++)
		unstore(b, h, p, h->levels[i]);
	h->level_own[first]--;
	b->proxy[p].level = LEVEL_NONE;
}

/// Gives p a rank if it has none: a free one, else the next, with its
/// block's table (empty) and room in the stack of free ranks for every
/// rank, so that a remove never allocates. False when out of memory (p
/// keeps none).
static bool rank_take(imp_broad *b, hash *h, int32_t p)
{
	int32_t old = h->rank_cap;
	if (!imp_grow(b->alloc, (void **)&h->rank, &h->rank_cap, b->cap, sizeof *h->rank))
		return false;
	for (int32_t i = old; i < h->rank_cap; i++)
		h->rank[i] = -1;
	if (h->rank[p] >= 0)
		return true;
	if (h->free_count > 0) {
		h->rank[p] = h->free_ranks[--h->free_count];
		return true;
	}
	int32_t r = h->next_rank, blocks_old = h->table_cap;
	if (r == INT32_MAX ||
	    !imp_grow(b->alloc, (void **)&h->free_ranks, &h->free_cap, r + 1, sizeof *h->free_ranks) ||
	    !imp_grow(b->alloc, (void **)&h->tables, &h->table_cap, (r >> RANK_BLOCK_BITS) + 1, sizeof *h->tables))
		return false;
	memset(h->tables + blocks_old, 0, (size_t)(h->table_cap - blocks_old) * sizeof *h->tables);
	h->rank[p] = r;
	h->next_rank = r + 1;
	return true;
}

/// p's rank back to the free ones (p has no counter left).
static void rank_give(hash *h, int32_t p)
{
	if (p >= h->rank_cap || h->rank[p] < 0)
		return;
	h->free_ranks[h->free_count++] = h->rank[p]; // rank_take made the room
	h->rank[p] = -1;
}

imp_status imp_hash_insert(imp_broad *b, int32_t p)
{
	hash *h = b->impl;
	b->proxy[p].level = LEVEL_NONE;
	if (!imp_grow(b->alloc, (void **)&h->reg, &h->reg_cap, b->cap, sizeof *h->reg) || !rank_take(b, h, p))
		return IMP_ERR_OUT_OF_MEMORY;
	h->reg[p] = b->proxy[p].box;
	b->proxy[p].level = level_of(b, h, &h->reg[p]);
	if (!store_all(b, h, p)) {
		b->proxy[p].level = LEVEL_NONE;
		return IMP_ERR_OUT_OF_MEMORY;
	}
	return IMP_OK;
}

imp_status imp_hash_move(imp_broad *b, int32_t p, const imp_box *old)
{
	(void)old;
	hash *h = b->impl;
	const imp_box *box = &b->proxy[p].box;
	int32_t level = b->proxy[p].level;
	if (level_of(b, h, box) != level) {
		// Another size class: stored again from scratch.
		imp_box before = h->reg[p];
		unstore_all(b, h, p);
		h->reg[p] = *box;
		b->proxy[p].level = level_of(b, h, box);
		if (store_all(b, h, p))
			return IMP_OK; // every pair dropped with the old box, found again with the new
		h->reg[p] = before;
		b->proxy[p].level = level_of(b, h, &before);
		if (!store_all(b, h, p))
			b->proxy[p].level = LEVEL_NONE;
		return IMP_ERR_OUT_OF_MEMORY;
	}
	int32_t first = level_index(h, level);
	for (int32_t i = first; i < h->level_count; i++) {
		int32_t at = h->levels[i];
		range was = range_of(b, h, &h->reg[p], at);
		range now = range_of(b, h, box, at);
		if (range_equal(&was, &now))
			continue;
		range_walk rw = {b, h, p, at, at == level};
		if (!enter_range(&rw, &now, &was)) {
			// The levels done so far go back to the registered box.
			for (int32_t j = first; j < i; j++) {
				int32_t at2 = h->levels[j];
				range was2 = range_of(b, h, &h->reg[p], at2);
				range now2 = range_of(b, h, box, at2);
				range_walk rw2 = {b, h, p, at2, at2 == level};
				if (range_equal(&was2, &now2))
					continue;
				// Level j holds `now2` there: enter was2 back, leave the rest.
				if (!enter_range(&rw2, &was2, &now2)) {
					// Cannot even go back: drop the proxy altogether.
					for (int32_t m = first; m < h->level_count; m++) {
						range_walk rw3 = {b, h, p, h->levels[m], h->levels[m] == level};
						range a = range_of(b, h, &h->reg[p], h->levels[m]);
						range c = range_of(b, h, box, h->levels[m]);
						leave_range(&rw3, &a, NULL);
						leave_range(&rw3, &c, NULL);
					}
					h->level_own[first]--;
					b->proxy[p].level = LEVEL_NONE;
					return IMP_ERR_OUT_OF_MEMORY;
				}
				leave_range(&rw2, &now2, &was2);
			}
			return IMP_ERR_OUT_OF_MEMORY;
		}
		leave_range(&rw, &was, &now);
	}
	retest_all(b, h, p);
	h->reg[p] = *box;
	return IMP_OK;
}

void imp_hash_remove(imp_broad *b, int32_t p)
{
	hash *h = b->impl;
	if (b->proxy[p].level != LEVEL_NONE)
		unstore_all(b, h, p);
	rank_give(h, p);
}

/* ---- queries ---- */

/// More cells than this in a query's range at one level, and more than
/// there are boxes at that level: the level's boxes are tested one by one.
#define QUERY_CELLS_MAX 64

/// Every box stored at its own level L lies in the cells of its range at
/// L, so at each level present the query visits the own members of the
/// cells its range covers. A box met in several of them is reported in one
/// only: the cell holding the low corner of the two boxes' intersection.
bool imp_hash_query(const imp_broad *b, const imp_box *box, imp_broad_query_fn *fn, void *ctx)
{
	const imp_allocator *uth_alloc = b->alloc;
	(void)uth_alloc;
	hash *h = b->impl;
	for (int32_t li = 0; li < h->level_count; li++) {
		int32_t level = h->levels[li];
		if (h->level_own[li] == 0)
			continue;
		range r = range_of(b, h, box, level);
		double cells = 1.0;
		for (int k = 0; k < b->dim; k++)
			cells *= (double)r.hi[k] - (double)r.lo[k] + 1.0;
		if (cells > QUERY_CELLS_MAX && cells > h->level_own[li]) {
			for (int32_t q = 0; q < b->cap; q++) {
				if (b->proxy[q].state == PROXY_ABSENT || b->proxy[q].level != level)
					continue;
				if (imp_box_overlap(&b->proxy[q].box, box, b->dim) && !fn(ctx, q))
					return false;
			}
			continue;
		}
		double rho = cell_size(h, level, b);
		int32_t key[4] = {level, 0, 0, 0};
		for (int32_t i = r.lo[0]; i <= r.hi[0]; i++) {
			for (int32_t j = r.lo[1]; j <= r.hi[1]; j++) {
				for (int32_t k = r.lo[2]; k <= r.hi[2]; k++) {
					key[1] = i;
					key[2] = j;
					key[3] = k;
					cell *c;
					HASH_FIND(hh, h->cells, key, 4 * sizeof(int32_t), c);
					if (c == NULL)
						continue;
					for (int32_t m = 0; m < c->own.count; m++) {
						int32_t q = c->own.items[m];
						const imp_box *qb = &b->proxy[q].box;
						if (!imp_box_overlap(qb, box, b->dim))
							continue;
						int32_t corner[3] = {0, 0, 0};
						for (int d = 0; d < b->dim; d++)
							corner[d] = cell_coord(fmax(qb->lo[d], box->lo[d]), rho);
						if (corner[0] == i && corner[1] == j && corner[2] == k && !fn(ctx, q))
							return false;
					}
				}
			}
		}
	}
	return true;
}
