/* The fused linear variant's persistent path (see linear_persistent.h and
 * cl/linear_persistent.cl). */
#include "backends/cl/linear_persistent.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/cl/persistent.h"
#include "clgauge/clock.h"
#include "clgauge/grid.h"

typedef struct linear_persistent {
  cl_program program;
  cl_kernel kernel;
  cl_mem part, w_saved, b_saved;
  cg_grid grid;
  size_t groups, local, local_bytes;
  cl_int spin; /* the barrier's polls before it gives up */
} linear_persistent;

static void persistent_release(void *ext) {
  linear_persistent *p = ext;
  if (!p) return;
  cg_cl_release_mem(&p->part);
  cg_cl_release_mem(&p->w_saved);
  cg_cl_release_mem(&p->b_saved);
  cg_grid_release(&p->grid);
  if (p->kernel) clReleaseKernel(p->kernel);
  if (p->program) clReleaseProgram(p->program);
  free(p);
}

/* The epoch in one launch, then the read of its failure flag. */
static cg_rc persistent_epoch(cg_linear_device *l, cg_error *err) {
  cg_rc rc = CG_OK;
  linear_persistent *p = l->ext;
  const cg_linear_shape s = l->setup.shape;
  const cl_int S = s.samples, B = s.batch, F = s.features, C = s.classes;
  const cl_float lr = l->setup.lr;
  const size_t rows = (size_t)l->rows;
  cl_kernel k = p->kernel;
  const cl_int ints[] = {S, B, F, C};
  for (cl_uint i = 0; i < 4; ++i) CG_CL(clSetKernelArg, (k, i, sizeof(cl_int), &ints[i]));
  const cl_mem in[] = {l->x, l->labels, l->order};
  for (cl_uint i = 0; i < 3; ++i) CG_CL(clSetKernelArg, (k, 4 + i, sizeof(cl_mem), &in[i]));
  CG_CL(clSetKernelArg, (k, 7, sizeof lr, &lr));
  const cl_mem out[] = {l->w, l->b, p->w_saved, p->b_saved, p->part, l->loss, p->grid.state};
  for (cl_uint i = 0; i < 7; ++i) CG_CL(clSetKernelArg, (k, 8 + i, sizeof(cl_mem), &out[i]));
  CG_CL(clSetKernelArg, (k, 15, sizeof p->spin, &p->spin));
  const size_t slice = ((size_t)F + p->groups - 1) / p->groups;
  const size_t local_args[] = {rows * slice, (size_t)C * slice, rows * (size_t)C, rows,
                               (size_t)C, rows};
  for (cl_uint i = 0; i < 6; ++i)
    CG_CL(clSetKernelArg, (k, 16 + i, local_args[i] * sizeof(float), NULL));
  const size_t global = p->groups * p->local;
  CG_CL(clEnqueueNDRangeKernel, (l->queue, k, 1, NULL, &global, &p->local, 0, NULL,
                                 cg_cl_linear_event(l, CG_CL_LINEAR_KERNEL)));
  CG_TRY(cg_grid_read_failure(l->queue, &p->grid, err));
cleanup:
  return rc;
}

/* A failed launch: w and b back from the copies the kernel took first (the loss is set by the
 * redo's first batch), the barrier's state zeroed, and launches from now on. */
static cg_rc persistent_check(cg_linear_device *l, bool *redo, cg_error *err) {
  cg_rc rc = CG_OK;
  linear_persistent *p = l->ext;
  *redo = cg_grid_failed(&p->grid);
  if (!*redo) return CG_OK;
  const size_t C = (size_t)l->setup.shape.classes, bytes = C * (size_t)l->setup.shape.features * 4;
  CG_CL(clEnqueueCopyBuffer, (l->queue, p->w_saved, l->w, 0, 0, bytes, 0, NULL, NULL));
  CG_CL(clEnqueueCopyBuffer, (l->queue, p->b_saved, l->b, 0, 0, C * 4, 0, NULL, NULL));
  CG_TRY(cg_grid_reset(l->queue, &p->grid, err));
  l->compute_epoch = NULL;
  l->launches = 2;
  l->path = cg_cl_persist_failed_path;
cleanup:
  return rc;
}

/* Work-items per group: 256 on a GPU (eight warps for the sums of step 3), 64 elsewhere; within
 * the kernel's limit. */
