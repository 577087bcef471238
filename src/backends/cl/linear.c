/* The cl backend's implementation of the linear workload: variant "fused", two hand-written
 * kernels of cl/linear.cl per batch (forward with softmax and loss, then the update with the loss
 * accumulation), in the pageable, pinned and resident transfer modes of cl_linear_common, and in
 * resident mode one launch of cl/linear_persistent.cl per epoch (in pinned mode, per uploaded
 * group of batches) where its work-groups are resident at once (linear_persistent.c: the same
 * variant, since it computes the same thing and falls back to the same two launches; the
 * record's kernel path says which ran); and
 * variant "epoch", one launch of linear_epoch per epoch (a single work-group over every batch),
 * resident only. */
#include <math.h>
#include <string.h>

#include "backends/backends.h"
#include "backends/cl/linear_persistent.h"
#include "backends/opencl/cl_linear_common.h"
#include "clgauge/clock.h"
#include "clgauge/loop_limit.h"

/* linear_forward, then linear_update: see cl/linear.cl for why two. */
static cg_rc fused_compute(cg_linear_device *l, const cg_cl_linear_batch *bt, cg_error *err) {
  cg_rc rc = CG_OK;
  const cg_linear_shape s = l->setup.shape;
  const cl_int n = bt->n, F = s.features, C = s.classes, gather = bt->gather;
  const cl_mem idx = bt->gather ? l->order : bt->x; /* never read when dense */
  cl_kernel k = l->forward;
  CG_CL(clSetKernelArg, (k, 0, sizeof n, &n));
  CG_CL(clSetKernelArg, (k, 1, sizeof F, &F));
  CG_CL(clSetKernelArg, (k, 2, sizeof C, &C));
  CG_CL(clSetKernelArg, (k, 3, sizeof(cl_mem), &bt->x));
  CG_CL(clSetKernelArg, (k, 4, sizeof(cl_mem), &bt->labels));
  CG_CL(clSetKernelArg, (k, 5, sizeof(cl_mem), &idx));
  CG_CL(clSetKernelArg, (k, 6, sizeof gather, &gather));
  CG_CL(clSetKernelArg, (k, 7, sizeof bt->off, &bt->off));
  CG_CL(clSetKernelArg, (k, 8, sizeof bt->loff, &bt->loff));
  CG_CL(clSetKernelArg, (k, 9, sizeof(cl_mem), &l->w));
  CG_CL(clSetKernelArg, (k, 10, sizeof(cl_mem), &l->b));
  CG_CL(clSetKernelArg, (k, 11, sizeof(cl_mem), &l->g));
  CG_CL(clSetKernelArg, (k, 12, sizeof(cl_mem), &l->rowloss));
  CG_CL(clSetKernelArg, (k, 13, l->forward_local * 4 * sizeof(float), NULL));
  const size_t local = l->forward_local, global = (size_t)n * local;
  CG_CL(clEnqueueNDRangeKernel, (l->queue, k, 1, NULL, &global, &local, bt->wait ? 1 : 0,
                                 bt->wait ? &bt->wait : NULL,
                                 cg_cl_linear_event(l, CG_CL_LINEAR_KERNEL)));
  CG_TRY(cg_cl_linear_enqueue_update(l, bt, 0, 0, NULL, err));
cleanup:
  return rc;
}

static cg_rc cl_linear_prepare(const cg_backend_env *env, const char *variant, const char *mode,
                               const void *problem, void **state, cg_prepared *out,
                               cg_error *err) {
  cg_rc rc = CG_OK;
  cg_linear_device *l = NULL;
  CG_TRY(cg_cl_linear_create(env, mode, problem, false,
                             CG_CL_LINEAR_FORWARD | CG_CL_LINEAR_UPDATE, &l, out, err));
  l->compute = fused_compute; /* also the persistent path's fallback */
  l->launches = 2;
  if (l->transfer == CG_TRANSFER_RESIDENT || l->transfer == CG_TRANSFER_PINNED) {
    cg_build_tally tally = {0};
    CG_TRY(cg_cl_linear_persistent_setup(env, l, &out->config, &out->compile_ms, &tally, err));
    if (tally.builds > tally.cached) out->compile_kind = "source";
  }
  *state = l;
  l = NULL;
cleanup:
  cg_cl_linear_release(l); /* what was built before a failure */
  return rc;
}

/* One launch for the epoch: linear_epoch, a single work-group over every batch in order. */
static cg_rc epoch_compute(cg_linear_device *l, cg_error *err) {
  cg_rc rc = CG_OK;
  const cg_linear_shape s = l->setup.shape;
  const cl_int S = s.samples, B = s.batch, F = s.features, C = s.classes;
  const cl_float lr = l->setup.lr;
  cl_kernel k = l->epoch;
  CG_CL(clSetKernelArg, (k, 0, sizeof S, &S));
  CG_CL(clSetKernelArg, (k, 1, sizeof B, &B));
  CG_CL(clSetKernelArg, (k, 2, sizeof F, &F));
  CG_CL(clSetKernelArg, (k, 3, sizeof C, &C));
  CG_CL(clSetKernelArg, (k, 4, sizeof(cl_mem), &l->x));
  CG_CL(clSetKernelArg, (k, 5, sizeof(cl_mem), &l->labels));
  CG_CL(clSetKernelArg, (k, 6, sizeof(cl_mem), &l->order));
  CG_CL(clSetKernelArg, (k, 7, sizeof lr, &lr));
  CG_CL(clSetKernelArg, (k, 8, sizeof(cl_mem), &l->w));
  CG_CL(clSetKernelArg, (k, 9, sizeof(cl_mem), &l->b));
  CG_CL(clSetKernelArg, (k, 10, sizeof(cl_mem), &l->g));
  CG_CL(clSetKernelArg, (k, 11, sizeof(cl_mem), &l->loss));
  CG_CL(clSetKernelArg, (k, 12, l->epoch_local * 4 * sizeof(float), NULL));
  const size_t local = l->epoch_local, global = l->epoch_local;
  CG_CL(clEnqueueNDRangeKernel, (l->queue, k, 1, NULL, &global, &local, 0, NULL,
                                 cg_cl_linear_event(l, CG_CL_LINEAR_KERNEL)));
cleanup:
  return rc;
}

