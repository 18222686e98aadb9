// SPDX-License-Identifier: MIT
// Sort-and-sweep (I-Collide; Mirtich 1998, §2.3): the boxes' end-points
// kept sorted along each axis. A moved box's end-points are moved to their
// places by insertion (coherence: a few exchanges each). An exchange of a
// box's min with another's max starts or ends their overlap on that axis:
//   a min passing below a max, or a max above a min: they may now overlap;
//     the two whole boxes are tested and the pair reported added if so;
//   a max passing below a min, or a min above a max: they stop overlapping.
// The last report of a pair in one move is its state after the move: if
// it is an "added", the whole boxes were tested at their new places; if a
// "removed", the two are apart on that axis. A pair with no exchange kept
// its state on every axis.
//
// At equal values a min sorts before a max, so boxes that touch overlap.
#include <string.h>

#include "broad/broad_internal.h"

typedef struct endpoint {
	double v;
	int32_t id; ///< proxy * 2 + (1 for a max), -1 for a removed proxy's
} endpoint;

typedef struct sweep {
	endpoint *ep[3];
	int32_t count;    ///< end-points per axis, dead ones included
	int32_t ep_cap[3];
	int32_t *pos;     ///< per proxy, per axis, min then max: index in ep[axis], -1 if not stored
	int32_t pos_cap;  ///< proxies
	int32_t dead;     ///< dead end-points per axis
	bool inserting;   ///< during an insert the proxy has no pairs: no "removed"
} sweep;

static inline bool ep_less(endpoint a, endpoint b)
{
	return a.v < b.v || (a.v == b.v && (a.id & 1) < (b.id & 1));
}

static inline int32_t *pos_of(sweep *sw, int32_t p, int k, int is_max)
{
	return &sw->pos[p * 6 + k * 2 + is_max];
}

imp_status imp_sweep_create(imp_broad *b)
{
	sweep *sw = imp_alloc(b->alloc, sizeof *sw);
	if (sw == NULL)
		return IMP_ERR_OUT_OF_MEMORY;
	memset(sw, 0, sizeof *sw);
	b->impl = sw;
	return IMP_OK;
}

void imp_sweep_destroy(imp_broad *b)
{
	sweep *sw = b->impl;
	for (int k = 0; k < 3; k++)
		imp_free(b->alloc, sw->ep[k], (size_t)sw->ep_cap[k] * sizeof(endpoint));
	imp_free(b->alloc, sw->pos, (size_t)sw->pos_cap * 6 * sizeof(int32_t));
	imp_free(b->alloc, sw, sizeof *sw);
}

/// The overlap of p and q may have begun on one axis.
static void may_begin(imp_broad *b, int32_t p, int32_t q)
{
	if (both_static(b, p, q))
		return;
	b->counters.box_tests++;
	if (imp_box_overlap(&b->proxy[p].box, &b->proxy[q].box, b->dim))
		b->fn(b->ctx, p, q, true);
}

static void ended(imp_broad *b, int32_t p, int32_t q)
{
	sweep *sw = b->impl;
	if (!sw->inserting && !both_static(b, p, q))
		b->fn(b->ctx, p, q, false);
}

static void sort_down(imp_broad *b, int k, int32_t i)
{
	sweep *sw = b->impl;
	endpoint *a = sw->ep[k];
	endpoint e = a[i];
	int32_t p = e.id >> 1;
	int e_max = e.id & 1;
	while (i > 0 && ep_less(e, a[i - 1])) {
		endpoint f = a[i - 1];
		int f_max = f.id & 1;
		if (e_max != f_max) {
			if (e_max)
				ended(b, p, f.id >> 1);
			else
				may_begin(b, p, f.id >> 1);
		}
		a[i] = f;
		*pos_of(sw, f.id >> 1, k, f_max) = i;
		i--;
		b->counters.swaps++;
	}
	a[i] = e;
	*pos_of(sw, p, k, e_max) = i;
}

static void sort_up(imp_broad *b, int k, int32_t i)
{
	sweep *sw = b->impl;
	endpoint *a = sw->ep[k];
	endpoint e = a[i];
	int32_t p = e.id >> 1;
	int e_max = e.id & 1;
	int32_t last = sw->count - 1;
	while (i < last && ep_less(a[i + 1], e)) {
		endpoint f = a[i + 1];
		int f_max = f.id & 1;
		if (e_max != f_max) {
			if (e_max)
				may_begin(b, p, f.id >> 1);
			else
				ended(b, p, f.id >> 1);
		}
		a[i] = f;
		*pos_of(sw, f.id >> 1, k, f_max) = i;
		i++;
		b->counters.swaps++;
	}
	a[i] = e;
	*pos_of(sw, p, k, e_max) = i;
}

