/* The fused linear variant's persistent path (see linear_persistent.h and
 * cl/linear_persistent.cl). */
#include "backends/cl/linear_persistent.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/cl/persistent.h"
#include "clgauge/clock.h"
#include "clgauge/device.h"
#include "clgauge/grid.h"

typedef struct linear_persistent {
  cl_program program;
  cl_kernel kernel;
  cl_mem part, w_saved, b_saved; /* b_saved: the bias, then the epoch's loss pair */
  cl_mem fail_at;                /* one int: the first failed launch + 1, or 0 */
  cl_mem count;                  /* 3 ints: the barrier's arrivals by barrier number (SYNC=1) */
  cl_int base;                   /* the number modulo 3 of the next launch's first barrier */
  cl_int failed_at;              /* fail_at read back after the epoch's last launch */
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
  cg_cl_release_mem(&p->fail_at);
  cg_cl_release_mem(&p->count);
  cg_grid_release(&p->grid);
  if (p->kernel) clReleaseKernel(p->kernel);
  if (p->program) clReleaseProgram(p->program);
  free(p);
}

/* The kernel's local arguments, in elements of 4 bytes: xs, ws, zs, rl, bs, lb, red (see
 * cl/linear_persistent.cl). */
static void local_sizes(size_t rows, size_t C, size_t F, size_t groups, size_t local,
                        size_t out[7]) {
  const size_t slice = (F + groups - 1) / groups;
  size_t parts = rows > local ? rows : local;
  if (slice > parts) parts = slice;
  const size_t sizes[7] = {rows * slice, C * slice, rows * C, rows, C, rows, C * parts};
  memcpy(out, sizes, sizeof sizes);
}

/* The partials of one batch parity: rows x classes logits, each with one float per group, the
 * groups rounded up to 4 (read as float4). */
static size_t part_floats(size_t rows, size_t C, size_t groups) {
  return rows * C * ((groups + 3) / 4 * 4);
}

/* What one launch covers: S samples from X (through idx when gathered; labels from element
 * loff of lab), the launch's number within the epoch, whether it holds the epoch's first batch,
 * and the upload it waits for (or NULL). */
typedef struct launch_span {
  cl_int S;
  cl_mem X, lab, idx;
  cl_ulong loff;
  cl_int launch, first;
  cl_event wait;
} launch_span;

/* One launch of the kernel; its event into *ev (may be NULL), then, after the epoch's last
 * launch, the read of fail_at. */
static cg_rc enqueue_launch(cg_linear_device *l, const launch_span *sp, bool last, cl_event *ev,
                            cg_error *err) {
  cg_rc rc = CG_OK;
  linear_persistent *p = l->ext;
  const cg_linear_shape s = l->setup.shape;
  const cl_int B = s.batch, F = s.features;
  const cl_float lr = l->setup.lr;
  cl_kernel k = p->kernel;
  cl_uint a = 0;
  CG_CL(clSetKernelArg, (k, a++, sizeof sp->S, &sp->S));
  CG_CL(clSetKernelArg, (k, a++, sizeof B, &B));
  CG_CL(clSetKernelArg, (k, a++, sizeof F, &F));
  const cl_mem in[] = {sp->X, sp->lab, sp->idx};
  for (int i = 0; i < 3; ++i) CG_CL(clSetKernelArg, (k, a++, sizeof(cl_mem), &in[i]));
  CG_CL(clSetKernelArg, (k, a++, sizeof sp->loff, &sp->loff));
  CG_CL(clSetKernelArg, (k, a++, sizeof lr, &lr));
  const cl_mem out[] = {l->w,    l->b,          p->w_saved, p->b_saved, p->part,
                        l->loss, p->grid.state, p->fail_at, p->count};
  for (int i = 0; i < 9; ++i) CG_CL(clSetKernelArg, (k, a++, sizeof(cl_mem), &out[i]));
  CG_CL(clSetKernelArg, (k, a++, sizeof p->base, &p->base));
  CG_CL(clSetKernelArg, (k, a++, sizeof p->spin, &p->spin));
  CG_CL(clSetKernelArg, (k, a++, sizeof sp->launch, &sp->launch));
  CG_CL(clSetKernelArg, (k, a++, sizeof sp->first, &sp->first));
  size_t local_args[7];
  local_sizes((size_t)l->rows, (size_t)s.classes, (size_t)F, p->groups, p->local, local_args);
  for (int i = 0; i < 7; ++i)
    CG_CL(clSetKernelArg, (k, a++, local_args[i] * sizeof(float), NULL));
  const size_t global = p->groups * p->local;
  CG_CL(clEnqueueNDRangeKernel, (l->queue, k, 1, NULL, &global, &p->local, sp->wait ? 1 : 0,
                                 sp->wait ? &sp->wait : NULL, ev));
  p->base = (cl_int)((p->base + (sp->S + B - 1) / B) % 3); /* a barrier per batch */
  if (last)
    CG_CL(clEnqueueReadBuffer, (l->queue, p->fail_at, CL_FALSE, 0, sizeof p->failed_at,
                                &p->failed_at, 0, NULL, NULL));
cleanup:
  return rc;
}

