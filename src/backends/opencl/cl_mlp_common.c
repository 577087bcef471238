/* Device tensors and elementwise kernels of the mlp workload, shared by the cl and clblast
 * backends. */
#include "backends/opencl/cl_mlp_common.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

cg_rc cg_mlp_buffer(const cg_device *dev, const char *what, size_t elems, cl_mem *out,
                    cg_error *err) {
  cg_rc rc = CG_OK;
  cl_int code = CL_SUCCESS;
  const cg_device_info *info = cg_device_get_info(dev);
  const size_t bytes = elems * sizeof(float);
  CG_CHECK(bytes <= info->max_alloc, CG_UNSUPPORTED,
           "mlp buffer %s needs %zu bytes, over the device's maximum allocation of %llu bytes",
           what, bytes, (unsigned long long)info->max_alloc);
  *out = clCreateBuffer(cg_device_context(dev), CL_MEM_READ_WRITE, bytes, NULL, &code);
  CG_CL_CHECK(clCreateBuffer, code);
cleanup:
  return rc;
}

static size_t nx(const cg_mlp_shape s) { return (size_t)s.batch * (size_t)s.din; }
static size_t nt(const cg_mlp_shape s) { return (size_t)s.batch * (size_t)s.dout; }
static size_t nw1(const cg_mlp_shape s) { return (size_t)s.din * (size_t)s.hidden; }
static size_t nw2(const cg_mlp_shape s) { return (size_t)s.hidden * (size_t)s.dout; }
static size_t nw3(const cg_mlp_shape s) { return (size_t)s.dout * (size_t)s.dout; }

cg_rc cg_mlp_device_create(const cg_device *dev, const cg_mlp_setup *setup, cg_mlp_device *md,
                           cg_error *err) {
  cg_rc rc = CG_OK;
  const cg_mlp_shape s = setup->shape;
  memset(md, 0, sizeof *md);
  md->queue = cg_device_queue(dev);
  md->setup = *setup;
  CG_CHECK(s.batch > 0 && s.din > 0 && s.hidden > 0 && s.dout > 0, CG_BAD_INPUT,
           "mlp shape %dx%dx%dx%d has a dimension below 1", s.batch, s.din, s.hidden, s.dout);
  CG_TRY(cg_mlp_buffer(dev, "x (batch x din)", nx(s), &md->x, err));
  CG_TRY(cg_mlp_buffer(dev, "t (batch x dout)", nt(s), &md->t, err));
  CG_TRY(cg_mlp_buffer(dev, "w1 (din x hidden)", nw1(s), &md->w1, err));
  CG_TRY(cg_mlp_buffer(dev, "w2 (hidden x dout)", nw2(s), &md->w2, err));
  CG_TRY(cg_mlp_buffer(dev, "w3 (dout x dout)", nw3(s), &md->w3, err));
  CG_TRY(cg_mlp_buffer(dev, "g3 (dout x dout)", nw3(s), &md->g3, err));
  CG_TRY(cg_mlp_buffer(dev, "loss", 1, &md->loss, err));
  /* NaN until an iteration writes it, so that a loss never computed cannot pass for one. */
  const float nan = NAN;
  CG_CL(clEnqueueWriteBuffer, (md->queue, md->loss, CL_TRUE, 0, sizeof nan, &nan, 0, NULL, NULL));
cleanup:
  if (rc != CG_OK) cg_mlp_device_release(md);
  return rc;
}

cg_rc cg_mlp_device_upload(cg_mlp_device *md, const cg_mlp_tensors *in, cg_error *err) {
  cg_rc rc = CG_OK;
  const cg_mlp_shape s = md->setup.shape;
  /* A write of zeros rather than clEnqueueFillBuffer, which OpenCL 1.1 drivers lack. */
  float *zeros = calloc(nw3(s), sizeof *zeros);
  CG_CHECK(zeros, CG_ERROR, "out of host memory for %zu floats", nw3(s));
  const struct {
    cl_mem mem;
    const float *host;
    size_t elems;
  } copies[] = {{md->x, in->x, nx(s)},    {md->t, in->t, nt(s)},   {md->w1, in->w1, nw1(s)},
                {md->w2, in->w2, nw2(s)}, {md->w3, in->w3, nw3(s)}, {md->g3, zeros, nw3(s)}};
  for (size_t i = 0; i < sizeof copies / sizeof copies[0]; ++i)
    CG_CL(clEnqueueWriteBuffer, (md->queue, copies[i].mem, CL_FALSE, 0,
                                 copies[i].elems * sizeof(float), copies[i].host, 0, NULL, NULL));
  CG_CL(clFinish, (md->queue));
cleanup:
  free(zeros);
  return rc;
}

