/* A small pool of threads that splits one piece of host work at a time into parts, each part on
 * a thread of the pool. The caller hands a job out and may go on with other work until it waits
 * for the job: for host work that runs beside the device's commands (pinned linear's gather of a
 * group's rows while the host enqueues the group before it), where one core's memory bandwidth
 * is what the device waits for. */
#ifndef CLGAUGE_WORKERS_H
#define CLGAUGE_WORKERS_H

#include <stdint.h>

#include "clgauge/error.h"

typedef struct cg_workers cg_workers;

/* fn(ctx, part, parts) for one part of parts; parts run at the same time, each on its own
 * thread, and must not touch the same memory. */
typedef void (*cg_work_fn)(void *ctx, int part, int parts);

/* A pool of `threads` threads, one per part, 1 to CG_WORKERS_MAX; threads that cannot be
 * started are a CG_ERROR naming the count. */
enum { CG_WORKERS_MAX = 64 };
cg_rc cg_workers_create(int threads, cg_workers **out, cg_error *err);

/* The parts the pool splits work into (its threads). */
int cg_workers_parts(const cg_workers *w);

/* Hand fn over the pool's parts and return at once; ctx must stay valid until cg_workers_wait.
 * One job at a time, from one caller: wait for a job before starting the next. */
void cg_workers_start(cg_workers *w, cg_work_fn fn, void *ctx);

/* Wait until every part of the job started last is done; the job's wall time, from its start to
 * the end of its last part, in nanoseconds (0 when no job was started since the last wait). */
uint64_t cg_workers_wait(cg_workers *w);

/* Start and wait: the job's wall time in nanoseconds. */
uint64_t cg_workers_run(cg_workers *w, cg_work_fn fn, void *ctx);

/* Wait for a job still running, then stop and join the threads; NULL is allowed. */
void cg_workers_free(cg_workers *w);

/* Online processors, at least 1. */
int cg_online_cpus(void);

#endif
