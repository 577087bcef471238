/* Device time from OpenCL profiling events, with a reason when the driver gives none. Used inside
 * the OpenCL backends only: the engine above them sees milliseconds. */
#ifndef CLGAUGE_EVENTS_H
#define CLGAUGE_EVENTS_H

#include <CL/cl.h>
#include <stdbool.h>

#include "clgauge/clock.h"

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

/* Device times of events of complete commands, into out[i].ms (names left as they are); false
 * when the driver gives no usable stamps (all zero, end before start). Releases the events. */
bool cg_kernel_times(cl_event *events, int n, cg_kernel_time *out);

#endif
