/* The thread pool of workers.h: one job at a time, handed over under a lock with a generation
 * number, so that a thread never runs a job twice nor misses one. */
#include "clgauge/workers.h"

#include "clgauge/clock.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct worker {
  cg_workers *pool;
  int part;
  pthread_t thread;
} worker;

struct cg_workers {
  int parts;
  int started;           /* threads running (parts once created) */
  pthread_mutex_t lock;
  pthread_cond_t go;     /* a new job, or stop */
  pthread_cond_t done;   /* the last part of a job finished */
  unsigned long job;     /* generation: one more for every job handed out */
  int pending;           /* parts of the current job not finished yet */
  bool running;          /* a job was started and not waited for */
  uint64_t start_ns;     /* the current job's start and the end of its last part */
  uint64_t end_ns;
  bool stop;
  cg_work_fn fn;
  void *ctx;
  worker threads[CG_WORKERS_MAX];
};

static void *worker_main(void *arg) {
  worker *me = arg;
  cg_workers *w = me->pool;
  unsigned long seen = 0;
  pthread_mutex_lock(&w->lock);
  for (;;) {
    while (!w->stop && w->job == seen) pthread_cond_wait(&w->go, &w->lock);
    if (w->stop) break;
    seen = w->job;
    const cg_work_fn fn = w->fn;
    void *ctx = w->ctx;
    pthread_mutex_unlock(&w->lock);
    fn(ctx, me->part, w->parts);
    pthread_mutex_lock(&w->lock);
    if (--w->pending == 0) {
      w->end_ns = cg_now_ns();
      pthread_cond_signal(&w->done);
    }
  }
  pthread_mutex_unlock(&w->lock);
  return NULL;
}

int cg_online_cpus(void) {
  const long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n < 1 ? 1 : n > CG_WORKERS_MAX ? CG_WORKERS_MAX : (int)n;
}

cg_rc cg_workers_create(int threads, cg_workers **out, cg_error *err) {
  cg_rc rc = CG_OK;
  *out = NULL;
  cg_workers *w = NULL;
  CG_CHECK(threads >= 1 && threads <= CG_WORKERS_MAX, CG_BAD_INPUT,
           "%d host threads: between 1 and %d", threads, (int)CG_WORKERS_MAX);
  w = calloc(1, sizeof *w);
  CG_CHECK(w, CG_ERROR, "out of memory for a pool of %d host threads", threads);
  w->parts = threads;
  pthread_mutex_init(&w->lock, NULL);
  pthread_cond_init(&w->go, NULL);
  pthread_cond_init(&w->done, NULL);
  for (int i = 0; i < threads; ++i) {
    worker *t = &w->threads[i];
    t->pool = w;
    t->part = i;
    const int e = pthread_create(&t->thread, NULL, worker_main, t);
    CG_CHECK(e == 0, CG_ERROR, "cannot start host thread %d of %d: %s", i + 1, threads,
             strerror(e));
    w->started = i + 1;
  }
  *out = w;
  w = NULL;
cleanup:
  cg_workers_free(w);
  return rc;
}

int cg_workers_parts(const cg_workers *w) { return w->parts; }

void cg_workers_start(cg_workers *w, cg_work_fn fn, void *ctx) {
  pthread_mutex_lock(&w->lock);
  w->fn = fn;
  w->ctx = ctx;
  w->pending = w->parts;
  w->running = true;
  w->start_ns = cg_now_ns();
  ++w->job;
  pthread_cond_broadcast(&w->go);
  pthread_mutex_unlock(&w->lock);
}

uint64_t cg_workers_wait(cg_workers *w) {
  pthread_mutex_lock(&w->lock);
  while (w->pending > 0) pthread_cond_wait(&w->done, &w->lock);
  const uint64_t ns = w->running ? w->end_ns - w->start_ns : 0;
  w->running = false;
  pthread_mutex_unlock(&w->lock);
  return ns;
}

uint64_t cg_workers_run(cg_workers *w, cg_work_fn fn, void *ctx) {
  cg_workers_start(w, fn, ctx);
  return cg_workers_wait(w);
}

void cg_workers_free(cg_workers *w) {
  if (!w) return;
  cg_workers_wait(w);
  pthread_mutex_lock(&w->lock);
  w->stop = true;
  pthread_cond_broadcast(&w->go);
  pthread_mutex_unlock(&w->lock);
  for (int i = 0; i < w->started; ++i) pthread_join(w->threads[i].thread, NULL);
  pthread_cond_destroy(&w->go);
  pthread_cond_destroy(&w->done);
  pthread_mutex_destroy(&w->lock);
  free(w);
}
