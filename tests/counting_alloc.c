// SPDX-License-Identifier: MIT
// The counting allocator of the error tests.
#include "counting_alloc.h"

#include <stdlib.h>
#include <string.h>

#define HDR 16

static void *block_alloc(counting *c, size_t size)
{
	unsigned char *p = malloc(size + HDR);
	if (!p)
		return NULL;
	memcpy(p, &size, sizeof size);
	c->allocs++;
	c->live++;
	return p + HDR;
}

static void *c_alloc(size_t size, void *user)
{
	counting *c = user;
	if (!c->only_realloc && c->calls++ == c->fail_at)
		return NULL;
	return block_alloc(c, size);
}

static void *c_realloc(void *ptr, size_t old_size, size_t new_size, void *user)
{
	counting *c = user;
	if (c->calls++ == c->fail_at)
		return NULL;
	if (!ptr)
		return block_alloc(c, new_size);
	unsigned char *h = (unsigned char *)ptr - HDR;
	size_t stored;
	memcpy(&stored, h, sizeof stored);
	if (stored != old_size)
		c->size_mismatch = true;
	unsigned char *p = realloc(h, new_size + HDR);
	if (!p)
		return NULL;
	memcpy(p, &new_size, sizeof new_size);
	c->reallocs++;
	return p + HDR;
}

static void c_free(void *ptr, size_t size, void *user)
{
	counting *c = user;
	if (!ptr)
		return;
	unsigned char *h = (unsigned char *)ptr - HDR;
	size_t stored;
	memcpy(&stored, h, sizeof stored);
	if (stored != size)
		c->size_mismatch = true;
	c->frees++;
	c->live--;
	free(h);
}

imp_allocator counting_allocator(counting *c)
{
	imp_allocator a = {c_alloc, c_realloc, c_free, c};
	return a;
}
