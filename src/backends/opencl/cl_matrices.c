/* Device buffers of one matrix product, shared by the clblast and cl backends. */
#include "backends/opencl/cl_matrices.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static cg_rc create_buffer(cl_context ctx, const cg_device_info *info, const char *what,
                           size_t bytes, cl_mem *out, cg_error *err) {
  cg_rc rc = CG_OK;
  cl_int code = CL_SUCCESS;
  CG_CHECK(bytes <= info->max_alloc, CG_UNSUPPORTED,
           "matrix %s needs %zu bytes, over the device's maximum allocation of %llu bytes", what,
           bytes, (unsigned long long)info->max_alloc);
  *out = clCreateBuffer(ctx, CL_MEM_READ_WRITE, bytes, NULL, &code);
  CG_CL_CHECK(clCreateBuffer, code);
cleanup:
  return rc;
}

cg_rc cg_cl_matrices_create(const cg_device *dev, cg_matmul_shape s, cg_cl_matrices *mx,
                            cg_error *err) {
  cg_rc rc = CG_OK;
  float *poison = NULL;
  const cg_device_info *info = cg_device_get_info(dev);
  cl_context ctx = cg_device_context(dev);
  memset(mx, 0, sizeof *mx);
  mx->queue = cg_device_queue(dev);
  mx->shape = s;
  size_t c_elems = (size_t)s.m * (size_t)s.n;
  CG_TRY(create_buffer(ctx, info, "A", (size_t)s.m * (size_t)s.k * sizeof(float), &mx->a, err));
  CG_TRY(create_buffer(ctx, info, "B", (size_t)s.k * (size_t)s.n * sizeof(float), &mx->b, err));
  CG_TRY(create_buffer(ctx, info, "C", c_elems * sizeof(float), &mx->c, err));
  /* A write of NaNs rather than clEnqueueFillBuffer, which OpenCL 1.1 drivers lack. */
  poison = malloc(c_elems * sizeof *poison);
  CG_CHECK(poison, CG_ERROR, "out of host memory for %zu floats", c_elems);
  for (size_t i = 0; i < c_elems; ++i) poison[i] = NAN;
  CG_CL(clEnqueueWriteBuffer,
        (mx->queue, mx->c, CL_TRUE, 0, c_elems * sizeof(float), poison, 0, NULL, NULL));
cleanup:
  free(poison);
  if (rc != CG_OK) cg_cl_matrices_release(mx);
  return rc;
}

cg_rc cg_cl_matrices_upload(cg_cl_matrices *mx, const float *A, const float *B, cg_error *err) {
  cg_rc rc = CG_OK;
  const cg_matmul_shape s = mx->shape;
  CG_CL(clEnqueueWriteBuffer, (mx->queue, mx->a, CL_FALSE, 0,
                               (size_t)s.m * (size_t)s.k * sizeof(float), A, 0, NULL, NULL));
  CG_CL(clEnqueueWriteBuffer, (mx->queue, mx->b, CL_FALSE, 0,
                               (size_t)s.k * (size_t)s.n * sizeof(float), B, 0, NULL, NULL));
  CG_CL(clFinish, (mx->queue));
cleanup:
  return rc;
}

cg_rc cg_cl_matrices_download(cg_cl_matrices *mx, float *C, cg_error *err) {
  cg_rc rc = CG_OK;
  CG_CL(clEnqueueReadBuffer, (mx->queue, mx->c, CL_TRUE, 0,
                              (size_t)mx->shape.m * (size_t)mx->shape.n * sizeof(float), C, 0,
                              NULL, NULL));
cleanup:
  return rc;
}

void cg_cl_matrices_release(cg_cl_matrices *mx) {
  cl_mem *bufs[] = {&mx->a, &mx->b, &mx->c};
  for (int i = 0; i < 3; ++i)
    if (*bufs[i]) {
      clReleaseMemObject(*bufs[i]);
      *bufs[i] = NULL;
    }
}
