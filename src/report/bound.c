/* Records against the measured ceilings: the roofline bound, the verdict in words, and the
 * guard against implausible figures. Pure: a record and a probe in, figures and words out. */
#include "clgauge/bound.h"
#include "clgauge/report.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A share of the steady time at or above this names what limits a record. */
#define VERDICT_SHARE 0.5

void cg_bound_clear(cg_bound *b) {
  memset(b, 0, sizeof *b);
  b->probe = -1;
  b->launches = -1;
  b->peak_share = b->bandwidth_share = NAN;
  b->compute_ms = b->memory_ms = b->launch_ms = b->bound_ms = b->of_bound = NAN;
}

/* "%.3g" of a time in ms, as us below a millisecond. */
static const char *fmt_time(double ms, char *buf, size_t size) {
  if (!isfinite(ms))
    snprintf(buf, size, "-");
  else if (ms < 1)
    snprintf(buf, size, "%.3g us", ms * 1e3);
  else
    snprintf(buf, size, "%.3g ms", ms);
  return buf;
}

static void steady_verdict(const cg_record *rec, const cg_probe *probe, cg_bound *b,
                           double steady) {
  char t[5][32];
  if (!isfinite(steady) || steady <= 0) {
    snprintf(b->steady, sizeof b->steady, "no steady runs to assess");
    return;
  }
  if (!(b->bound_ms > 0)) {
    snprintf(b->steady, sizeof b->steady, "no bound: the probe has no ceiling for its work");
    return;
  }
  /* the uploads that no compute hides (linear's batches), measured on the device */
  double transfer = NAN;
  if (isfinite(rec->batch_upload_ms))
    transfer = rec->batch_upload_ms * (1 - (isfinite(rec->upload_hidden) ? rec->upload_hidden : 0));
  const double terms[4] = {b->compute_ms, b->memory_ms, b->launch_ms, transfer};
  int top = -1;
  for (int i = 0; i < 4; ++i)
    if (isfinite(terms[i]) && (top < 0 || terms[i] > terms[top])) top = i;
  const double share = top >= 0 ? terms[top] / steady : 0;
  fmt_time(steady, t[0], sizeof t[0]);
  fmt_time(b->compute_ms, t[2], sizeof t[2]);
  fmt_time(b->memory_ms, t[3], sizeof t[3]);
  fmt_time(b->launch_ms, t[4], sizeof t[4]);
  if (top < 0 || share < VERDICT_SHARE) {
    snprintf(b->steady, sizeof b->steady,
             "far from every bound: %s per iteration, %.3gx its bound of %s (compute %s, "
             "memory %s, launches %s)",
             t[0], b->of_bound, fmt_time(b->bound_ms, t[1], sizeof t[1]), t[2], t[3], t[4]);
    return;
  }
  const double gflops = rec->flops_per_iter / steady / 1e6;
  const double gbs = rec->bytes_per_iter / steady / 1e6;
  switch (top) {
  case 0:
    snprintf(b->steady, sizeof b->steady,
             "compute-bound: %.0f%% of the FP32 peak (%.4g of %.4g GFLOP/s, %s)",
             100 * b->peak_share, gflops, probe->fp32_gflops, probe->fp32_from);
    break;
  case 1:
    snprintf(b->steady, sizeof b->steady,
             "memory-bound: %.0f%% of the measured bandwidth (%.4g of %.4g GB/s, %s)%s",
             100 * b->bandwidth_share, gbs, probe->bandwidth_gbs, probe->bandwidth_from,
             b->memory_in_cache ? "; its bytes fit in the last-level cache" : "");
    break;
  case 2:
    snprintf(b->steady, sizeof b->steady,
             "launch-bound: %s%d launches x %.3g us = %s of the %s iteration (compute %s, "
             "memory %s)",
             b->launches_at_least ? "at least " : "", b->launches, probe->launch_us, t[4], t[0],
             t[2], t[3]);
    break;
  default:
    snprintf(b->steady, sizeof b->steady,
             "transfer-bound: uploads no compute hides take %s of the %s iteration (%.0f%% of the "
             "upload hidden)",
             fmt_time(transfer, t[1], sizeof t[1]), t[0],
             100 * (isfinite(rec->upload_hidden) ? rec->upload_hidden : 0));
  }
}

