/* The matmul workload on an OpenCL device, shared by the clblast and cl backends. */
#include "backends/opencl/cl_matmul_common.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void cg_cl_matmul_release(void *state) {
  cg_device_matmul *mm = state;
  if (!mm) return;
  cg_device_span_release(&mm->span);
  cl_mem *bufs[] = {&mm->a, &mm->b, &mm->c, &mm->partial};
  for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; ++i) cg_cl_release_mem(bufs[i]);
  if (mm->sum) clReleaseKernel(mm->sum);
  if (mm->kernel) clReleaseKernel(mm->kernel);
  if (mm->program) clReleaseProgram(mm->program);
  if (mm->stamp) clReleaseKernel(mm->stamp);
  if (mm->stamp_program) clReleaseProgram(mm->stamp_program);
  free(mm);
}

cg_rc cg_cl_matmul_create(const cg_backend_env *env, const cg_matmul_shape *shape,
                          cg_cl_product_fn product, int launches, cg_device_matmul **out,
                          cg_error *err) {
  cg_rc rc = CG_OK;
  float *poison = NULL;
  cg_device_matmul *mm = calloc(1, sizeof *mm);
  CG_CHECK(mm, CG_ERROR, "out of memory");
  const cg_matmul_shape s = *shape;
  mm->shape = s;
  mm->dev = cg_cl_env_device(env);
  mm->queue = cg_device_queue(mm->dev);
  mm->product = product;
  mm->launches = launches;
  const size_t c_elems = (size_t)s.m * (size_t)s.n;
  CG_TRY(cg_cl_buffer(mm->dev, "matrix A", (size_t)s.m * (size_t)s.k * sizeof(float),
                      CL_MEM_READ_WRITE, &mm->a, err));
  CG_TRY(cg_cl_buffer(mm->dev, "matrix B", (size_t)s.k * (size_t)s.n * sizeof(float),
                      CL_MEM_READ_WRITE, &mm->b, err));
  CG_TRY(cg_cl_buffer(mm->dev, "matrix C", c_elems * sizeof(float), CL_MEM_READ_WRITE, &mm->c,
                      err));
  /* A write of NaNs rather than clEnqueueFillBuffer, which OpenCL 1.1 drivers lack. */
  poison = malloc(c_elems * sizeof *poison);
  CG_CHECK(poison, CG_ERROR, "out of host memory for %zu floats", c_elems);
  for (size_t i = 0; i < c_elems; ++i) poison[i] = NAN;
  CG_CL(clEnqueueWriteBuffer,
        (mm->queue, mm->c, CL_TRUE, 0, c_elems * sizeof(float), poison, 0, NULL, NULL));
  *out = mm;
  mm = NULL;
cleanup:
  free(poison);
  cg_cl_matmul_release(mm);
  return rc;
}

cg_rc cg_cl_matmul_stamp(cg_device_matmul *mm, const cg_backend_env *env, cg_build_tally *tally,
                         cg_error *err) {
  cg_rc rc = CG_OK;
  cl_int code = CL_SUCCESS;
  CG_TRY(cg_backend_build(env, "stamp.cl", NULL, &mm->stamp_program, tally, err));
  mm->stamp = clCreateKernel(mm->stamp_program, "stamp", &code);
  CG_CL_CHECK(clCreateKernel, code);
cleanup:
  return rc;
}

cg_rc cg_cl_matmul_upload(void *state, const void *inputs, cg_error *err) {
  cg_rc rc = CG_OK;
  cg_device_matmul *mm = state;
  const cg_matmul_inputs *in = inputs;
  const cg_matmul_shape s = mm->shape;
  CG_CL(clEnqueueWriteBuffer, (mm->queue, mm->a, CL_FALSE, 0,
                               (size_t)s.m * (size_t)s.k * sizeof(float), in->a, 0, NULL, NULL));
  CG_CL(clEnqueueWriteBuffer, (mm->queue, mm->b, CL_FALSE, 0,
                               (size_t)s.k * (size_t)s.n * sizeof(float), in->b, 0, NULL, NULL));
  CG_CL(clFinish, (mm->queue));
cleanup:
  return rc;
}

static cg_rc one_product(void *state, cl_event *event, cg_error *err) {
  cg_device_matmul *mm = state;
  return mm->product(mm, event, err);
}

cg_rc cg_cl_matmul_enqueue(void *state, const cg_run *run, cg_error *err) {
  cg_device_matmul *mm = state;
  return cg_cl_run_enqueue(mm->queue, mm->stamp, run->iters, one_product, mm, &mm->span, err);
}

cg_rc cg_cl_matmul_finish(void *state, cg_run_result *out, cg_error *err) {
  cg_device_matmul *mm = state;
  return cg_cl_run_finish(mm->queue, &mm->span, mm->launches, out, err);
}

cg_rc cg_cl_matmul_download(void *state, void *outputs, cg_error *err) {
  cg_rc rc = CG_OK;
  cg_device_matmul *mm = state;
  cg_matmul_outputs *out = outputs;
  CG_CL(clEnqueueReadBuffer, (mm->queue, mm->c, CL_TRUE, 0,
                              (size_t)mm->shape.m * (size_t)mm->shape.n * sizeof(float), out->c, 0,
                              NULL, NULL));
cleanup:
  return rc;
}
