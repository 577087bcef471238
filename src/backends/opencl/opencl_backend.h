/* Private to src/backends: what the OpenCL backends (clblast, cl) share: opening the device,
 * program builds counted for the compile kind, checked buffers, and a run's device time from the
 * span of its events. */
#ifndef CLGAUGE_OPENCL_BACKEND_H
#define CLGAUGE_OPENCL_BACKEND_H

#include <CL/cl.h>

#include "clgauge/backend.h"
#include "clgauge/device.h"
#include "clgauge/events.h"
#include "clgauge/program.h"

/* cg_backend.open and close of the OpenCL backends: a context and a profiling queue. */
cg_rc cg_cl_backend_open(const cg_device_info *info, void **device, const char **no_device_time,
                         cg_error *err);
void cg_cl_backend_close(void *device);

/* The opened device of an implementation's environment. */
const cg_device *cg_cl_env_device(const cg_backend_env *env);

/* The program builds of one backend instance, counted for its record's compile kind. */
typedef struct cg_build_tally {
  int builds, cached;
} cg_build_tally;

/* Build cl/<name> for env's device through its kernel directory and binary cache, and count the
 * build. */
cg_rc cg_backend_build(const cg_backend_env *env, const char *name, const char *options,
                       cl_program *out, cg_build_tally *tally, cg_error *err);
/* "cache" when every build came from the binary cache, else "source". */
const char *cg_build_tally_kind(const cg_build_tally *tally);

/* A read-write device buffer of `bytes`, refused (CG_UNSUPPORTED) over the device's maximum
 * allocation with a message naming `what`. */
cg_rc cg_cl_buffer(const cg_device *dev, const char *what, size_t bytes, cl_mem_flags flags,
                   cl_mem *out, cg_error *err);
/* Release a buffer and clear the handle (NULL is fine). */
void cg_cl_release_mem(cl_mem *mem);

/* The run's device time from its span into out (device_ms, or device_why); releases the span. */
void cg_cl_span_result(cg_device_span *span, cg_run_result *out);

/* The largest power of two not above v (v >= 1). */
size_t cg_pow2_floor(size_t v);

#endif