static void first_verdict(const cg_record *rec, cg_bound *b) {
  if (rec->host_backend) return;
  const double parts[4] = {rec->init_ms, rec->compile_ms, rec->upload_ms, rec->first.complete_ms};
  static const char *const names[4] = {"context", "compile", "upload", "first-run"};
  static const char *const labels[4] = {"context", "compile", "upload", "first run"};
  double total = 0;
  int top = -1;
  for (int i = 0; i < 4; ++i) {
    if (!isfinite(parts[i])) continue;
    total += parts[i];
    if (top < 0 || parts[i] > parts[top]) top = i;
  }
  if (top < 0 || total <= 0) return;
  char list[160] = "";
  for (int i = 0; i < 4; ++i)
    if (isfinite(parts[i]) && i != top)
      snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s %.3g", list[0] ? ", " : "",
               labels[i], parts[i]);
  if (parts[top] >= VERDICT_SHARE * total)
    snprintf(b->first, sizeof b->first, "run 0 %s-bound: %s %.3g of %.3g ms (%s ms)%s",
             names[top], labels[top], parts[top], total, list,
             top == 3 && strcmp(rec->compile_kind, "lazy") == 0 ? "; the library compiles there"
                                                                 : "");
  else
    snprintf(b->first, sizeof b->first, "run 0 spread over its parts: %.3g ms (%s %.3g, %s ms)",
             total, labels[top], parts[top], list);
}

void cg_bound_assess(const cg_record *rec, const cg_probe *probe, cg_bound *out) {
  const int index = out->probe;
  cg_bound_clear(out);
  out->probe = index;
  const double steady = cg_per_iter(rec->steady_complete.median, rec->iters_per_run);
  const bool has_flops = isfinite(rec->flops_per_iter) && rec->flops_per_iter > 0;
  const bool has_bytes = isfinite(rec->bytes_per_iter) && rec->bytes_per_iter > 0;
  out->compute_ms = has_flops && probe->fp32_gflops > 0
                        ? rec->flops_per_iter / probe->fp32_gflops / 1e6 : 0;
  /* An iteration's bytes that fit in the last-level cache can stay there from one iteration
   * to the next and beat the memory term: the verdict says so, and the guard does not flag a
   * rate above the bandwidth then. */
  out->memory_in_cache = has_bytes && isfinite(probe->cache_bytes) &&
                         rec->bytes_per_iter <= probe->cache_bytes;
  out->memory_ms = has_bytes && probe->bandwidth_gbs > 0
                       ? rec->bytes_per_iter / probe->bandwidth_gbs / 1e6 : 0;
  out->launches = rec->launches_per_iter;
  if (out->launches < 0 && rec->launches_at_least >= 0) {
    out->launches = rec->launches_at_least;
    out->launches_at_least = true;
  }
  out->launch_ms = out->launches > 0 && isfinite(probe->launch_us)
                       ? out->launches * probe->launch_us / 1e3 : 0;
  out->bound_ms = fmax(out->compute_ms, fmax(out->memory_ms, out->launch_ms));
  if (isfinite(steady) && steady > 0) {
    if (has_flops) out->peak_share = rec->flops_per_iter / steady / 1e6 / probe->fp32_gflops;
    if (has_bytes) out->bandwidth_share = rec->bytes_per_iter / steady / 1e6 / probe->bandwidth_gbs;
    if (out->bound_ms > 0) out->of_bound = steady / out->bound_ms;
  }
  steady_verdict(rec, probe, out, steady);
  first_verdict(rec, out);
}

/* ---- implausible figures ---- */

__attribute__((format(printf, 3, 4))) static void reason(char *why, size_t size, const char *fmt,
                                                         ...) {
  const size_t used = strlen(why);
  if (used + 3 >= size) return;
  if (used) snprintf(why + used, size - used, "; ");
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(why + strlen(why), size - strlen(why), fmt, ap);
  va_end(ap);
}

static void over_ceiling(char *why, size_t size, const char *what, double rate, double ceiling,
                         const char *unit, const char *ceiling_name) {
  if (isfinite(rate) && isfinite(ceiling) && ceiling > 0 &&
      rate > (1 + CG_CEILING_MARGIN) * ceiling)
    reason(why, size, "%s %.4g %s is %.0f%% above the measured %s (%.4g %s)", what, rate, unit,
           100 * (rate / ceiling - 1), ceiling_name, ceiling, unit);
}

