/* Host clocks, process CPU time, device time from OpenCL profiling events, and statistics. */
#include "clgauge/timing.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

uint64_t cg_now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

uint64_t cg_cpu_ns(void) {
  struct rusage ru;
  if (getrusage(RUSAGE_SELF, &ru) != 0) return 0;
  uint64_t us = (uint64_t)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000u +
                (uint64_t)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec);
  return us * 1000u;
}

double cg_ns_to_ms(uint64_t ns) { return (double)ns / 1e6; }

static bool stamp(cl_event ev, cl_profiling_info what, cl_ulong *out) {
  return clGetEventProfilingInfo(ev, what, sizeof *out, out, NULL) == CL_SUCCESS;
}

bool cg_device_span_ms(const cg_device_span *span, double *ms, const char **why) {
  cl_ulong t0 = 0, t1 = 0, end_start = 0;
  *ms = NAN;
  if (!span->begin || !span->end) {
    *why = "no profiling events for this backend";
    return false;
  }
  if (!stamp(span->begin, span->begin_at_end ? CL_PROFILING_COMMAND_END : CL_PROFILING_COMMAND_START,
             &t0) ||
      !stamp(span->end, CL_PROFILING_COMMAND_END, &t1) ||
      !stamp(span->end, CL_PROFILING_COMMAND_START, &end_start)) {
    *why = "driver gives no profiling information";
    return false;
  }
  if (t0 == 0 && t1 == 0) {
    *why = "driver returns zero profiling timestamps";
    return false;
  }
  if (t1 < t0 || end_start > t1) {
    *why = "driver returns inconsistent profiling timestamps";
    return false;
  }
  /* No device runs a command in under 100 ns: a shorter stretch means the driver fills in
   * placeholder stamps (rusticl on llvmpipe hands out stamps 1 ns apart, whatever the work). */
  if (t1 - t0 < 100) {
    *why = "driver returns placeholder profiling timestamps (under 100 ns)";
    return false;
  }
  *ms = (double)(t1 - t0) / 1e6;
  return true;
}

void cg_device_span_release(cg_device_span *span) {
  if (span->begin) clReleaseEvent(span->begin);
  if (span->end) clReleaseEvent(span->end);
  memset(span, 0, sizeof *span);
}

bool cg_kernel_times(cl_event *events, int n, cg_kernel_time *out) {
  bool ok = n > 0;
  double total = 0;
  for (int i = 0; i < n; ++i) {
    cl_ulong t0 = 0, t1 = 0;
    if (!events[i] || !stamp(events[i], CL_PROFILING_COMMAND_START, &t0) ||
        !stamp(events[i], CL_PROFILING_COMMAND_END, &t1) || t1 < t0)
      ok = false;
    out[i].ms = ok ? (double)(t1 - t0) / 1e6 : NAN;
    total += out[i].ms;
    if (events[i]) clReleaseEvent(events[i]);
    events[i] = NULL;
  }
  /* Placeholder stamps (rusticl): the whole iteration's kernels would take under 100 ns. */
  return ok && total * 1e6 >= 100;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

void cg_stats_compute(const double *samples, int n, cg_stats *out) {
  out->n = n;
  out->median = out->min = out->max = out->mean = out->stddev = NAN;
  if (n <= 0) return;
  double *sorted = malloc((size_t)n * sizeof *sorted);
  if (!sorted) return;
  memcpy(sorted, samples, (size_t)n * sizeof *sorted);
  qsort(sorted, (size_t)n, sizeof *sorted, cmp_double);
  out->min = sorted[0];
  out->max = sorted[n - 1];
  out->median = n % 2 ? sorted[n / 2] : 0.5 * (sorted[n / 2 - 1] + sorted[n / 2]);
  double sum = 0;
  for (int i = 0; i < n; ++i) sum += sorted[i];
  out->mean = sum / n;
  double ss = 0;
  for (int i = 0; i < n; ++i) ss += (sorted[i] - out->mean) * (sorted[i] - out->mean);
  out->stddev = n > 1 ? sqrt(ss / (n - 1)) : 0.0;
  free(sorted);
}
