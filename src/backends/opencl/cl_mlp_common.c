/* Device tensors, run events and their sampling, elementwise kernels and the per-op training
 * step of the mlp workload, shared by the cl and clblast backends. */
#include "backends/opencl/cl_mlp_common.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- sampling ---- */

cg_device_span *cg_mlp_sample(cg_mlp_sampler *s, const char *name) {
  if (!s->on || s->n == CG_MAX_SPLIT) return NULL;
  cg_device_span *span = &s->spans[s->n];
  *span = (cg_device_span){0};
  s->names[s->n++] = name;
  return span;
}

cl_event *cg_mlp_kernel_event(cg_mlp_sampler *s, const char *name, cl_event *other) {
  cg_device_span *span = cg_mlp_sample(s, name);
  return span ? &span->begin : other;
}

void cg_mlp_sampler_close(cg_mlp_sampler *s, cl_event *last) {
  for (int i = 0; i < s->n; ++i) {
    cg_device_span *span = &s->spans[i];
    if (!span->end && span->begin) clRetainEvent(span->end = span->begin);
  }
  if (last && s->n > 0 && s->spans[s->n - 1].end) clRetainEvent(*last = s->spans[s->n - 1].end);
  s->on = false;
}

void cg_mlp_sampler_split(cg_mlp_sampler *s, cg_run_result *out) {
  bool ok = s->n > 0;
  for (int i = 0; i < s->n; ++i) {
    const char *why = NULL;
    out->split[i].name = s->names[i];
    ok = cg_device_span_ms(&s->spans[i], &out->split[i].ms, &why) && ok;
  }
  out->nsplit = ok ? s->n : 0;
  cg_mlp_sampler_release(s);
}

void cg_mlp_sampler_release(cg_mlp_sampler *s) {
  for (int i = 0; i < s->n; ++i) cg_device_span_release(&s->spans[i]);
  s->n = 0;
  s->on = false;
}

/* ---- the device side ---- */

cg_rc cg_mlp_buffer(const cg_device *dev, const char *what, size_t elems, cl_mem *out,
                    cg_error *err) {
  char name[96];
  snprintf(name, sizeof name, "mlp buffer %s", what);
  return cg_cl_buffer(dev, name, elems * sizeof(float), CL_MEM_READ_WRITE, out, err);
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

void cg_mlp_device_run_begin(cg_mlp_device *md) {
  cg_device_span_release(&md->span);
  cg_mlp_sampler_release(&md->sampler);
}

cg_rc cg_mlp_device_finish(cg_mlp_device *md, int launches, cg_run_result *out, cg_error *err) {
  cg_rc rc = CG_OK;
  float loss = NAN;
  CG_CL(clFinish, (md->queue));
  CG_CL(clEnqueueReadBuffer, (md->queue, md->loss, CL_TRUE, 0, sizeof loss, &loss, 0, NULL, NULL));
  out->loss = loss;
  out->launches = launches;
  out->launches_at_least = launches;
  cg_cl_span_result(&md->span, out);
  cg_mlp_sampler_split(&md->sampler, out);
cleanup:
  return rc;
}

void cg_mlp_device_release(cg_mlp_device *md) {
  cg_mlp_device_run_begin(md);
  cl_mem *bufs[] = {&md->x, &md->t, &md->w1, &md->w2, &md->w3, &md->g3, &md->loss};
  for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; ++i) cg_cl_release_mem(bufs[i]);
}

cg_rc cg_mlp_stamp(cl_command_queue q, cl_kernel stamp, cl_event *ev, cg_error *err) {
  cg_rc rc = CG_OK;
  const size_t one = 1;
  CG_CL(clEnqueueNDRangeKernel, (q, stamp, 1, NULL, &one, &one, 0, NULL, ev));
cleanup:
  return rc;
}

/* ---- elementwise kernels ---- */

