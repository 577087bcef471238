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

static cg_rc one_update(void *state, cl_event *event, cg_error *err) {
  cg_device_saxpy *sx = state;
  return sx->update(sx, event, err);
}

cg_rc cg_cl_saxpy_enqueue(void *state, const cg_run *run, cg_error *err) {
  cg_device_saxpy *sx = state;
  return cg_cl_run_enqueue(sx->queue, sx->stamp, run->iters, one_update, sx, &sx->span, err);
}

cg_rc cg_cl_saxpy_finish(void *state, cg_run_result *out, cg_error *err) {
  cg_device_saxpy *sx = state;
  return cg_cl_run_finish(sx->queue, &sx->span, sx->launches, out, err);
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