static void sort_endpoint(imp_broad *b, int k, int32_t i)
{
	const endpoint *a = ((sweep *)b->impl)->ep[k];
	if (i > 0 && ep_less(a[i], a[i - 1]))
		sort_down(b, k, i);
	else
		sort_up(b, k, i);
}

/// Drops the dead end-points of removed proxies, in one pass per axis.
static void compact(imp_broad *b)
{
	sweep *sw = b->impl;
	int32_t n = 0;
	for (int k = 0; k < b->dim; k++) {
		endpoint *a = sw->ep[k];
		n = 0;
		for (int32_t i = 0; i < sw->count; i++) {
			if (a[i].id < 0)
				continue;
			a[n] = a[i];
			*pos_of(sw, a[i].id >> 1, k, a[i].id & 1) = n;
			n++;
		}
	}
	sw->count = n;
	sw->dead = 0;
}

imp_status imp_sweep_insert(imp_broad *b, int32_t p)
{
	sweep *sw = b->impl;
	if (sw->dead > 0)
		compact(b);
	if (p >= sw->pos_cap) {
		int32_t old = sw->pos_cap;
		int32_t need = p + 1;
		int64_t n = old > 0 ? old : 16;
		while (n < need)
			n *= 2;
		void *np = imp_realloc(b->alloc, sw->pos, (size_t)old * 6 * sizeof(int32_t), (size_t)n * 6 * sizeof(int32_t));
		if (np == NULL)
			return IMP_ERR_OUT_OF_MEMORY;
		sw->pos = np;
		sw->pos_cap = (int32_t)n;
		memset(sw->pos + (size_t)old * 6, 0xff, (size_t)(n - old) * 6 * sizeof(int32_t));
	}
	for (int k = 0; k < 6; k++)
		sw->pos[p * 6 + k] = -1;
	for (int k = 0; k < b->dim; k++)
		if (!imp_grow(b->alloc, (void **)&sw->ep[k], &sw->ep_cap[k], sw->count + 2, sizeof(endpoint)))
			return IMP_ERR_OUT_OF_MEMORY;
	const imp_box *box = &b->proxy[p].box;
	int32_t n = sw->count;
	sw->inserting = true;
	for (int k = 0; k < b->dim; k++) {
		// The min first: it meets the others' maxes (may begin); the max,
		// sorted after it, only the others' mins (ends: none, it is new).
		sw->ep[k][n] = (endpoint){box->lo[k], p * 2};
		sort_down(b, k, n);
		sw->ep[k][n + 1] = (endpoint){box->hi[k], p * 2 + 1};
		sort_down(b, k, n + 1);
	}
	sw->count = n + 2;
	sw->inserting = false;
	return IMP_OK;
}

imp_status imp_sweep_move(imp_broad *b, int32_t p, const imp_box *old)
{
	sweep *sw = b->impl;
	if (sw->dead > 0)
		compact(b);
	const imp_box *box = &b->proxy[p].box;
	for (int k = 0; k < b->dim; k++) {
		int32_t imin = *pos_of(sw, p, k, 0), imax = *pos_of(sw, p, k, 1);
		sw->ep[k][imin].v = box->lo[k];
		sw->ep[k][imax].v = box->hi[k];
		// Move first the end-point that leads, so that neither has to pass
		// the other.
		if (box->lo[k] < old->lo[k]) {
			sort_endpoint(b, k, imin);
			sort_endpoint(b, k, *pos_of(sw, p, k, 1));
		} else {
			sort_endpoint(b, k, imax);
			sort_endpoint(b, k, *pos_of(sw, p, k, 0));
		}
	}
	return IMP_OK;
}

void imp_sweep_remove(imp_broad *b, int32_t p)
{
	sweep *sw = b->impl;
	if (p >= sw->pos_cap || *pos_of(sw, p, 0, 0) < 0)
		return;
	for (int k = 0; k < b->dim; k++) {
		for (int m = 0; m < 2; m++) {
			int32_t *i = pos_of(sw, p, k, m);
			sw->ep[k][*i].id = -1;
			*i = -1;
		}
	}
	sw->dead += 2;
}
