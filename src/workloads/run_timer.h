/* Private to src/workloads: the phase bookkeeping every workload shares: opening the device
 * (init), timing each run (enqueue, complete, device), and the statistics of the steady runs. */
#ifndef CLGAUGE_RUN_TIMER_H
#define CLGAUGE_RUN_TIMER_H

#include <stdbool.h>
#include <stdint.h>

#include "clgauge/backend.h"
#include "clgauge/report.h"

typedef struct run_timer {
  cg_record *rec;
  int cap;
  double *complete, *enqueue, *device; /* steady samples */
  int nsteady;
  bool device_time;
  uint64_t steady_cpu0, steady_wall0;
  uint64_t s0, s1; /* the run in flight */
} run_timer;

/* Prepare for up to max_runs timed runs of the record. On an OpenCL backend, open the device and
 * time it as the init phase; *dev stays NULL for host backends. */
cg_rc run_timer_open(run_timer *t, cg_record *rec, int max_runs, const cg_backend *backend,
                     const cg_device_info *info, cg_device **dev, cg_error *err);
/* Mark the start of the steady runs (for the host CPU time they burn). */
void run_timer_steady_begin(run_timer *t);
/* Around each run: begin before the enqueue calls, enqueued after them, then end once complete.
 * `kind`: 0 the first run, 1 a steady run, 2 untimed (warm-up, or a partial run that is listed
 * but left out of the statistics: 3). */
enum { RUN_FIRST, RUN_STEADY, RUN_UNTIMED, RUN_LISTED };
void run_timer_begin(run_timer *t);
void run_timer_enqueued(run_timer *t);
void run_timer_end(run_timer *t, int kind, int iters, cg_device_span *span);
/* Compute the steady statistics and the host CPU share into the record; free the samples. */
void run_timer_close(run_timer *t);

#endif