cg_rc cg_mlp_eltwise_create(cl_program program, const cg_device_info *info, cg_mlp_eltwise *ew,
                            cg_error *err) {
  cg_rc rc = CG_OK;
  cl_int code = CL_SUCCESS;
  static const char *const names[] = {"mlp_relu", "mlp_relu_backward", "mlp_sgd",
                                      "mlp_loss_dy", "mlp_loss_sum"};
  cl_kernel *kernels[] = {&ew->relu, &ew->relu_backward, &ew->sgd, &ew->loss_dy, &ew->loss_sum};
  memset(ew, 0, sizeof *ew);
  cg_cl_group_limits dev;
  CG_TRY(cg_cl_device_limits(info, &dev, err));
  for (int i = 0; i < 5; ++i) {
    *kernels[i] = clCreateKernel(program, names[i], &code);
    CG_CL_CHECK(clCreateKernel, code);
    /* The kernel's own limits, which can be far below the device's (rusticl on llvmpipe: 32
     * work-items). */
    cg_cl_group_limits lim = dev;
    CG_TRY(cg_cl_kernel_limits(info, *kernels[i], &lim, NULL, err));
    CG_CHECK(lim.items >= 1, CG_UNSUPPORTED, "kernel %s allows no work-items on this device",
             names[i]);
    ew->local[i] = cg_cl_row_width(&lim, 256);
    /* the loss kernels: a float of local memory per work-item, beside the kernel's own */
    if (kernels[i] == &ew->loss_dy || kernels[i] == &ew->loss_sum) {
      while (ew->local[i] > 1 && ew->local[i] * sizeof(float) > lim.local_mem) ew->local[i] /= 2;
      CG_CHECK(ew->local[i] * sizeof(float) <= lim.local_mem, CG_UNSUPPORTED,
               "kernel %s needs %zu bytes of local memory, the device has %llu left for it",
               names[i], ew->local[i] * sizeof(float), (unsigned long long)lim.local_mem);
    }
  }
cleanup:
  if (rc != CG_OK) cg_mlp_eltwise_release(ew);
  return rc;
}

void cg_mlp_eltwise_release(cg_mlp_eltwise *ew) {
  cl_kernel *kernels[] = {&ew->relu, &ew->relu_backward, &ew->sgd, &ew->loss_dy, &ew->loss_sum};
  for (int i = 0; i < 5; ++i)
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

cg_rc cg_mlp_gemm_set_operands(cl_kernel k, cl_uint at, const cg_mlp_gemm *g, cl_mem c,
                               float beta, cg_error *err) {
  cg_rc rc = CG_OK;
  const cl_int lda = (cl_int)g->lda, ldb = (cl_int)g->ldb;
  const cl_int sa[] = {g->ta ? 1 : lda, g->ta ? lda : 1}, sb[] = {g->tb ? 1 : ldb, g->tb ? ldb : 1};
  CG_CL(clSetKernelArg, (k, at, sizeof g->a, &g->a));
  CG_CL(clSetKernelArg, (k, at + 1, sizeof(cl_int), &sa[0]));
  CG_CL(clSetKernelArg, (k, at + 2, sizeof(cl_int), &sa[1]));
  CG_CL(clSetKernelArg, (k, at + 3, sizeof g->b, &g->b));
  CG_CL(clSetKernelArg, (k, at + 4, sizeof(cl_int), &sb[0]));
  CG_CL(clSetKernelArg, (k, at + 5, sizeof(cl_int), &sb[1]));
  CG_CL(clSetKernelArg, (k, at + 6, sizeof c, &c));
  CG_CL(clSetKernelArg, (k, at + 7, sizeof beta, &beta));
cleanup:
  return rc;
}

/* Elements per work-item of mlp_loss_dy: enough work-groups to spread the loads over the device
 * (batch x dout = 65536 on 256 work-items: 32 work-groups), one where a few hundred elements are
 * all (as before the partials: the loss in one launch). */
#define LOSS_PER_ITEM 8

int cg_mlp_loss_groups(const cg_mlp_eltwise *ew, size_t count) {
  const size_t most = ew->loss_groups > 0 && ew->loss_groups < CG_MLP_LOSS_PARTS
                          ? (size_t)ew->loss_groups
                          : (size_t)CG_MLP_LOSS_PARTS;
  const size_t per_group = ew->local[3] * LOSS_PER_ITEM;
  size_t groups = (count + per_group - 1) / per_group;
  if (groups > most) groups = most;
  return groups < 1 ? 1 : (int)groups;
}

cg_rc cg_mlp_loss_dy(const cg_mlp_eltwise *ew, cl_command_queue q, size_t count, cl_mem y,
                     cl_mem t, cl_mem dy, cl_mem part, cl_mem loss, int keep,
                     cg_device_span *span, cg_error *err) {
  cg_rc rc = CG_OK;
  /* runs of whole work-group strides, so that every work-group but the last is full (which
   * may leave fewer work-groups than asked for) */
  const size_t local = ew->local[3], stride = local * (size_t)cg_mlp_loss_groups(ew, count);
  const size_t chunk = (count + stride - 1) / stride * local;
  const size_t groups = (count + chunk - 1) / chunk, global = groups * local;
  const cl_int n = (cl_int)count, k = keep, c = (cl_int)chunk, ng = (cl_int)groups;
  /* one work-group writes the loss itself; several their partials, summed by mlp_loss_sum */
  const cl_mem sums = groups > 1 ? part : loss;
  CG_CL(clSetKernelArg, (ew->loss_dy, 0, sizeof n, &n));
  CG_CL(clSetKernelArg, (ew->loss_dy, 1, sizeof y, &y));
  CG_CL(clSetKernelArg, (ew->loss_dy, 2, sizeof t, &t));
  CG_CL(clSetKernelArg, (ew->loss_dy, 3, sizeof dy, &dy));
  CG_CL(clSetKernelArg, (ew->loss_dy, 4, sizeof sums, &sums));
  CG_CL(clSetKernelArg, (ew->loss_dy, 5, sizeof k, &k));
  CG_CL(clSetKernelArg, (ew->loss_dy, 6, local * sizeof(float), NULL));
  CG_CL(clSetKernelArg, (ew->loss_dy, 7, sizeof c, &c));
  CG_CL(clEnqueueNDRangeKernel,
        (q, ew->loss_dy, 1, NULL, &global, &local, 0, NULL, span ? &span->begin : NULL));
  if (keep && groups > 1) {
    const size_t local2 = ew->local[4];
    CG_CL(clSetKernelArg, (ew->loss_sum, 0, sizeof ng, &ng));
    CG_CL(clSetKernelArg, (ew->loss_sum, 1, sizeof part, &part));
    CG_CL(clSetKernelArg, (ew->loss_sum, 2, sizeof loss, &loss));
    CG_CL(clSetKernelArg, (ew->loss_sum, 3, local2 * sizeof(float), NULL));
    CG_CL(clEnqueueNDRangeKernel,
          (q, ew->loss_sum, 1, NULL, &local2, &local2, 0, NULL, span ? &span->end : NULL));
  }
cleanup:
  return rc;
}

/* ---- the per-op step ---- */

cg_rc cg_mlp_step_create(const cg_device *dev, const cg_mlp_device *md, cg_mlp_step *st,
                         cg_error *err) {
  cg_rc rc = CG_OK;
  const cg_mlp_shape s = md->setup.shape;
  const size_t N = (size_t)s.batch, Din = (size_t)s.din, H = (size_t)s.hidden,
               O = (size_t)s.dout;
  CG_TRY(cg_mlp_buffer(dev, "h1 (batch x hidden)", N * H, &st->h1, err));
  CG_TRY(cg_mlp_buffer(dev, "h2 (batch x dout)", N * O, &st->h2, err));
  CG_TRY(cg_mlp_buffer(dev, "y (batch x dout)", N * O, &st->y, err));
  CG_TRY(cg_mlp_buffer(dev, "dy (batch x dout)", N * O, &st->dy, err));
  CG_TRY(cg_mlp_buffer(dev, "dz2 (batch x dout)", N * O, &st->d2, err));
  CG_TRY(cg_mlp_buffer(dev, "dz1 (batch x hidden)", N * H, &st->d1, err));
  CG_TRY(cg_mlp_buffer(dev, "g1 (din x hidden)", Din * H, &st->g1, err));
  CG_TRY(cg_mlp_buffer(dev, "g2 (hidden x dout)", H * O, &st->g2, err));
  CG_TRY(cg_mlp_buffer(dev, "loss partials", CG_MLP_LOSS_PARTS, &st->loss_part, err));
cleanup:
  return rc;
}

void cg_mlp_step_release(cg_mlp_step *st) {
  cg_mlp_eltwise_release(&st->ew);
  cl_mem *bufs[] = {&st->h1, &st->h2, &st->y,  &st->dy,        &st->d2,
                    &st->d1, &st->g1, &st->g2, &st->loss_part};
  for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; ++i) cg_cl_release_mem(bufs[i]);
}