/* resident: the epoch in one launch. */
static cg_rc persistent_epoch(cg_linear_device *l, cg_error *err) {
  const launch_span sp = {l->setup.shape.samples, l->x, l->labels, l->order, 0, 0, 1, NULL};
  return enqueue_launch(l, &sp, true, cg_cl_linear_event(l, CG_CL_LINEAR_KERNEL), err);
}

/* pinned: a group of batches in one launch, dense; its event orders the slot's next upload.
 * fail_at is read by persistent_groups_failed. */
static cg_rc persistent_group(cg_linear_device *l, const cg_cl_linear_group *grp,
                              cg_error *err) {
  const cl_ulong loff = (cl_ulong)grp->rows * (cl_ulong)l->setup.shape.features;
  const launch_span sp = {grp->rows, grp->x, grp->x, grp->x, loff, grp->index, grp->k0 == 0,
                          grp->wait};
  return enqueue_launch(l, &sp, false, cg_cl_linear_event_needed(l, CG_CL_LINEAR_KERNEL), err);
}

/* After the epoch: when a launch failed, w, b and (pinned) the loss so far back from the copies
 * that launch took first (resident: the redo's first batch sets the loss), the barrier's state
 * and fail_at zeroed, launches from now on, and the launch's number into *from. */
static cg_rc persistent_failed(cg_linear_device *l, int *from, cg_error *err) {
  cg_rc rc = CG_OK;
  linear_persistent *p = l->ext;
  *from = p->failed_at - 1;
  if (p->failed_at == 0) return CG_OK;
  const size_t C = (size_t)l->setup.shape.classes, bytes = C * (size_t)l->setup.shape.features * 4;
  CG_CL(clEnqueueCopyBuffer, (l->queue, p->w_saved, l->w, 0, 0, bytes, 0, NULL, NULL));
  CG_CL(clEnqueueCopyBuffer, (l->queue, p->b_saved, l->b, 0, 0, C * 4, 0, NULL, NULL));
  CG_CL(clEnqueueCopyBuffer, (l->queue, p->b_saved, l->loss, C * 4, 0, 2 * 4, 0, NULL, NULL));
  CG_TRY(cg_grid_reset(l->queue, &p->grid, err));
  CG_TRY(cg_cl_persist_zero(l->queue, p->count, 3 * sizeof(cl_int), err));
  p->base = 0;
  p->failed_at = 0;
  CG_CL(clEnqueueWriteBuffer, (l->queue, p->fail_at, CL_TRUE, 0, sizeof p->failed_at,
                               &p->failed_at, 0, NULL, NULL));
  l->compute_epoch = NULL;
  l->compute_group = NULL;
  l->launches = 2;
  l->path = cg_cl_persist_failed_path;
cleanup:
  return rc;
}

/* pinned: fail_at read here, blocking: the epoch's commands are done, and with a read enqueued
 * after the last launch rusticl (Mesa 22.3) had not written the host's copy when clFinish
 * returned (the failure went unseen). */
static cg_rc persistent_groups_failed(cg_linear_device *l, int *from, cg_error *err) {
  cg_rc rc = CG_OK;
  linear_persistent *p = l->ext;
  CG_CL(clEnqueueReadBuffer, (l->queue, p->fail_at, CL_TRUE, 0, sizeof p->failed_at,
                              &p->failed_at, 0, NULL, NULL));
  CG_TRY(persistent_failed(l, from, err));
cleanup:
  return rc;
}

static cg_rc persistent_check(cg_linear_device *l, bool *redo, cg_error *err) {
  int from = -1;
  const cg_rc rc = persistent_failed(l, &from, err);
  *redo = from >= 0;
  return rc;
}

/* Elements of a batch's slice that each work-item fetches ahead into registers: enough for
 * `asked` work-items to hold the slice, at most 16 (registers are an NVIDIA SM's occupancy;
 * beyond them the kernel loads the rest in the batch itself). */