cg_rc cg_mlp_device_download(cg_mlp_device *md, cg_mlp_tensors *out, cg_error *err) {
  cg_rc rc = CG_OK;
  const cg_mlp_shape s = md->setup.shape;
  const struct {
    cl_mem mem;
    float *host;
    size_t elems;
  } copies[] = {{md->w1, out->w1, nw1(s)},
                {md->w2, out->w2, nw2(s)},
                {md->w3, out->w3, nw3(s)},
                {md->g3, out->g3, nw3(s)}};
  for (size_t i = 0; i < sizeof copies / sizeof copies[0]; ++i)
    CG_CL(clEnqueueReadBuffer, (md->queue, copies[i].mem, CL_FALSE, 0,
                                copies[i].elems * sizeof(float), copies[i].host, 0, NULL, NULL));
  CG_CL(clFinish, (md->queue));
cleanup:
  return rc;
}

cg_rc cg_mlp_device_read_loss(cg_mlp_device *md, double *loss, cg_error *err) {
  cg_rc rc = CG_OK;
  float value = NAN;
  CG_CL(clEnqueueReadBuffer,
        (md->queue, md->loss, CL_TRUE, 0, sizeof value, &value, 0, NULL, NULL));
  *loss = value;
cleanup:
  return rc;
}

void cg_mlp_device_release(cg_mlp_device *md) {
  cl_mem *bufs[] = {&md->x, &md->t, &md->w1, &md->w2, &md->w3, &md->g3, &md->loss};
  for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; ++i)
    if (*bufs[i]) {
      clReleaseMemObject(*bufs[i]);
      *bufs[i] = NULL;
    }
}

static size_t pow2_floor(size_t v) {
  size_t p = 1;
  while (p * 2 <= v) p *= 2;
  return p;
}

cg_rc cg_mlp_eltwise_create(cl_program program, const cg_device_info *info, cg_mlp_eltwise *ew,
                            cg_error *err) {
  cg_rc rc = CG_OK;
  cl_int code = CL_SUCCESS;
  static const char *const names[] = {"mlp_relu", "mlp_relu_backward", "mlp_sgd",
                                      "mlp_loss_dy"};
  cl_kernel *kernels[] = {&ew->relu, &ew->relu_backward, &ew->sgd, &ew->loss_dy};
  memset(ew, 0, sizeof *ew);
  for (int i = 0; i < 4; ++i) {
    *kernels[i] = clCreateKernel(program, names[i], &code);
    CG_CL_CHECK(clCreateKernel, code);
    /* The kernel's own limit, which can be far below the device's (rusticl on llvmpipe: 32). */
    size_t wg = 0;
    CG_CL(clGetKernelWorkGroupInfo,
          (*kernels[i], info->id, CL_KERNEL_WORK_GROUP_SIZE, sizeof wg, &wg, NULL));
    if (wg > info->max_work_group) wg = info->max_work_group;
    CG_CHECK(wg >= 1, CG_UNSUPPORTED, "kernel %s allows no work-items on this device", names[i]);
    ew->local[i] = pow2_floor(wg < 256 ? wg : 256);
  }
cleanup:
  if (rc != CG_OK) cg_mlp_eltwise_release(ew);
  return rc;
}

void cg_mlp_eltwise_release(cg_mlp_eltwise *ew) {
  cl_kernel *kernels[] = {&ew->relu, &ew->relu_backward, &ew->sgd, &ew->loss_dy};
  for (int i = 0; i < 4; ++i)
    if (*kernels[i]) {
      clReleaseKernel(*kernels[i]);
      *kernels[i] = NULL;
    }
}