void cg_implausible_check(const cg_record *rec, const cg_probe *probe, char *why, size_t size) {
  why[0] = '\0';
  if (rec->status != CG_STATUS_OK) return;
  const int it = rec->iters_per_run;
  if (probe) {
    const double wall = rec->steady_complete.median, dev = rec->steady_device.median;
    over_ceiling(why, size, "the steady", cg_gflops(rec->flops_per_iter * it, wall),
                 probe->fp32_gflops, "GFLOP/s", "FP32 peak");
    over_ceiling(why, size, "by device time", cg_gflops(rec->flops_per_iter * it, dev),
                 probe->fp32_gflops, "GFLOP/s", "FP32 peak");
    const bool in_cache = isfinite(probe->cache_bytes) && rec->bytes_per_iter <= probe->cache_bytes;
    if (!in_cache) {
      over_ceiling(why, size, "the steady", cg_gflops(rec->bytes_per_iter * it, wall),
                   probe->bandwidth_gbs, "GB/s", "bandwidth");
      over_ceiling(why, size, "by device time", cg_gflops(rec->bytes_per_iter * it, dev),
                   probe->bandwidth_gbs, "GB/s", "bandwidth");
    }
  }
  /* device time within wall time: the device cannot work longer than the host waited for it */
  const double resolution_ms =
      (probe && isfinite(probe->timer_ns) ? probe->timer_ns : CG_DEFAULT_TIMER_NS) / 1e6;
  int over = 0, first = -1;
  for (int i = 0; i < rec->nruns; ++i) {
    const cg_run_sample *s = &rec->runs[i];
    if (isfinite(s->device_ms) && isfinite(s->complete_ms) &&
        s->device_ms > s->complete_ms + resolution_ms) {
      if (first < 0) first = i;
      ++over;
    }
  }
  if (over)
    reason(why, size,
           "device time exceeds wall time in %d run%s (run %d: %.4g ms on the device, %.4g ms "
           "of wall time)",
           over, over > 1 ? "s" : "", first, rec->runs[first].device_ms,
           rec->runs[first].complete_ms);
  /* the events' own stamps: the reasons of src/opencl/events.c that name the timestamps
   * (zero, placeholder or inconsistent ones; not a backend that takes no events) */
  if (!rec->host_backend && strstr(rec->device_time_why, "timestamps"))
    reason(why, size, "device timestamps unusable: %s", rec->device_time_why);
  const cg_stats *st = &rec->steady_complete;
  if (st->n >= 2 && st->min > 0 && st->max / st->min > CG_SPREAD_LIMIT)
    reason(why, size, "steady runs from %.4g to %.4g ms (max/min %.2g > %g): the median means little",
           st->min, st->max, st->max / st->min, CG_SPREAD_LIMIT);
  else if (st->n >= 1 && !(st->min > 0))
    reason(why, size, "a steady run took no time (%.4g ms)", st->min);
}

/* ---- the report's probes ---- */

int cg_report_add_probe(cg_report *report, const cg_probe *probe) {
  cg_probe *grown = realloc(report->probes, (size_t)(report->nprobes + 1) * sizeof *grown);
  if (!grown) return -1;
  report->probes = grown;
  report->probes[report->nprobes] = *probe;
  return report->nprobes++;
}

int cg_report_probe_for(const cg_report *report, const cg_record *rec) {
  for (int i = report->nprobes - 1; i >= 0; --i) {
    const cg_probe *p = &report->probes[i];
    if (rec->host_backend ? p->host
                          : !p->host && cg_probe_matches(p, rec->device, rec->platform, rec->driver))
      return i;
  }
  return -1;
}

void cg_report_assess(cg_report *report) {
  for (int i = 0; i < report->count; ++i) {
    cg_record *rec = &report->records[i];
    const int index = cg_report_probe_for(report, rec);
    const cg_probe *probe = index >= 0 ? &report->probes[index] : NULL;
    cg_bound_clear(&rec->bound);
    if (probe && rec->status == CG_STATUS_OK) {
      rec->bound.probe = index;
      cg_bound_assess(rec, probe, &rec->bound);
    }
    cg_implausible_check(rec, probe, rec->implausible, sizeof rec->implausible);
  }
}