/* The products of a step, in launch order, with their launch names. */
enum { P_H1, P_H2, P_Y, P_G3, P_DZ2, P_G2, P_DZ1, P_G1, NPRODUCTS };
static const char *const product_names[2][NPRODUCTS] = {
    {"h1 = x w1", "h2 = h1 w2", "y = h2 w3", "g3 += h2^T dy", "dy w3^T", "g2 = h1^T dz2",
     "dz2 w2^T", "g1 = x^T dz1"},
    {"h1 = x w1 (CLBlast)", "h2 = h1 w2 (CLBlast)", "y = h2 w3 (CLBlast)",
     "g3 += h2^T dy (CLBlast)", "dy w3^T (CLBlast)", "g2 = h1^T dz2 (CLBlast)",
     "dz2 w2^T (CLBlast)", "g1 = x^T dz1 (CLBlast)"}};

static cg_rc product(cg_mlp_step *st, cg_mlp_device *md, int which, bool ta, bool tb, size_t m,
                     size_t n, size_t k, cl_mem a, size_t lda, cl_mem b, size_t ldb, float beta,
                     cl_mem c, cg_error *err) {
  const cg_mlp_gemm g = {ta, tb, m, n, k, a, b, c, lda, ldb, beta};
  return st->product.gemm(st->product.ctx, md->queue, &g, &md->sampler,
                          product_names[st->product.clblast][which], err);
}

/* One step; keep: this step's loss is the run's; `last` (may be NULL) receives the event of its
 * last command. */
