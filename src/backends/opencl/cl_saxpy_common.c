/* The saxpy workload on an OpenCL device, shared by the clblast and cl backends. */
#include "backends/opencl/cl_saxpy_common.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void cg_cl_saxpy_release(void *state) {
  cg_device_saxpy *sx = state;
  if (!sx) return;
  cg_device_span_release(&sx->span);
  cg_cl_release_mem(&sx->x);
  cg_cl_release_mem(&sx->y);
  if (sx->kernel) clReleaseKernel(sx->kernel);
  if (sx->program) clReleaseProgram(sx->program);
  if (sx->stamp) clReleaseKernel(sx->stamp);
  if (sx->stamp_program) clReleaseProgram(sx->stamp_program);
  free(sx);
}

static size_t vector_bytes(const cg_device_saxpy *sx) {
  return (size_t)sx->problem.n * sizeof(float);
}

cg_rc cg_cl_saxpy_create(const cg_backend_env *env, const cg_saxpy_problem *problem,
                         cg_cl_saxpy_fn update, int launches, cg_device_saxpy **out,
                         cg_error *err) {
  cg_rc rc = CG_OK;
  float *poison = NULL;
  cg_device_saxpy *sx = calloc(1, sizeof *sx);
  CG_CHECK(sx, CG_ERROR, "out of memory");
  sx->problem = *problem;
  sx->dev = cg_cl_env_device(env);
  sx->queue = cg_device_queue(sx->dev);
  sx->update = update;
  sx->launches = launches;
  const size_t n = (size_t)problem->n, bytes = vector_bytes(sx);
  CG_TRY(cg_cl_buffer(sx->dev, "vector x", bytes, CL_MEM_READ_WRITE, &sx->x, err));
  CG_TRY(cg_cl_buffer(sx->dev, "vector y", bytes, CL_MEM_READ_WRITE, &sx->y, err));
  /* A write of NaNs rather than clEnqueueFillBuffer, which OpenCL 1.1 drivers lack. */
  poison = malloc(bytes);
  CG_CHECK(poison, CG_ERROR, "out of host memory for %zu floats", n);
  for (size_t i = 0; i < n; ++i) poison[i] = NAN;
  CG_CL(clEnqueueWriteBuffer, (sx->queue, sx->y, CL_TRUE, 0, bytes, poison, 0, NULL, NULL));
  *out = sx;
  sx = NULL;
cleanup:
  free(poison);
  cg_cl_saxpy_release(sx);
  return rc;
}

cg_rc cg_cl_saxpy_stamp(cg_device_saxpy *sx, const cg_backend_env *env, cg_build_tally *tally,
                        cg_error *err) {
  cg_rc rc = CG_OK;
  cl_int code = CL_SUCCESS;
  CG_TRY(cg_backend_build(env, "stamp.cl", NULL, &sx->stamp_program, tally, err));
  sx->stamp = clCreateKernel(sx->stamp_program, "stamp", &code);
  CG_CL_CHECK(clCreateKernel, code);
cleanup:
  return rc;
}

cg_rc cg_cl_saxpy_upload(void *state, const void *inputs, cg_error *err) {
  cg_rc rc = CG_OK;
  cg_device_saxpy *sx = state;
  const cg_saxpy_inputs *in = inputs;
  const size_t bytes = vector_bytes(sx);
  CG_CL(clEnqueueWriteBuffer, (sx->queue, sx->x, CL_FALSE, 0, bytes, in->x, 0, NULL, NULL));
  CG_CL(clEnqueueWriteBuffer, (sx->queue, sx->y, CL_FALSE, 0, bytes, in->y, 0, NULL, NULL));
  CG_CL(clFinish, (sx->queue));
cleanup:
  return rc;
}

/* Events only on the commands that bound the run: its first update (or the stamp before it) and
 * its last one. */
cg_rc cg_cl_saxpy_enqueue(void *state, const cg_run *run, cg_error *err) {
  cg_rc rc = CG_OK;
  cg_device_saxpy *sx = state;
  cg_device_span *span = &sx->span;
  cg_device_span_release(span);
  const size_t one = 1;
  if (sx->stamp) {
    CG_CL(clEnqueueNDRangeKernel, (sx->queue, sx->stamp, 1, NULL, &one, &one, 0, NULL,
                                   &span->begin));
    span->begin_at_end = true;
  }
  for (int i = 0; i < run->iters; ++i) {
    cl_event *ev = !sx->stamp && i == 0 ? &span->begin : i == run->iters - 1 ? &span->end : NULL;
    CG_TRY(sx->update(sx, ev, err));
  }
  if (!span->end && span->begin && !sx->stamp) clRetainEvent(span->end = span->begin);
cleanup:
  return rc;
}

cg_rc cg_cl_saxpy_finish(void *state, cg_run_result *out, cg_error *err) {
  cg_rc rc = CG_OK;
  cg_device_saxpy *sx = state;
  CG_CL(clFinish, (sx->queue));
  cg_cl_span_result(&sx->span, out);
  out->launches = sx->launches;
  /* an update whose launches are unknown is one library call (CLBlast's), at least one kernel */
  out->launches_at_least = sx->launches >= 0 ? sx->launches : 1;
cleanup:
  return rc;
}

cg_rc cg_cl_saxpy_download(void *state, void *outputs, cg_error *err) {
  cg_rc rc = CG_OK;
  cg_device_saxpy *sx = state;
  cg_saxpy_outputs *out = outputs;
  CG_CL(clEnqueueReadBuffer,
        (sx->queue, sx->y, CL_TRUE, 0, vector_bytes(sx), out->y, 0, NULL, NULL));
cleanup:
  return rc;
}