static cg_rc pick_local(const cg_backend_env *env, const cg_device_info *info, cl_kernel k,
                        size_t *local, cg_origin *origin, cg_error *err) {
  cg_rc rc = CG_OK;
  const size_t want = (info->type & CL_DEVICE_TYPE_GPU) ? 256 : 64;
  *origin = CG_ORIGIN_DEFAULT;
  const int asked = cg_kernel_override(env->overrides, "WG_PERSIST", (int)want, origin);
  CG_CHECK(asked >= 1, CG_BAD_INPUT, "--kernel-param WG_PERSIST=%d: below 1", asked);
  size_t most = 0;
  CG_TRY(cg_cl_persist_most_items(info, k, &most, err));
  CG_CHECK(*origin != CG_ORIGIN_OVERRIDE || (size_t)asked <= most, CG_BAD_INPUT,
           "--kernel-param WG_PERSIST=%d: kernel linear_persistent allows %zu work-items here",
           asked, most);
  *local = (size_t)asked <= most ? (size_t)asked : most;
  if (*local < (size_t)asked) *origin = CG_ORIGIN_FALLBACK;
cleanup:
  return rc;
}

cg_rc cg_cl_linear_persistent_setup(const cg_backend_env *env, cg_linear_device *l,
                                    cg_kernel_config *config, double *compile_ms,
                                    cg_build_tally *tally, cg_error *err) {
  cg_rc rc = CG_OK;
  cl_int code = CL_SUCCESS;
  linear_persistent *p = NULL;
  const cg_linear_shape s = l->setup.shape;
  const size_t F = (size_t)s.features, C = (size_t)s.classes, rows = (size_t)l->rows;
  const cg_device_info *info = l->info;
  /* about 64 features per group: each group sums every group's partials, G x rows x C loads
   * of L2 per work-group and batch, so more groups than that cost more than they share; at most
   * a group per compute unit */
  const size_t by_features = (F + 63) / 64;
  const size_t cu = info->compute_units ? info->compute_units : 1;
  const int groups = (int)(by_features < cu ? by_features : cu);
  size_t local_bytes = 0;
  bool fits = false;
  char why[160];
  cg_cl_persist_plan plan;
  bool want = false;
  CG_TRY(cg_cl_persist_want(env, groups, true, config, &plan, &want, err));
  if (!want) goto cleanup;
  const size_t slice = (F + (size_t)plan.groups - 1) / (size_t)plan.groups;
  local_bytes = (rows * slice + C * slice + rows * C + rows + C + rows + 1) * sizeof(float);
  fits = local_bytes <= info->local_mem;
  snprintf(why, sizeof why,
           "the persistent kernel needs %zu bytes of local memory at this batch, classes and "
           "work-groups, the device has %llu",
           local_bytes, (unsigned long long)info->local_mem);
  /* the kernel first: its work-group limit is part of the shape to check */
  p = calloc(1, sizeof *p);
  CG_CHECK(p, CG_ERROR, "out of memory");
  const uint64_t t0 = cg_now_ns();
  CG_TRY(cg_backend_build(env, "linear_persistent.cl", NULL, &p->program, tally, err));
  p->kernel = clCreateKernel(p->program, "linear_persistent", &code);
  CG_CL_CHECK(clCreateKernel, code);
  *compile_ms += cg_ns_to_ms(cg_now_ns() - t0);
  cg_origin local_origin;
  CG_TRY(pick_local(env, info, p->kernel, &p->local, &local_origin, err));
  CG_TRY(cg_cl_persist_check(env, "persistent, one launch per epoch", p->local, local_bytes,
                             fits, why, config, &plan, err));
  if (!plan.on) goto cleanup;
  cg_kernel_config_set(config, "WG_PERSIST", (int)p->local, local_origin);
  p->groups = (size_t)plan.groups;
  p->spin = plan.spin;
  p->local_bytes = local_bytes;
  const cg_device *dev = l->dev;
  CG_TRY(cg_cl_buffer(dev, "the partial logits (2 x groups x rows x classes)",
                      2 * p->groups * rows * C * sizeof(float), CL_MEM_READ_WRITE, &p->part,
                      err));
  CG_TRY(cg_cl_persist_zero(l->queue, p->part, 2 * p->groups * rows * C * sizeof(float), err));
  CG_TRY(cg_cl_buffer(dev, "the copy of w", C * F * sizeof(float), CL_MEM_READ_WRITE,
                      &p->w_saved, err));
  CG_TRY(cg_cl_buffer(dev, "the copy of b", C * sizeof(float), CL_MEM_READ_WRITE, &p->b_saved,
                      err));
  CG_TRY(cg_grid_create(dev, &p->grid, err));
  l->compute_epoch = persistent_epoch;
  l->check_epoch = persistent_check;
  l->launches = -1; /* one launch per epoch: no whole number per batch */
  l->ext = p;
  l->ext_release = persistent_release;
  p = NULL;
cleanup:
  persistent_release(p);
  return rc;
}
