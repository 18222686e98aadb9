// SPDX-License-Identifier: MIT
// uthash, configured for impact: memory through the caller's allocator,
// out of memory reported instead of exit(), and a fast hash for the small
// fixed-size integer keys impact uses.
//
// A function that adds to or deletes from a table must have in scope
//   const imp_allocator *uth_alloc;   (the allocator, may be NULL)
//   bool uth_oom;                     (set to true when an add failed)
// An add that fails leaves the table as it was, the item not in it.
#ifndef IMPACT_CORE_UTHASH_IMP_H
#define IMPACT_CORE_UTHASH_IMP_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "core/alloc.h"

/// A 32-bit hash of a key of whole 32-bit words (8 or 16 bytes in impact):
/// the words folded with a multiply-xorshift mixer.
static inline unsigned imp_hash_key(const void *key, size_t len)
{
	const unsigned char *p = key;
	uint64_t h = 0x9e3779b97f4a7c15u ^ len;
	size_t i = 0;
	for (; i + 8 <= len; i += 8) {
		uint64_t w;
		memcpy(&w, p + i, 8);
		h = (h ^ w) * 0xff51afd7ed558ccdu;
		h ^= h >> 32;
	}
	for (; i < len; i++)
		h = (h ^ p[i]) * 0x100000001b3u;
	h ^= h >> 29;
	h *= 0xc4ceb9fe1a85ec53u;
	h ^= h >> 32;
	return (unsigned)h;
}

#define HASH_NONFATAL_OOM 1
#define uthash_malloc(sz) imp_alloc(uth_alloc, (sz))
#define uthash_free(ptr, sz) imp_free(uth_alloc, (ptr), (sz))
#define uthash_nonfatal_oom(obj) (uth_oom = true)
#define HASH_FUNCTION(keyptr, keylen, hashv) ((hashv) = imp_hash_key((keyptr), (keylen)))

#include <uthash.h>

#endif
