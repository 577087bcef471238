/* Time measurement: the monotonic host clock, process CPU time, device time from profiling
 * events (with a reason when the driver gives none), and summary statistics. */
#ifndef CLGAUGE_TIMING_H
#define CLGAUGE_TIMING_H

#include <CL/cl.h>
#include <stdbool.h>
#include <stdint.h>

/* CLOCK_MONOTONIC in nanoseconds. */
uint64_t cg_now_ns(void);
/* User plus system CPU time of this process so far (getrusage), in nanoseconds. */
uint64_t cg_cpu_ns(void);
double cg_ns_to_ms(uint64_t ns);

/* Device time covered by a stretch of commands on one in-order queue, from profiling events:
 * from `begin`'s start (or its end, when begin_at_end: a marker kernel enqueued just before the
 * stretch) to `end`'s end. The events must be complete. Drivers that do not profile (Mesa's
 * rusticl and Clover return zeros) or give inconsistent stamps yield false with a reason. */
typedef struct cg_device_span {
  cl_event begin;
  cl_event end;
  bool begin_at_end;
} cg_device_span;
bool cg_device_span_ms(const cg_device_span *span, double *ms, const char **why);
void cg_device_span_release(cg_device_span *span);

/* The device time of one kernel launch, by name. */
typedef struct cg_kernel_time {
  const char *name; /* static string */
  double ms;
} cg_kernel_time;

/* Device times of events of complete commands, into out[i].ms (names left as they are); false
 * when the driver gives no usable stamps (all zero, end before start). Releases the events. */
bool cg_kernel_times(cl_event *events, int n, cg_kernel_time *out);

/* Summary statistics of n samples (n may be 0: all fields NAN). stddev is the sample one (n-1). */
typedef struct cg_stats {
  int n;
  double median, min, max, mean, stddev;
} cg_stats;
void cg_stats_compute(const double *samples, int n, cg_stats *out);

#endif
