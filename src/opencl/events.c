/* Device time from OpenCL profiling events, with a reason when the driver gives none. */
#include "clgauge/events.h"

#include <math.h>
#include <string.h>

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