/* OpenCL 1.x needs the global size to be a multiple of the work-group size: round up, and the
 * kernels leave the extra work-items idle. */
static cg_rc launch_1d(cl_command_queue q, cl_kernel k, size_t n, size_t local, cl_event *ev,
                       cg_error *err) {
  cg_rc rc = CG_OK;
  const size_t global = (n + local - 1) / local * local;
  CG_CL(clEnqueueNDRangeKernel, (q, k, 1, NULL, &global, &local, 0, NULL, ev));
cleanup:
  return rc;
}

cg_rc cg_mlp_relu(const cg_mlp_eltwise *ew, cl_command_queue q, size_t n, cl_mem v,
                  cl_event *ev, cg_error *err) {
  cg_rc rc = CG_OK;
  const cl_int count = (cl_int)n;
  CG_CL(clSetKernelArg, (ew->relu, 0, sizeof count, &count));
  CG_CL(clSetKernelArg, (ew->relu, 1, sizeof v, &v));
  CG_TRY(launch_1d(q, ew->relu, n, ew->local[0], ev, err));
cleanup:
  return rc;
}

cg_rc cg_mlp_relu_backward(const cg_mlp_eltwise *ew, cl_command_queue q, size_t n, cl_mem d,
                           cl_mem h, cl_event *ev, cg_error *err) {
  cg_rc rc = CG_OK;
  const cl_int count = (cl_int)n;
  CG_CL(clSetKernelArg, (ew->relu_backward, 0, sizeof count, &count));
  CG_CL(clSetKernelArg, (ew->relu_backward, 1, sizeof d, &d));
  CG_CL(clSetKernelArg, (ew->relu_backward, 2, sizeof h, &h));
  CG_TRY(launch_1d(q, ew->relu_backward, n, ew->local[1], ev, err));
cleanup:
  return rc;
}

cg_rc cg_mlp_sgd(const cg_mlp_eltwise *ew, cl_command_queue q, size_t n, float lr, cl_mem g,
                 cl_mem w, int zero_g, cl_event *ev, cg_error *err) {
  cg_rc rc = CG_OK;
  const cl_int count = (cl_int)n, zero = zero_g;
  CG_CL(clSetKernelArg, (ew->sgd, 0, sizeof count, &count));
  CG_CL(clSetKernelArg, (ew->sgd, 1, sizeof lr, &lr));
  CG_CL(clSetKernelArg, (ew->sgd, 2, sizeof g, &g));
  CG_CL(clSetKernelArg, (ew->sgd, 3, sizeof w, &w));
  CG_CL(clSetKernelArg, (ew->sgd, 4, sizeof zero, &zero));
  CG_TRY(launch_1d(q, ew->sgd, n, ew->local[2], ev, err));
cleanup:
  return rc;
}

cg_rc cg_mlp_loss_dy(const cg_mlp_eltwise *ew, cl_command_queue q, size_t count, cl_mem y,
                     cl_mem t, cl_mem dy, cl_mem loss, int keep, cl_event *ev, cg_error *err) {
  cg_rc rc = CG_OK;
  const cl_int n = (cl_int)count, k = keep;
  const size_t local = ew->local[3];
  CG_CL(clSetKernelArg, (ew->loss_dy, 0, sizeof n, &n));
  CG_CL(clSetKernelArg, (ew->loss_dy, 1, sizeof y, &y));
  CG_CL(clSetKernelArg, (ew->loss_dy, 2, sizeof t, &t));
  CG_CL(clSetKernelArg, (ew->loss_dy, 3, sizeof dy, &dy));
  CG_CL(clSetKernelArg, (ew->loss_dy, 4, sizeof loss, &loss));
  CG_CL(clSetKernelArg, (ew->loss_dy, 5, sizeof k, &k));
  CG_CL(clSetKernelArg, (ew->loss_dy, 6, local * sizeof(float), NULL));
  /* One work-group: the loss is one deterministic sum. */
  CG_CL(clEnqueueNDRangeKernel, (q, ew->loss_dy, 1, NULL, &local, &local, 0, NULL, ev));
cleanup:
  return rc;
}
