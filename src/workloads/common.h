/* Private to src/workloads: what every workload shares: the list of records a selection asks
 * for, a new record with its identity, and the phase bookkeeping (opening the device as init,
 * timing each run, the statistics of the steady runs). */
#ifndef CLGAUGE_WORKLOADS_COMMON_H
#define CLGAUGE_WORKLOADS_COMMON_H

#include <stdbool.h>
#include <stdint.h>

#include "clgauge/backend.h"
#include "clgauge/matmul.h"
#include "clgauge/report.h"

enum { CG_MAX_RECORDS = 64 };

/* One record a selection asks for. */
typedef struct record_plan {
  const cg_backend *backend;
  const char *variant;
} record_plan;

/* The (backend, variant) pairs selected for a workload, in report order; returns the count
 * (at most max). variants_of gives a backend's variants of the workload, NULL when it has none. */
int plan_records(cg_variants_of variants_of, const char *const *backends,
                 const char *const *variants, record_plan *plan, int max);

/* A new record of the report for the plan entry: names, device (or the host), and status
 * `skipped` when the backend needs OpenCL and there is no device. NULL when out of memory. */
cg_record *start_record(cg_report *report, const char *workload, const record_plan *plan,
                        const cg_device_info *device);

/* Mark the record `error` or `unsupported` with the error's message when rc is not CG_OK. */
void fail_record(cg_record *rec, cg_rc rc, const cg_error *err);

/* The compile phase into the record: time, kind, and the driver's own cache where something was
 * compiled on an OpenCL device (info may be NULL). */
void record_compile(cg_record *rec, const cg_compile_info *compile, const cg_device_info *info);

/* Where run_timer reports each finished run (progress lines on long runs). */
typedef struct progress_hook {
  cg_progress_fn fn; /* may be NULL */
  void *ctx;
  int index, total;
} progress_hook;

typedef struct run_timer {
  progress_hook hook;
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
                     const cg_device_info *info, const progress_hook *hook, cg_device **dev,
                     cg_error *err);
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
