// SPDX-License-Identifier: MIT
// The world's own thread pool (pool.h).
//
// A task is published under the lock with a new generation number and a
// broadcast; each thread that wakes for it takes ranges from a shared
// atomic counter until none is left, as the caller does. The caller then
// retires the task (a thread waking later sees none) and waits, under the
// lock, for the threads still inside it to leave, so that nothing reads
// the task's context after imp_pool_run returns. Threads sleep on a
// condition variable between tasks: an idle world costs no processor time.
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "core/alloc.h"
#include "core/pool.h"

typedef struct pool_thread {
	struct imp_pool *pool;
	pthread_t thread;
	int worker;
} pool_thread;

struct imp_pool {
	imp_allocator alloc;
	pthread_mutex_t lock;
	pthread_cond_t wake;  ///< a new task (or the end) for the threads
	pthread_cond_t left;  ///< the last thread inside a task left it
	pool_thread *threads;
	int thread_count;
	bool quit;
	uint64_t generation;  ///< counts the tasks published
	int inside;           ///< threads working on the current task

	// The current task (task NULL: retired), read under the lock.
	imp_task_fn *task;
	void *context;
	int count, range, ranges;
	atomic_int next;      ///< the next range to take
};

/// Takes ranges of the current task until none is left.
static void run_ranges(struct imp_pool *p, imp_task_fn *task, void *context, int count, int range, int ranges,
		       int worker)
{
	for (;;) {
		int r = atomic_fetch_add_explicit(&p->next, 1, memory_order_relaxed);
		if (r >= ranges)
			return;
		int start = r * range;
		int end = count - start > range ? start + range : count;
		task(start, end, worker, context);
	}
}

static void *thread_main(void *arg)
{
	pool_thread *t = arg;
	struct imp_pool *p = t->pool;
	uint64_t seen = 0;
	pthread_mutex_lock(&p->lock);
	for (;;) {
		while (!p->quit && p->generation == seen)
			pthread_cond_wait(&p->wake, &p->lock);
		if (p->quit)
			break;
		seen = p->generation;
		if (p->task == NULL)
			continue; // woke after the task was retired
		imp_task_fn *task = p->task;
		void *context = p->context;
		int count = p->count, range = p->range, ranges = p->ranges;
		p->inside++;
		pthread_mutex_unlock(&p->lock);
		run_ranges(p, task, context, count, range, ranges, t->worker);
		pthread_mutex_lock(&p->lock);
		if (--p->inside == 0)
			pthread_cond_signal(&p->left);
	}
	pthread_mutex_unlock(&p->lock);
	return NULL;
}

static void stop_threads(struct imp_pool *p, int started)
{
	pthread_mutex_lock(&p->lock);
	p->quit = true;
	pthread_cond_broadcast(&p->wake);
	pthread_mutex_unlock(&p->lock);
	for (int i = 0; i < started; i++)
		pthread_join(p->threads[i].thread, NULL);
}

imp_status imp_pool_create(const imp_allocator *a, int threads, imp_pool **out)
{
	struct imp_pool *p = imp_alloc(a, sizeof *p);
	if (p == NULL)
		return IMP_ERR_OUT_OF_MEMORY;
	memset(p, 0, sizeof *p);
	p->alloc = *a;
	p->threads = imp_alloc(a, (size_t)threads * sizeof *p->threads);
	if (p->threads == NULL) {
		imp_free(a, p, sizeof *p);
		return IMP_ERR_OUT_OF_MEMORY;
	}
	atomic_init(&p->next, 0);
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->wake, NULL);
	pthread_cond_init(&p->left, NULL);
	int started = 0;
	for (; started < threads; started++) {
		pool_thread *t = &p->threads[started];
		t->pool = p;
		t->worker = started + 1;
		if (pthread_create(&t->thread, NULL, thread_main, t) != 0)
			break;
	}
	p->thread_count = started;
	if (started < threads) {
		imp_pool_destroy(p);
		return IMP_ERR_OUT_OF_MEMORY;
	}
	*out = p;
	return IMP_OK;
}

void imp_pool_destroy(imp_pool *p)
{
	if (p == NULL)
		return;
	stop_threads(p, p->thread_count);
	pthread_cond_destroy(&p->left);
	pthread_cond_destroy(&p->wake);
	pthread_mutex_destroy(&p->lock);
	imp_allocator a = p->alloc;
	imp_free(&a, p->threads, (size_t)p->thread_count * sizeof *p->threads);
	imp_free(&a, p, sizeof *p);
}

void imp_pool_run(imp_pool *p, imp_task_fn *task, int count, int min_range, void *context)
{
	if (count <= 0)
		return;
	if (min_range < 1)
		min_range = 1;
	// About sixteen ranges a worker, none below min_range: ranges whose
	// items cost unevenly (the poses along a path) even out.
	int workers = p->thread_count + 1;
	int64_t want = ((int64_t)count + 16 * workers - 1) / (16 * workers);
	int range = want > min_range ? (int)want : min_range;
	int ranges = (int)(((int64_t)count + range - 1) / range);
	if (ranges <= 1) {
		task(0, count, 0, context);
		return;
	}
	pthread_mutex_lock(&p->lock);
	p->task = task;
	p->context = context;
	p->count = count;
	p->range = range;
	p->ranges = ranges;
	atomic_store_explicit(&p->next, 0, memory_order_relaxed);
	p->generation++;
	pthread_cond_broadcast(&p->wake);
	pthread_mutex_unlock(&p->lock);

	run_ranges(p, task, context, count, range, ranges, 0);

	pthread_mutex_lock(&p->lock);
	p->task = NULL;
	while (p->inside > 0)
		pthread_cond_wait(&p->left, &p->lock);
	pthread_mutex_unlock(&p->lock);
}