static cg_rc step(cg_mlp_step *st, cg_mlp_device *md, int keep, cl_event *last, cg_error *err) {
  cg_rc rc = CG_OK;
  const cg_mlp_shape s = md->setup.shape;
  const size_t N = (size_t)s.batch, Din = (size_t)s.din, H = (size_t)s.hidden,
               O = (size_t)s.dout;
  const cl_command_queue q = md->queue;
  const float lr = md->setup.lr;
  const bool w3 = md->setup.update_w3;
  cg_mlp_sampler *sm = &md->sampler;
  const bool sampled = sm->on;
  /* forward */
  CG_TRY(product(st, md, P_H1, false, false, N, H, Din, md->x, Din, md->w1, H, 0.0f, st->h1,
                 err));
  CG_TRY(cg_mlp_relu(&st->ew, q, N * H, st->h1, cg_mlp_kernel_event(sm, "relu h1", NULL), err));
  CG_TRY(product(st, md, P_H2, false, false, N, O, H, st->h1, H, md->w2, O, 0.0f, st->h2, err));
  CG_TRY(cg_mlp_relu(&st->ew, q, N * O, st->h2, cg_mlp_kernel_event(sm, "relu h2", NULL), err));
  CG_TRY(product(st, md, P_Y, false, false, N, O, O, st->h2, O, md->w3, O, 0.0f, st->y, err));
  CG_TRY(cg_mlp_loss_dy(&st->ew, q, N * O, st->y, md->t, st->dy, st->loss_part, md->loss, keep,
                        cg_mlp_sample(sm, "loss, dy"), err));
  /* backward: g3 += h2^T dy; dz2 = (dy w3^T) * (h2 > 0); g2 = h1^T dz2;
   * dz1 = (dz2 w2^T) * (h1 > 0); g1 = x^T dz1 */
  CG_TRY(product(st, md, P_G3, true, false, O, O, N, st->h2, O, st->dy, O, 1.0f, md->g3, err));
  CG_TRY(product(st, md, P_DZ2, false, true, N, O, O, st->dy, O, md->w3, O, 0.0f, st->d2, err));
  CG_TRY(cg_mlp_relu_backward(&st->ew, q, N * O, st->d2, st->h2,
                              cg_mlp_kernel_event(sm, "relu' dz2", NULL), err));
  CG_TRY(product(st, md, P_G2, true, false, H, O, N, st->h1, H, st->d2, O, 0.0f, st->g2, err));
  CG_TRY(product(st, md, P_DZ1, false, true, N, H, O, st->d2, O, md->w2, O, 0.0f, st->d1, err));
  CG_TRY(cg_mlp_relu_backward(&st->ew, q, N * H, st->d1, st->h1,
                              cg_mlp_kernel_event(sm, "relu' dz1", NULL), err));
  CG_TRY(product(st, md, P_G1, true, false, Din, H, N, md->x, Din, st->d1, H, 0.0f, st->g1,
                 err));
  /* updates */
  CG_TRY(cg_mlp_sgd(&st->ew, q, Din * H, lr, st->g1, md->w1, 0,
                    cg_mlp_kernel_event(sm, "sgd w1", NULL), err));
  CG_TRY(cg_mlp_sgd(&st->ew, q, H * O, lr, st->g2, md->w2, 0,
                    cg_mlp_kernel_event(sm, "sgd w2", w3 ? NULL : last), err));
  if (w3)
    CG_TRY(cg_mlp_sgd(&st->ew, q, O * O, lr, md->g3, md->w3, 1,
                      cg_mlp_kernel_event(sm, "sgd w3", last), err));
  if (sampled) cg_mlp_sampler_close(sm, last);
cleanup:
  return rc;
}

cg_rc cg_mlp_step_enqueue(cg_mlp_step *st, cg_mlp_device *md, int iters, cg_error *err) {
  cg_rc rc = CG_OK;
  cg_device_span *span = &md->span;
  CG_CHECK(iters >= 1, CG_BAD_INPUT, "mlp enqueue of %d iterations", iters);
  cg_mlp_device_run_begin(md);
  if (st->stamp) {
    CG_TRY(cg_mlp_stamp(md->queue, st->stamp, &span->begin, err));
    span->begin_at_end = true;
  }
  for (int i = 0; i < iters; ++i) {
    md->sampler.on = i == 0; /* events on the first iteration only */
    CG_TRY(step(st, md, i == 0, i == iters - 1 ? &span->end : NULL, err));
    /* Without a stamp the run begins where its first command does. */
    if (i == 0 && !st->stamp && md->sampler.n > 0 && md->sampler.spans[0].begin) {
      clRetainEvent(span->begin = md->sampler.spans[0].begin);
      span->begin_at_end = md->sampler.spans[0].begin_at_end;
    }
  }
cleanup:
  md->sampler.on = false;
  return rc;
}
