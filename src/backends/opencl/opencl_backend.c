/* What the OpenCL backends share: device opening, counted program builds, checked buffers,
 * device times of runs, and the limits of a work-group. */
#include "backends/opencl/opencl_backend.h"

#include "clgauge/loop_limit.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

cg_rc cg_cl_backend_open(const cg_device_info *info, void **device, const char **no_device_time,
                         cg_error *err) {
  cg_device *dev = NULL;
  cg_rc rc = CG_OK;
  if (!cg_early_take(info, &dev, &rc, err)) rc = cg_device_open(info, &dev, err);
  *device = dev;
  *no_device_time = info->profiling ? NULL : "device does not support profiling";
  return rc;
}

void cg_cl_backend_close(void *device) { cg_device_close(device); }

double cg_cl_backend_open_overlap_ms(const void *device) {
  return cg_device_open_overlap_ms(device);
}

const cg_device *cg_cl_env_device(const cg_backend_env *env) { return env->device; }

cg_rc cg_backend_loop_limit(const cg_backend_env *env, uint64_t *limit, cg_error *err) {
  const cg_program_store store = {env->kernel_dir, env->binary_cache};
  return cg_loop_limit(cg_cl_env_device(env), &store, limit, err);
}

cg_rc cg_backend_build(const cg_backend_env *env, const char *name, const char *options,
                       cl_program *out, cg_build_tally *tally, cg_error *err) {
  const cg_program_store store = {env->kernel_dir, env->binary_cache};
  cg_build_result result;
  cg_rc rc = cg_program_build(cg_cl_env_device(env), &store, name, options, out, &result, err);
  if (rc == CG_OK) {
    tally->builds++;
    if (result.origin == CG_BUILT_FROM_CACHE) tally->cached++;
  }
  if (result.warning[0]) cg_backend_warn(env, result.warning);
  return rc;
}

void cg_backend_warn(const cg_backend_env *env, const char *text) {
  if (!env->warning || env->warning_size == 0) return;
  /* several builds of one record may each leave one: kept one after the other */
  const size_t used = strnlen(env->warning, env->warning_size);
  if (used + 1 < env->warning_size)
    snprintf(env->warning + used, env->warning_size - used, "%s%s", used ? "; " : "", text);
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

cg_rc cg_cl_run_enqueue(cl_command_queue queue, cl_kernel stamp, int iters, cg_cl_run_call call,
                        void *state, cg_device_span *span, cg_error *err) {
  cg_rc rc = CG_OK;
  cg_device_span_release(span);
  const size_t one = 1;
  if (stamp) {
    CG_CL(clEnqueueNDRangeKernel, (queue, stamp, 1, NULL, &one, &one, 0, NULL, &span->begin));
    span->begin_at_end = true;
  }
  for (int i = 0; i < iters; ++i) {
    cl_event *ev = !stamp && i == 0 ? &span->begin : i == iters - 1 ? &span->end : NULL;
    CG_TRY(call(state, ev, err));
  }
  /* a single call without a stamp: its event is both ends */
  if (!span->end && span->begin && !stamp) clRetainEvent(span->end = span->begin);
cleanup:
  return rc;
}

cg_rc cg_cl_run_finish(cl_command_queue queue, cg_device_span *span, int launches,
                       cg_run_result *out, cg_error *err) {
  cg_rc rc = CG_OK;
  CG_CL(clFinish, (queue));
  cg_cl_span_result(span, out);
  out->launches = launches;
  out->launches_at_least = launches >= 0 ? launches : 1;
cleanup:
  return rc;
}

size_t cg_pow2_floor(size_t v) {
  size_t p = 1;
  while (p * 2 <= v) p *= 2;
  return p;
}

size_t cg_ceil_div(size_t a, size_t b) { return (a + b - 1) / b; }
size_t cg_round_up(size_t a, size_t b) { return cg_ceil_div(a, b) * b; }

cg_cl_group_limits cg_cl_limits_of(size_t max_group, const size_t max_items[2],
                                   cl_device_local_mem_type local_type, uint64_t local_size) {
  cg_cl_group_limits l = {max_group, {max_items[0], max_items[1]}, local_size};
  if (local_type == CL_NONE) l.local_mem = 0;
  return l;
}

cg_rc cg_cl_device_limits(const cg_device_info *info, cg_cl_group_limits *out, cg_error *err) {
  cg_rc rc = CG_OK;
  size_t items[2] = {1, 1}, *all = NULL;
  cl_uint dims = 0;
  cl_device_local_mem_type type = CL_LOCAL;
  CG_CL(clGetDeviceInfo,
        (info->id, CL_DEVICE_MAX_WORK_ITEM_DIMENSIONS, sizeof dims, &dims, NULL));
  CG_CHECK(dims >= 1, CG_UNSUPPORTED, "the device has no work-item dimension");
  /* the answer has one size per dimension, and there may be more than three */
  all = calloc(dims, sizeof *all);
  CG_CHECK(all, CG_ERROR, "out of memory");
  CG_CL(clGetDeviceInfo, (info->id, CL_DEVICE_MAX_WORK_ITEM_SIZES, dims * sizeof *all, all, NULL));
  items[0] = all[0];
  if (dims > 1) items[1] = all[1];
  CG_CL(clGetDeviceInfo, (info->id, CL_DEVICE_LOCAL_MEM_TYPE, sizeof type, &type, NULL));
  *out = cg_cl_limits_of(info->max_work_group, items, type, info->local_mem);
cleanup:
  free(all);
  return rc;
}

cg_rc cg_cl_kernel_limits(const cg_device_info *info, cl_kernel kernel, cg_cl_group_limits *limits,
                          uint64_t *kernel_local, cg_error *err) {
  cg_rc rc = CG_OK;
  size_t wg = 0;
  cl_ulong used = 0;
  CG_CL(clGetKernelWorkGroupInfo,
        (kernel, info->id, CL_KERNEL_WORK_GROUP_SIZE, sizeof wg, &wg, NULL));
  CG_CL(clGetKernelWorkGroupInfo,
        (kernel, info->id, CL_KERNEL_LOCAL_MEM_SIZE, sizeof used, &used, NULL));
  if (wg < limits->items) limits->items = wg;
  limits->local_mem = used < limits->local_mem ? limits->local_mem - used : 0;
  if (kernel_local) *kernel_local = used;
cleanup:
  return rc;
}

uint64_t cg_cl_local_for_arrays(uint64_t device_local, uint64_t declared, uint64_t used) {
  if (used <= declared || used == 0) return device_local;
  /* in long double: device_local x declared may pass 2^64 on a device with gigabytes of it */
  return (uint64_t)((long double)device_local * (long double)declared / (long double)used);
}

size_t cg_cl_square_edge(const cg_cl_group_limits *l, size_t cap) {
  size_t e = cg_pow2_floor(cap ? cap : 1);
  while (e > 1 && (e * e > l->items || e > l->dim[0] || e > l->dim[1])) e /= 2;
  return e;
}

size_t cg_cl_row_width(const cg_cl_group_limits *l, size_t cap) {
  size_t w = cap < l->items ? cap : l->items;
  if (l->dim[0] < w) w = l->dim[0];
  return cg_pow2_floor(w ? w : 1);
}