static int pick_xreg(size_t rows, size_t slice, size_t asked) {
  const size_t need = (rows * slice + asked - 1) / asked;
  return need < 1 ? 1 : need > 16 ? 16 : (int)need;
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
  const bool pinned = l->transfer == CG_TRANSFER_PINNED;
  /* about 64 features per group: each group sums every group's partials, G x rows x C loads
   * of L2 per work-group and batch, so more groups than that cost more than they share; at most
   * a group per compute unit */
  const size_t by_features = (F + 63) / 64;
  const size_t cu = cg_device_units(info);
  const int groups = (int)(by_features < cu ? by_features : cu);
  size_t local_bytes = 0;
  bool fits = false;
  char why[160];
  cg_cl_persist_plan plan;
  bool want = false;
  CG_TRY(cg_cl_persist_want(env, groups, true, config, &plan, &want, err));
  if (!want) goto cleanup;
  const size_t slice = (F + (size_t)plan.groups - 1) / (size_t)plan.groups;
  /* 256 work-items on a GPU (eight warps for the sums of step 3), 64 elsewhere; any count (the
   * kernel's loops stride by the group's size) */
  size_t asked = 0;
  int prefetch = 1, sync = 1;
  cg_origin local_origin, prefetch_origin, sync_origin;
  CG_TRY(cg_cl_persist_ask_local(env, (info->type & CL_DEVICE_TYPE_GPU) ? 256 : 64, false, &asked,
                                 &local_origin, err));
  /* PREFETCH: 1 (default) loads each batch's indices, rows and labels ahead, during the batch
   * before; 0 loads them at the top of their batch. SYNC: 1 (default) the barrier that counts
   * arrivals per barrier number, 0 the generation barrier (cl/grid_sync.cl). */
  CG_TRY(cg_kernel_override_in(env->overrides, "PREFETCH", 1, 0, 1,
                               "0 (rows loaded in their batch) or 1 (a batch ahead)", &prefetch,
                               &prefetch_origin, err));
  CG_TRY(cg_kernel_override_in(env->overrides, "SYNC", 1, 0, 1,
                               "0 (generation barrier) or 1 (arrivals counted per barrier)", &sync,
                               &sync_origin, err));
  /* the kernel first: its work-group limit is part of the shape to check */
  p = calloc(1, sizeof *p);
  CG_CHECK(p, CG_ERROR, "out of memory");
  char options[160];
  snprintf(options, sizeof options,
           "-DCG_CLASSES=%d -DCG_GROUPS=%d -DCG_XREG=%d -DCG_PREFETCH=%d -DCG_GATHER=%d "
           "-DCG_SYNC=%d",
           s.classes, plan.groups, pick_xreg(rows, slice, asked), prefetch, pinned ? 0 : 1, sync);
  const uint64_t t0 = cg_now_ns();
  CG_TRY(cg_backend_build(env, "linear_persistent.cl", options, &p->program, tally, err));
  p->kernel = clCreateKernel(p->program, "linear_persistent", &code);
  CG_CL_CHECK(clCreateKernel, code);
  *compile_ms += cg_ns_to_ms(cg_now_ns() - t0);
  CG_TRY(cg_cl_persist_fit_local(info, p->kernel, "linear_persistent", asked, false, &p->local,
                                 &local_origin, err));
  size_t local_args[7];
  local_sizes(rows, C, F, (size_t)plan.groups, p->local, local_args);
  local_bytes = sizeof(int); /* the barrier's verdict */
  for (int i = 0; i < 7; ++i) local_bytes += local_args[i] * sizeof(float);
  fits = local_bytes <= info->local_mem;
  snprintf(why, sizeof why,
           "the persistent kernel needs %zu bytes of local memory at this batch, classes and "
           "work-groups, the device has %llu",
           local_bytes, (unsigned long long)info->local_mem);
  CG_TRY(cg_cl_persist_check(env,
                             pinned ? "persistent, one launch per upload group"
                                    : "persistent, one launch per epoch",
                             p->local, local_bytes, fits, why, config, &plan, err));
  if (!plan.on) goto cleanup;
  cg_kernel_config_set(config, "WG_PERSIST", (int)p->local, local_origin);
  cg_kernel_config_set(config, "PREFETCH", prefetch, prefetch_origin);
  cg_kernel_config_set(config, "SYNC", sync, sync_origin);
  p->groups = (size_t)plan.groups;
  p->spin = plan.spin;
  p->local_bytes = local_bytes;
  const cg_device *dev = l->dev;
  /* zeroed once: the padding beyond the groups is summed and never written */
  const size_t part_bytes = 2 * part_floats(rows, C, p->groups) * sizeof(float);
  CG_TRY(cg_cl_buffer(dev, "the partial logits (2 x rows x classes x groups)", part_bytes,
                      CL_MEM_READ_WRITE, &p->part, err));
  CG_TRY(cg_cl_persist_zero(l->queue, p->part, part_bytes, err));
  CG_TRY(cg_cl_buffer(dev, "the copy of w", C * F * sizeof(float), CL_MEM_READ_WRITE,
                      &p->w_saved, err));
  CG_TRY(cg_cl_buffer(dev, "the copy of b and the loss", (C + 2) * sizeof(float),
                      CL_MEM_READ_WRITE, &p->b_saved, err));
  CG_TRY(cg_cl_buffer(dev, "the failed launch", sizeof(cl_int), CL_MEM_READ_WRITE, &p->fail_at,
                      err));
  CG_TRY(cg_cl_persist_zero(l->queue, p->fail_at, sizeof(cl_int), err));
  CG_TRY(cg_cl_buffer(dev, "the barrier's counts", 3 * sizeof(cl_int), CL_MEM_READ_WRITE,
                      &p->count, err));
  CG_TRY(cg_cl_persist_zero(l->queue, p->count, 3 * sizeof(cl_int), err));
  CG_TRY(cg_grid_create(dev, &p->grid, err));
  if (pinned) {
    l->compute_group = persistent_group;
    l->check_groups = persistent_groups_failed;
  } else {
    l->compute_epoch = persistent_epoch;
    l->check_epoch = persistent_check;
  }
  l->launches = -1; /* one launch per epoch or group: no whole number per batch */
  l->ext = p;
  l->ext_release = persistent_release;
  p = NULL;
cleanup:
  persistent_release(p);
  return rc;
}