static const char *cl_linear_mode_unsupported(const char *variant, const char *mode) {
  if (strcmp(variant, "epoch") == 0 && strcmp(mode, "resident") != 0)
    return "variant epoch computes a whole epoch in one launch, from the dataset on the device: "
           "resident mode only";
  return NULL;
}

/* The loop iterations of a work-item of linear_epoch over one epoch of L work-items, counted
 * from cl/linear.cl's loops with each inner loop's trips within each outer one: per batch the
 * logits (R rows at a time, each split in P parts, classes four at a time, then the parts'
 * tree), the softmax of its rows (three passes over the classes) and the work-group's sum of
 * the loss, the update (features over the work-items, classes four at a time, every row). */
static double epoch_loop_trips(const cg_linear_shape s, size_t L) {
  const double n = s.batch < s.samples ? s.batch : s.samples, F = s.features, C = s.classes;
  double R = 1;
  while (R < n && R < (double)L) R *= 2;
  const double P = (double)L / R, c4 = ceil(C / 4);
  const double batch = ceil(n / R) * (1 + c4 * (ceil(F / P) + log2(P) + 1)) +
                       ceil(n / (double)L) * (3 * C + 1) + log2((double)L) +
                       ceil((F + 1) / (double)L) * (1 + c4 * (n + 1));
  return ceil((double)s.samples / s.batch) * (batch + 1);
}

static cg_rc cl_linear_epoch_prepare(const cg_backend_env *env, const char *mode,
                                     const void *problem, void **state, cg_prepared *out,
                                     cg_error *err) {
  cg_rc rc = CG_OK;
  cg_linear_device *l = NULL;
  const char *why = cl_linear_mode_unsupported("epoch", mode ? mode : "");
  CG_CHECK(!why, CG_UNSUPPORTED, "%s", why);
  CG_TRY(cg_cl_linear_create(env, mode, problem, false, CG_CL_LINEAR_EPOCH, &l, out, err));
  /* one work-item loops over the whole epoch: more than some drivers run (loop_limit.h); the
   * measure, where there is one to make, counts as compile time (it builds a program) */
  uint64_t limit = 0;
  const uint64_t t0 = cg_now_ns();
  CG_TRY(cg_backend_loop_limit(env, &limit, err));
  out->compile_ms += cg_ns_to_ms(cg_now_ns() - t0);
  const double trips = epoch_loop_trips(l->setup.shape, l->epoch_local);
  CG_CHECK(cg_loop_limit_holds(limit, trips), CG_UNSUPPORTED,
           "variant epoch would loop %.0f times in a work-item of one launch, and this driver "
           "ends a work-item's loops after %llu",
           trips, (unsigned long long)limit);
  l->compute_epoch = epoch_compute;
  l->launches = -1; /* one launch per epoch: no whole number per batch */
  *state = l;
  l = NULL;
cleanup:
  cg_cl_linear_release(l);
  return rc;
}

static cg_rc cl_linear_prepare_variant(const cg_backend_env *env, const char *variant,
                                       const char *mode, const void *problem, void **state,
                                       cg_prepared *out, cg_error *err) {
  if (strcmp(variant, "epoch") == 0)
    return cl_linear_epoch_prepare(env, mode, problem, state, out, err);
  return cl_linear_prepare(env, variant, mode, problem, state, out, err);
}

static const char *const cl_linear_variants[] = {"fused", "epoch", NULL};
/* Batches per upload of the pinned mode, the host threads gathering them (where the host's
 * memory stops the gather from gaining depends on the host: on an H100's, at 2 MB batches, 8
 * threads gathered faster than 4 and 16 no faster than 8; bench/RESULTS.md, 2026-12-05) and the
 * device buffers the groups are uploaded into; the epoch kernel's one work-group. */
static const cg_tune_space cl_linear_tune[] = {
    {"fused",
     "pinned",
     3,
     {{"GROUP", 7, {1, 2, 4, 8, 16, 32, 64}},
      {"THREADS", 5, {1, 2, 4, 8, 16}},
      {"SLOTS", 3, {2, 3, 4}}}},
    {"epoch", "resident", 1, {{"WG_EPOCH", 6, {32, 64, 128, 256, 512, 1024}}}},
    {NULL, NULL, 0, {{NULL, 0, {0}}}},
};
const cg_impl cg_cl_linear = {
    .workload = "linear",
    .backend = &cg_backend_cl,
    .variants = cl_linear_variants,
    .modes = cg_cl_linear_modes,
    .kernel_params = cg_cl_linear_epoch_kernel_params,
    .tune_spaces = cl_linear_tune,
    .mode_unsupported = cl_linear_mode_unsupported,
    .prepare = cl_linear_prepare_variant,
    .upload = cg_cl_linear_upload,
    .enqueue = cg_cl_linear_enqueue,
    .finish = cg_cl_linear_finish,
    .download = cg_cl_linear_download,
    .release = cg_cl_linear_release,
};
