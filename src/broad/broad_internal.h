// SPDX-License-Identifier: MIT
// What the three broad phases share: the proxies' boxes and states, the
// callback, the counters. Each kind keeps its own structure in `impl`.
#ifndef IMPACT_BROAD_INTERNAL_H
#define IMPACT_BROAD_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>

#include "broad/broad.h"
#include "broad/tree.h"
#include "core/alloc.h"

enum { PROXY_ABSENT = 0, PROXY_MOVING = 1, PROXY_STATIC = 2 };

typedef struct imp_broad_proxy {
	imp_box box;
	int32_t state; ///< PROXY_xxx
	int32_t level; ///< hash: the box's level
} imp_broad_proxy;

struct imp_broad {
	imp_broad_kind kind;
	int dim;
	double alpha, beta;
	const imp_allocator *alloc;
	imp_broad_pair_fn *fn;
	void *ctx;
	imp_broad_counters counters;
	imp_broad_proxy *proxy;
	int32_t cap;     ///< room in proxy
	int32_t live;
	void *impl;
	imp_tree tree;   ///< the query tree, made at the first query (tree_ready)
	/// Set (released) once the tree is made; queries on several threads
	/// at once make it, and its wide copy, once, under `lock`.
	atomic_bool tree_ready;
	pthread_mutex_t lock;
};

static inline bool both_static(const imp_broad *b, int32_t p, int32_t q)
{
	return b->proxy[p].state == PROXY_STATIC && b->proxy[q].state == PROXY_STATIC;
}

// The kinds' own halves: create/destroy their impl; insert and move are
// called after the common part has stored the new box (old box given for
// move); remove before the common part forgets the proxy.
imp_status imp_sweep_create(imp_broad *b);
void imp_sweep_destroy(imp_broad *b);
imp_status imp_sweep_insert(imp_broad *b, int32_t p);
imp_status imp_sweep_move(imp_broad *b, int32_t p, const imp_box *old);
void imp_sweep_remove(imp_broad *b, int32_t p);
void imp_sweep_flush(imp_broad *b);

imp_status imp_hash_create(imp_broad *b);
void imp_hash_destroy(imp_broad *b);
imp_status imp_hash_insert(imp_broad *b, int32_t p);
imp_status imp_hash_move(imp_broad *b, int32_t p, const imp_box *old);
void imp_hash_remove(imp_broad *b, int32_t p);

bool imp_sweep_query(const imp_broad *b, const imp_box *box, imp_broad_query_fn *fn, void *ctx);
bool imp_hash_query(const imp_broad *b, const imp_box *box, imp_broad_query_fn *fn, void *ctx);
/// Every live proxy tested: the naive kind's query, and the others' when
/// their structure would visit more.
bool imp_broad_query_all(const imp_broad *b, const imp_box *box, imp_broad_query_fn *fn, void *ctx);

#endif
