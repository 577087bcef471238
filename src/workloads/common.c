/* Shared by the workloads: record planning and creation, device opening, per-run times, steady
 * statistics. */
#include "workloads/common.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clgauge/clock.h"
#include "clgauge/events.h"
#include "clgauge/stats.h"

int plan_records(cg_variants_of variants_of, const char *const *backends,
                 const char *const *variants, record_plan *plan, int max) {
  int n = 0;
  for (const cg_backend *const *b = cg_backend_all(); *b; ++b) {
    const char *const *vs = variants_of(*b);
    if (!vs || !cg_backend_selected(backends, *b)) continue;
    for (int v = 0; vs[v] && n < max; ++v)
      if (cg_variant_selected(variants, vs, vs[v])) plan[n++] = (record_plan){*b, vs[v]};
  }
  return n;
}

cg_record *start_record(cg_report *report, const char *workload, const record_plan *plan,
                        const cg_device_info *device) {
  cg_record *rec = cg_report_add(report);
  if (!rec) return NULL;
  snprintf(rec->workload, sizeof rec->workload, "%s", workload);
  snprintf(rec->backend, sizeof rec->backend, "%s", plan->backend->name);
  snprintf(rec->variant, sizeof rec->variant, "%s", plan->variant);
  rec->host_backend = !plan->backend->uses_opencl;
  if (rec->host_backend) {
    snprintf(rec->device, sizeof rec->device, "host CPU");
    rec->device_type = "CPU";
  } else if (device) {
    cg_record_set_device(rec, device);
  } else {
    cg_record_set_status(rec, CG_STATUS_SKIPPED, "no OpenCL device");
  }
  return rec;
}

void fail_record(cg_record *rec, cg_rc rc, const cg_error *err) {
  if (rc != CG_OK)
    cg_record_set_status(rec, rc == CG_UNSUPPORTED ? CG_STATUS_UNSUPPORTED : CG_STATUS_ERROR, "%s",
                         err->msg);
}

cg_rc run_timer_open(run_timer *t, cg_record *rec, int max_runs, const cg_backend *backend,
                     const cg_device_info *info, const progress_hook *hook, cg_device **dev,
                     cg_error *err) {
  cg_rc rc = CG_OK;
  memset(t, 0, sizeof *t);
  t->rec = rec;
  t->hook = *hook;
  rec->planned_runs = max_runs;
  t->cap = max_runs;
  t->device_time = true;
  rec->runs = calloc((size_t)max_runs, sizeof *rec->runs);
  t->complete = calloc((size_t)max_runs, sizeof *t->complete);
  t->enqueue = calloc((size_t)max_runs, sizeof *t->enqueue);
  t->device = calloc((size_t)max_runs, sizeof *t->device);
  CG_CHECK(rec->runs && t->complete && t->enqueue && t->device, CG_ERROR, "out of memory");
  *dev = NULL;
  if (!backend->uses_opencl) {
    t->device_time = false;
    snprintf(rec->device_time_why, sizeof rec->device_time_why, "runs on the host");
    goto cleanup;
  }
  uint64_t t0 = cg_now_ns();
  CG_TRY(cg_device_open(info, dev, err));
  rec->init_ms = cg_ns_to_ms(cg_now_ns() - t0);
  if (!info->profiling) {
    t->device_time = false;
    snprintf(rec->device_time_why, sizeof rec->device_time_why,
             "device does not support profiling");
  }
cleanup:
  return rc;
}

void run_timer_steady_begin(run_timer *t) {
  t->steady_cpu0 = cg_cpu_ns();
  t->steady_wall0 = cg_now_ns();
}

void run_timer_begin(run_timer *t) { t->s0 = t->s1 = cg_now_ns(); }
void run_timer_enqueued(run_timer *t) { t->s1 = cg_now_ns(); }

void run_timer_end(run_timer *t, int kind, int iters, cg_device_span *span) {
  uint64_t s2 = cg_now_ns();
  cg_record *rec = t->rec;
  double dev_ms = NAN;
  if (t->device_time) {
    const char *why = NULL;
    if (!cg_device_span_ms(span, &dev_ms, &why)) {
      t->device_time = false;
      snprintf(rec->device_time_why, sizeof rec->device_time_why, "%s", why);
    }
  }
  cg_device_span_release(span);
  if (kind == RUN_UNTIMED || rec->nruns == t->cap) return;
  cg_run_sample sample = {cg_ns_to_ms(t->s1 - t->s0), cg_ns_to_ms(s2 - t->s0), dev_ms, iters,
                          NAN, NAN};
  rec->runs[rec->nruns++] = sample;
  if (t->hook.fn) t->hook.fn(t->hook.ctx, t->hook.index, t->hook.total, rec);
  if (kind == RUN_FIRST) rec->first = sample;
  if (kind != RUN_STEADY) return;
  t->complete[t->nsteady] = sample.complete_ms;
  t->enqueue[t->nsteady] = sample.enqueue_ms;
  t->device[t->nsteady] = sample.device_ms;
  t->nsteady++;
}

void run_timer_close(run_timer *t) {
  cg_record *rec = t->rec;
  if (t->nsteady > 0) {
    rec->host_cpu_ms = cg_ns_to_ms(cg_cpu_ns() - t->steady_cpu0);
    rec->host_wall_ms = cg_ns_to_ms(cg_now_ns() - t->steady_wall0);
  }
  cg_stats_compute(t->complete, t->nsteady, &rec->steady_complete);
  cg_stats_compute(t->enqueue, t->nsteady, &rec->steady_enqueue);
  if (t->device_time) {
    cg_stats_compute(t->device, t->nsteady, &rec->steady_device);
  } else {
    for (int i = 0; i < rec->nruns; ++i) rec->runs[i].device_ms = NAN;
    rec->first.device_ms = NAN;
  }
  free(t->complete);
  free(t->enqueue);
  free(t->device);
  memset(t, 0, sizeof *t);
}

void record_compile(cg_record *rec, const cg_compile_info *compile, const cg_device_info *info) {
  rec->compile_ms = compile->ms;
  snprintf(rec->compile_kind, sizeof rec->compile_kind, "%s", compile->kind);
  if (info && strcmp(compile->kind, "none") != 0)
    snprintf(rec->driver_cache, sizeof rec->driver_cache, "%s", cg_driver_cache_state(info));
}
