/* What the OpenCL backends share: device opening, counted program builds, checked buffers, and
 * device times of runs. */
#include "backends/opencl/opencl_backend.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

cg_rc cg_cl_backend_open(const cg_device_info *info, void **device, const char **no_device_time,
                         cg_error *err) {
  cg_device *dev = NULL;
  cg_rc rc = cg_device_open(info, &dev, err);
  *device = dev;
  *no_device_time = info->profiling ? NULL : "device does not support profiling";
  return rc;
}

void cg_cl_backend_close(void *device) { cg_device_close(device); }

const cg_device *cg_cl_env_device(const cg_backend_env *env) { return env->device; }

cg_rc cg_backend_build(const cg_backend_env *env, const char *name, const char *options,
                       cl_program *out, cg_build_tally *tally, cg_error *err) {
  const cg_program_store store = {env->kernel_dir, env->binary_cache};
  cg_build_result result;
  cg_rc rc = cg_program_build(cg_cl_env_device(env), &store, name, options, out, &result, err);
  if (rc == CG_OK) {
    tally->builds++;
    if (result.origin == CG_BUILT_FROM_CACHE) tally->cached++;
  }
  if (result.warning[0] && env->warning && env->warning_size > 0) {
    /* several builds of one record may each leave one: kept one after the other */
    const size_t used = strnlen(env->warning, env->warning_size);
    if (used + 1 < env->warning_size)
      snprintf(env->warning + used, env->warning_size - used, "%s%s", used ? "; " : "",
               result.warning);
  }
  return rc;
}

const char *cg_build_tally_kind(const cg_build_tally *tally) {
  return tally->builds > 0 && tally->cached == tally->builds ? "cache" : "source";
}

cg_rc cg_cl_buffer(const cg_device *dev, const char *what, size_t bytes, cl_mem_flags flags,
                   cl_mem *out, cg_error *err) {
  cg_rc rc = CG_OK;
  cl_int code = CL_SUCCESS;
  const cg_device_info *info = cg_device_get_info(dev);
  CG_CHECK(bytes <= info->max_alloc, CG_UNSUPPORTED,
           "%s needs %zu bytes, over the device's maximum allocation of %llu bytes", what, bytes,
           (unsigned long long)info->max_alloc);
  *out = clCreateBuffer(cg_device_context(dev), flags, bytes, NULL, &code);
  CG_CL_CHECK(clCreateBuffer, code);
cleanup:
  return rc;
}

void cg_cl_release_mem(cl_mem *mem) {
  if (*mem) clReleaseMemObject(*mem);
  *mem = NULL;
}

void cg_cl_span_result(cg_device_span *span, cg_run_result *out) {
  const char *why = NULL;
  if (!cg_device_span_ms(span, &out->device_ms, &why)) {
    out->device_ms = NAN;
    out->device_why = why;
  }
  cg_device_span_release(span);
}

size_t cg_pow2_floor(size_t v) {
  size_t p = 1;
  while (p * 2 <= v) p *= 2;
  return p;
}
