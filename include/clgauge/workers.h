/* A small pool of threads that splits one piece of host work at a time into parts: the caller
 * runs part 0 itself, the pool's threads the others, and the call returns when every part is
 * done. For host work that sits between the device's commands (pinned linear's gather of each
 * group's rows), where one core's memory bandwidth is what the device waits for. */
#ifndef CLGAUGE_WORKERS_H
#define CLGAUGE_WORKERS_H

#include "clgauge/error.h"

typedef struct cg_workers cg_workers;

/* fn(ctx, part, parts) for one part of parts; parts run at the same time, each on its own
 * thread, and must not touch the same memory. */
typedef void (*cg_work_fn)(void *ctx, int part, int parts);

/* A pool of `threads` parts (the caller's thread and threads - 1 more), 1 to
 * CG_WORKERS_MAX; threads that cannot be started are a CG_ERROR naming the count. */
enum { CG_WORKERS_MAX = 64 };
cg_rc cg_workers_create(int threads, cg_workers **out, cg_error *err);

/* The parts the pool splits work into (its threads, the caller's included). */
int cg_workers_parts(const cg_workers *w);

/* Run fn over the pool's parts and wait for all of them. Not reentrant: one caller at a time. */
void cg_workers_run(cg_workers *w, cg_work_fn fn, void *ctx);

/* Stop and join the threads; NULL is allowed. */
void cg_workers_free(cg_workers *w);

/* Online processors, at least 1. */
int cg_online_cpus(void);

#endif
