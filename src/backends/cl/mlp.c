/* The mlp workload on hand-written kernels from cl/mlp.cl, in two variants: "per-op", one launch
 * per operation as an eager framework issues them (the shared per-op step with the mlp_gemm
 * kernel as its product), and "fused", which picks by shape (cg_fused_strategy) between two or
 * three launches of the fused kernels per iteration and the products step: the per-op step with
 * each product on a kernel that suits its shape (mlp_products.c). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/backends.h"
#include "backends/cl/mlp_fused_config.h"
#include "backends/cl/mlp_persistent.h"
#include "backends/cl/mlp_products.h"
#include "backends/opencl/cl_mlp_common.h"
#include "clgauge/clock.h"
#include "clgauge/device.h"
#include "clgauge/loop_limit.h"

enum { VARIANT_PER_OP, VARIANT_FUSED };

typedef struct cl_mlp {
  cg_mlp_device md;
  bool stepped; /* runs the per-op step (per-op, or fused by the products strategy) */
  cl_program program;
  /* per-op */
  cg_mlp_step step;
  cl_kernel gemm;
  size_t ts;
  cg_mlp_products prod; /* the products strategy */
  /* fused; with a split iteration, launch G's program and kernel and its configuration too */
  cl_kernel wide, reduce, small, dz1k;
  cl_kernel loss_sum; /* the loss from launch B's work-groups' partials (BRG > 1) */
  cg_fused_config cfg;
  cl_program gprogram;
  cl_kernel gwide;
  cg_fused_config gcfg;
  cl_mem h1, h2, dy, dz2, dz1, w2p, part, part2, lossp;
  /* w1 with rows LDH floats apart for the fused launches, copied from md's dense w1 at upload and
   * back at download (NULL where LDH is hidden); dense_w1: LDH is hidden, since the persistent
   * path, which takes md's w1, runs beside the launches */
  cl_mem w1p;
  cl_kernel copy_rows;
  bool dense_w1;
  cg_cl_mlp_persistent *persist; /* fused: a run in one launch, where it runs (NULL: launches) */
  /* fused with the persistent path on: the fused kernels, its fallback, are built only when a
   * persistent launch fails (ensure_fused), with what prepare had: its device, kernel directory
   * and binary cache (the engine's, alive until the release), and a copy of its overrides */
  bool fused_pending;
  cg_backend_env fused_env;
  cg_kernel_overrides fused_overrides;
} cl_mlp;

static void cl_mlp_release(void *state) {
  cl_mlp *m = state;
  if (!m) return;
  cg_mlp_device_release(&m->md);
  cg_mlp_step_release(&m->step);
  cg_mlp_products_release(&m->prod);
  cg_cl_mlp_persistent_release(m->persist);
  cl_kernel kernels[] = {m->gemm, m->wide,      m->reduce,    m->small,
                         m->dz1k, m->loss_sum, m->copy_rows, m->gwide};
  for (size_t i = 0; i < sizeof kernels / sizeof kernels[0]; ++i)
    if (kernels[i]) clReleaseKernel(kernels[i]);
  cl_mem *bufs[] = {&m->h1,  &m->h2,   &m->dy,    &m->dz2,   &m->dz1,
                    &m->w2p, &m->part, &m->part2, &m->lossp, &m->w1p};
  for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; ++i) cg_cl_release_mem(bufs[i]);
  if (m->program) clReleaseProgram(m->program);
  if (m->gprogram) clReleaseProgram(m->gprogram);
  free(m);
}

/* ---- per-op ---------------------------------------------------------------------------- */

/* mlp_gemm's tiles of A and B, padded by a column. */
static size_t gemm_local_bytes(size_t ts) { return 2 * ts * (ts + 1) * sizeof(float); }

/* Build with gemm work-groups of ts x ts, as large as the device allows up to 16 and as its local
 * memory holds the tiles. A driver may allow the built kernel fewer work-items than the device
 * (rusticl on llvmpipe: 32), or the kernel may need more local memory than its tiles
 * (CL_KERNEL_LOCAL_MEM_SIZE counts what the driver adds): then the build is redone with the
 * next edge that fits, as the matmul kernels of the cl backend do. */
static cg_rc build_per_op(const cg_backend_env *env, cl_mlp *m, cg_kernel_config *config,
                          cg_build_tally *tally, cg_error *err) {
  cg_rc rc = CG_OK;
  cl_int code = CL_SUCCESS;
  const cg_device_info *info = cg_device_get_info(cg_cl_env_device(env));
  cg_cl_group_limits dev;
  CG_TRY(cg_cl_device_limits(info, &dev, err));
  const size_t edge = cg_cl_square_edge(&dev, 16);
  size_t ts = edge;
  while (ts > 1 && gemm_local_bytes(ts) > dev.local_mem) ts /= 2;
  for (;;) {
    CG_CHECK(gemm_local_bytes(ts) <= dev.local_mem, CG_UNSUPPORTED,
             "kernel mlp_gemm needs %zu bytes of local memory at TS=%zu, the device has %llu",
             gemm_local_bytes(ts), ts, (unsigned long long)dev.local_mem);
    snprintf(config->build_options, sizeof config->build_options, "-DTS=%zu", ts);
    CG_TRY(cg_backend_build(env, "mlp.cl", config->build_options, &m->program, tally, err));
    m->gemm = clCreateKernel(m->program, "mlp_gemm", &code);
    CG_CL_CHECK(clCreateKernel, code);
    cg_cl_group_limits lim = dev;
    uint64_t used = 0;
    CG_TRY(cg_cl_kernel_limits(info, m->gemm, &lim, &used, err));
    if (lim.items >= ts * ts && used <= dev.local_mem) break;
    const size_t next = used > dev.local_mem ? ts / 2 : cg_cl_square_edge(&lim, ts);
    CG_CHECK(next >= 1 && next < ts, CG_UNSUPPORTED,
             "kernel mlp_gemm allows %zu work-items per group and needs %llu bytes of local "
             "memory on this device (it has %llu)",
             lim.items, (unsigned long long)used, (unsigned long long)dev.local_mem);
    ts = next;
    clReleaseKernel(m->gemm);
    clReleaseProgram(m->program);
    m->gemm = NULL;
    m->program = NULL;
  }
  m->ts = ts;
  cg_kernel_config_set(config, "TS", (int)ts, ts < edge ? CG_ORIGIN_FALLBACK : CG_ORIGIN_DEFAULT);
  CG_TRY(cg_mlp_eltwise_create(m->program, info, &m->step.ew, err));
cleanup:
  return rc;
}

/* The product of the per-op step: mlp_gemm, which reads each operand through a row and a column
 * stride, so that a transposed operand is the stored one read the other way. */
static cg_rc gemm(void *ctx, cl_command_queue q, const cg_mlp_gemm *g, cg_mlp_sampler *sm,
                  const char *name, cg_error *err) {
  cg_rc rc = CG_OK;
  cl_mlp *m = ctx;
  cg_device_span *span = cg_mlp_sample(sm, name);
  const cl_int args[] = {(cl_int)g->m, (cl_int)g->n, (cl_int)g->k};
  for (cl_uint i = 0; i < 3; ++i) CG_CL(clSetKernelArg, (m->gemm, i, sizeof(cl_int), &args[i]));
  CG_TRY(cg_mlp_gemm_set_operands(m->gemm, 3, g, g->c, g->beta, err));
  const size_t local[2] = {m->ts, m->ts};
  const size_t global[2] = {cg_round_up(g->n, m->ts), cg_round_up(g->m, m->ts)};
  CG_CL(clEnqueueNDRangeKernel,
        (q, m->gemm, 2, NULL, global, local, 0, NULL, span ? &span->begin : NULL));
cleanup:
  return rc;
}

/* ---- fused ------------------------------------------------------------------------------ */

/* Launch A's (or G's) work-items that a rebuild within the kernels' limits made fewer than the
 * first configuration's default: marked fallbacks. */
static void mark_items_shrunk(cg_fused_config *c, const cg_fused_config *first) {
  if (c->origin.tx == CG_ORIGIN_DEFAULT && c->tx < first->tx) c->origin.tx = CG_ORIGIN_FALLBACK;
  if (c->origin.ty == CG_ORIGIN_DEFAULT && c->ty < first->ty) c->origin.ty = CG_ORIGIN_FALLBACK;
}

/* Configure, build, and check the built kernels against what the configuration assumed; when
 * they allow fewer work-items (rusticl on llvmpipe: 32), or need more local memory than the
 * arrays they declare (CL_KERNEL_LOCAL_MEM_SIZE counts what the driver adds), configure again
 * within that and rebuild. With build false, only the configuration within the device's limits
 * and its build options, for the record of a run whose fused kernels are not built yet. */
static cg_rc build_fused(const cg_backend_env *env, cl_mlp *m, cg_kernel_config *config,
                         cg_build_tally *tally, bool build, cg_error *err) {
  cg_rc rc = CG_OK;
  cl_int code = CL_SUCCESS;
  const cg_device_info *info = cg_device_get_info(cg_cl_env_device(env));
  const cg_mlp_shape s = m->md.setup.shape;
  cg_cl_group_limits dev;
  CG_TRY(cg_cl_device_limits(info, &dev, err));
  /* every fused launch is a row of work-items: the first dimension's limit bounds it too */
  const size_t device_limit = dev.items < dev.dim[0] ? dev.items : dev.dim[0];
  cg_fused_limits limits = {device_limit, device_limit, device_limit, device_limit};
  uint64_t budget = dev.local_mem;
  cg_fused_config first = {0}, gfirst = {0};
  cg_fused_config *g = &m->gcfg;
  for (bool configured = false;; configured = true) {
    cg_fused_config *c = &m->cfg;
    CG_TRY(cg_fused_configure(s, info, &limits, budget, env->overrides, c, g, err));
    if (m->dense_w1 && c->pad) { /* the persistent path's w1 is dense */
      c->pad = g->pad = 0;
      c->ldh = g->ldh = s.hidden;
      c->origin.pad = CG_ORIGIN_FALLBACK;
    }
    if (!configured) {
      first = *c;
      gfirst = *g;
    }
    cg_fused_build_options(c, s, config->build_options, sizeof config->build_options);
    if (!build) break;
    CG_TRY(cg_backend_build(env, "mlp.cl", config->build_options, &m->program, tally, err));
    if (c->split) {
      char gopts[sizeof config->build_options];
      cg_fused_build_options(g, s, gopts, sizeof gopts);
      CG_TRY(cg_backend_build(env, "mlp.cl", gopts, &m->gprogram, tally, err));
      m->gwide = clCreateKernel(m->gprogram, "mlp_fused_wide", &code);
      CG_CL_CHECK(clCreateKernel, code);
    }
    m->wide = clCreateKernel(m->program, "mlp_fused_wide", &code);
    CG_CL_CHECK(clCreateKernel, code);
    m->small = clCreateKernel(m->program, "mlp_fused_small", &code);
    CG_CL_CHECK(clCreateKernel, code);
    if (c->three) {
      m->reduce = clCreateKernel(m->program, "mlp_fused_reduce", &code);
      CG_CL_CHECK(clCreateKernel, code);
    }
    if (c->three && !c->dz1a) {
      m->dz1k = clCreateKernel(m->program, "mlp_fused_dz1", &code);
      CG_CL_CHECK(clCreateKernel, code);
    }
    if (c->brg > 1) {
      m->loss_sum = clCreateKernel(m->program, "mlp_loss_sum", &code);
      CG_CL_CHECK(clCreateKernel, code);
    }
    /* each launch within its own kernel's limit, so that one kernel's (launch A's 256 required
     * work-items, say) does not bound another's */
    const cl_kernel kernels[4] = {m->wide, m->small, m->reduce, m->gwide};
    const char *names[4] = {"mlp_fused_wide", "mlp_fused_small", "mlp_fused_reduce",
                            "mlp_fused_wide (launch G)"};
    size_t *own[4] = {&limits.a, &limits.b, &limits.r, &limits.g};
    const size_t wanted[4] = {(size_t)(c->tx * c->ty), (size_t)c->wgb, (size_t)c->wr,
                              (size_t)(g->tx * g->ty)};
    uint64_t used_most = 0;
    bool fits = true;
    for (int k = 0; k < 4; ++k) {
      if (!kernels[k]) continue;
      cg_cl_group_limits lim = dev;
      uint64_t used = 0;
      CG_TRY(cg_cl_kernel_limits(info, kernels[k], &lim, &used, err));
      if (used > used_most) used_most = used;
      if (lim.items >= wanted[k]) continue;
      fits = false;
      CG_CHECK(lim.items >= 1 && lim.items < *own[k], CG_UNSUPPORTED,
               "fused kernel %s allows %zu work-items per group on this device", names[k],
               lim.items);
      *own[k] = lim.items;
    }
    if (fits && used_most <= dev.local_mem) break;
    if (used_most > dev.local_mem) {
      /* what the driver adds beyond the declared arrays comes off the budget */
      const uint64_t over = used_most - dev.local_mem;
      CG_CHECK(over < budget, CG_UNSUPPORTED,
               "fused kernels need %llu bytes of local memory, the device has %llu",
               (unsigned long long)used_most, (unsigned long long)dev.local_mem);
      budget -= over;
    }
    clReleaseKernel(m->wide);
    clReleaseKernel(m->small);
    if (m->reduce) clReleaseKernel(m->reduce);
    if (m->dz1k) clReleaseKernel(m->dz1k);
    if (m->loss_sum) clReleaseKernel(m->loss_sum);
    if (m->gwide) clReleaseKernel(m->gwide);
    clReleaseProgram(m->program);
    if (m->gprogram) clReleaseProgram(m->gprogram);
    m->wide = m->small = m->reduce = m->dz1k = m->loss_sum = m->gwide = NULL;
    m->program = m->gprogram = NULL;
  }
  /* work-group sizes that a rebuild within the kernels' limits made smaller */
  cg_fused_config *c = &m->cfg;
  mark_items_shrunk(c, &first);
  mark_items_shrunk(g, &gfirst);
  if (c->wgb < first.wgb) c->origin.wgb = CG_ORIGIN_FALLBACK;
  cg_fused_record(c, g, config);
cleanup:
  return rc;
}

/* The most loop iterations a work-item of the fused launches runs in one launch, counted from
 * cl/mlp.cl's loops with each inner loop's trips within each outer one, as written (a compiler
 * that unrolls some runs fewer): held against a driver's loop limit (clgauge/loop_limit.h). */
static double fused_loop_trips(const cg_fused_config *c, const cg_mlp_shape s) {
  const double N = s.batch, H = s.hidden, O = s.dout;
  const double bi = c->ty * c->rm, bj = c->tx * c->rn, nc = c->ty * c->rm2, wga = c->tx * c->ty;
  const double kc = c->kc, rm = c->rm, rn = c->rn, rm2 = c->rm2;
  const double lpb = ceil(kc * bj / wga), lpa_g1 = ceil(kc * bi / wga),
               lpa_fw = ceil(kc * nc / wga), lpa = fmax(lpa_g1, lpa_fw);
  /* launch A, per tile: the g1 chunks (dz1 computed per element where DZ1A), the update, the
   * forward chunks (the same with DB: its first fetch and store, before the chunks, stand for
   * the last chunk's, which has none) */
  const double g1 = ceil(N / kc) * (lpa_g1 + lpb * (1 + (c->dz1a ? O : 0)) + lpa + lpb +
                                    kc * (rm * rn + rm + (rm + rn) / c->vw));
  const double kf = c->ty * c->kv, inner = rm2 * rn + rm2 + rm2 / c->vw2 + rn / c->vw;
  const double fw =
      (c->fwr ? c->nch * (rm / c->kv) * (c->kv * rn + ceil(kf * nc / wga) + kf * inner)
              : c->nch * ceil(bi / kc) * (lpa_fw + 2 * lpb + lpa + kc * inner)) +
      c->nch * (rm2 * rn + rm2);
  /* the tile read ahead (WPF: a read per run of the block); the update, UR rows at a time */
  const double wpf = c->wpf ? rm * (1 + ceil(rn / c->vw)) : 0;
  const double update = ceil(rm / c->ur) * (1 + 2 * c->ur * (rn + 1));
  const double a = c->tpg * (1 + wpf + g1 + fw + update + rm2 * rn + rm2);
  /* launch B: w3's local copy (BLOC), h1 and h2 (or h2 from R's shares), y, the loss's tree,
   * g3 and the w3 update (one work-group only), dz2, and without R, w2's copy or dz1 and the w2
   * update; a work-group has BROWS rows */
  const double w = c->wgb, no = c->brows * O, per = ceil(no / w);
  const double sb = no < w ? floor(w / no) : 1;
  double b = (c->bloc ? ceil(O * O / w) : 0) + per * (O + 1) * 2 + log2(w) +
             (c->brg > 1 ? 0 : ceil(O * O / w) * (N + 2));
  if (c->three)
    b += no < w ? ceil(c->rcb / sb) + sb : per * (1 + c->rcb);
  else
    b += ceil(N * H / w) * (c->rgroups + 1) + (no < w ? ceil(H / sb) + sb : per * (1 + H)) +
         (c->dz1a ? ceil(H * O / w) : ceil(N * H / w) * (O + 1)) + ceil(H * O / w) * (N + 1);
  /* launch R: w2's update (and g3's with BRG > 1, over all of R's work-items), h1 from the
   * partials, its share of h1 w2 */
  double r = 0;
  if (c->three) {
    const double re = N * c->rc, sr = re < c->wr ? floor(c->wr / re) : 1;
    r = ceil(re / c->wr) * (2 + (re < c->wr ? sr : c->rgroups)) +
        ceil(c->rc * O / c->wr) * (N + 1) + (re < c->wr ? ceil(c->rgroups / sr) : 0) +
        ceil(N * O / c->wr) * (c->rc + 1) +
        (c->brg > 1 ? ceil(O * O / ((double)c->wr * c->rcb * c->rrb)) * (N + 1) : 0);
  }
  return fmax(fmax(a, b), fmax(r, O)); /* launch D: one dz1 element, DOUT trips */
}

/* Launch A (wide, configuration c) or, in a split iteration, launch G (m->gwide, m->gcfg), each
 * running the parts asked for that its build holds. */
static cg_rc fused_wide_on(cl_mlp *m, cl_kernel wide, const cg_fused_config *c, int backward,
                           int forward, cl_event *ev, cg_error *err) {
  cg_rc rc = CG_OK;
  const cl_int b = backward, f = forward;
  CG_CL(clSetKernelArg, (wide, 8, sizeof b, &b));
  CG_CL(clSetKernelArg, (wide, 9, sizeof f, &f));
  const size_t local[2] = {(size_t)c->tx * c->ty, 1};
  const size_t global[2] = {local[0] * c->col_blocks, (size_t)c->rgroups};
  CG_CL(clEnqueueNDRangeKernel, (m->md.queue, wide, 2, NULL, global, local, 0, NULL, ev));
cleanup:
  return rc;
}

static cg_rc fused_wide(cl_mlp *m, int backward, int forward, cl_event *ev, cg_error *err) {
  return fused_wide_on(m, m->wide, &m->cfg, backward, forward, ev, err);
}

static cg_rc fused_reduce(cl_mlp *m, int pending, int forward, cl_event *ev, cg_error *err) {
  cg_rc rc = CG_OK;
  const cl_int p = pending, f = forward;
  CG_CL(clSetKernelArg, (m->reduce, 6, sizeof p, &p));
  CG_CL(clSetKernelArg, (m->reduce, 7, sizeof f, &f));
  const cg_fused_config *c = &m->cfg;
  const size_t local[2] = {(size_t)c->wr, 1};
  const size_t global[2] = {local[0] * c->rcb, (size_t)c->rrb};
  CG_CL(clEnqueueNDRangeKernel, (m->md.queue, m->reduce, 2, NULL, global, local, 0, NULL, ev));
cleanup:
  return rc;
}

static cg_rc fused_small(cl_mlp *m, int keep, cl_event *ev, cg_error *err) {
  cg_rc rc = CG_OK;
  const cl_int k = keep;
  CG_CL(clSetKernelArg, (m->small, 13, sizeof k, &k));
  const size_t local = (size_t)m->cfg.wgb, global = local * (size_t)m->cfg.brg;
  CG_CL(clEnqueueNDRangeKernel,
        (m->md.queue, m->small, 1, NULL, &global, &local, 0, NULL, ev));
cleanup:
  return rc;
}

/* The loss from the partials of launch B's work-groups (BRG > 1), once per run: one work-group
 * of launch R's size. */
static cg_rc fused_loss_sum(cl_mlp *m, cl_event *ev, cg_error *err) {
  cg_rc rc = CG_OK;
  const size_t local = (size_t)m->cfg.wr;
  const cl_int n = m->cfg.brg;
  CG_CL(clSetKernelArg, (m->loss_sum, 0, sizeof n, &n));
  CG_CL(clSetKernelArg, (m->loss_sum, 1, sizeof(cl_mem), &m->lossp));
  CG_CL(clSetKernelArg, (m->loss_sum, 2, sizeof(cl_mem), &m->md.loss));
  CG_CL(clSetKernelArg, (m->loss_sum, 3, local * sizeof(float), NULL));
  CG_CL(clEnqueueNDRangeKernel,
        (m->md.queue, m->loss_sum, 1, NULL, &local, &local, 0, NULL, ev));
cleanup:
  return rc;
}

/* Launch D: dz1, an element per work-item, the work-group the driver's choice. */
static cg_rc fused_dz1(cl_mlp *m, cl_event *ev, cg_error *err) {
  cg_rc rc = CG_OK;
  const cg_mlp_shape s = m->md.setup.shape;
  const size_t global = (size_t)s.batch * (size_t)s.hidden;
  CG_CL(clEnqueueNDRangeKernel, (m->md.queue, m->dz1k, 1, NULL, &global, NULL, 0, NULL, ev));
cleanup:
  return rc;
}

static cg_rc fused_set_args(cl_mlp *m, cg_error *err) {
  cg_rc rc = CG_OK;
  const cg_mlp_device *d = &m->md;
  const float lr = d->setup.lr;
  const cl_int update_w3 = d->setup.update_w3;
  /* the buffers a configuration does not use stand in for their arguments; never read */
  const cl_mem dz1 = m->dz1 ? m->dz1 : m->h1, w2p = m->w2p ? m->w2p : d->w2;
  const cl_mem w1 = m->w1p ? m->w1p : d->w1;
  const cl_mem wide_bufs[] = {d->x, w1, dz1, m->h1, m->dz2, m->cfg.three ? d->w2 : w2p, m->part};
  const cl_kernel wides[2] = {m->wide, m->gwide};
  for (int k = 0; k < 2 && wides[k]; ++k) {
    for (cl_uint i = 0; i < 7; ++i)
      CG_CL(clSetKernelArg, (wides[k], i, sizeof(cl_mem), &wide_bufs[i]));
    CG_CL(clSetKernelArg, (wides[k], 7, sizeof lr, &lr));
  }
  if (m->reduce) {
    const cl_mem reduce_bufs[] = {m->part, d->w2, m->h1, m->dz2, m->part2};
    for (cl_uint i = 0; i < 5; ++i)
      CG_CL(clSetKernelArg, (m->reduce, i, sizeof(cl_mem), &reduce_bufs[i]));
    CG_CL(clSetKernelArg, (m->reduce, 5, sizeof lr, &lr));
    const cl_mem g3_bufs[] = {m->h2, m->dy, d->g3, d->w3};
    for (cl_uint i = 0; i < 4; ++i)
      CG_CL(clSetKernelArg, (m->reduce, 8 + i, sizeof(cl_mem), &g3_bufs[i]));
    CG_CL(clSetKernelArg, (m->reduce, 12, sizeof update_w3, &update_w3));
  }
  const cl_mem small_bufs[] = {m->cfg.three ? m->part2 : m->part, m->h1, d->w2, w2p, d->t,
                               d->w3, d->g3, m->h2, m->dy, m->dz2, dz1, d->loss};
  for (cl_uint i = 0; i < 12; ++i)
    CG_CL(clSetKernelArg, (m->small, i, sizeof(cl_mem), &small_bufs[i]));
  CG_CL(clSetKernelArg, (m->small, 12, sizeof lr, &lr));
  CG_CL(clSetKernelArg, (m->small, 14, sizeof update_w3, &update_w3));
  const cl_mem lossp = m->lossp ? m->lossp : d->loss; /* with one work-group, never read */
  CG_CL(clSetKernelArg, (m->small, 15, sizeof(cl_mem), &lossp));
  if (m->dz1k) {
    const cl_mem dz1_bufs[] = {m->h1, m->dz2, d->w2, m->dz1};
    for (cl_uint i = 0; i < 4; ++i)
      CG_CL(clSetKernelArg, (m->dz1k, i, sizeof(cl_mem), &dz1_bufs[i]));
  }
cleanup:
  return rc;
}

/* The fused kernels' own buffers, sized by the configuration (any earlier ones released):
 * allocated at prepare from the configuration planned within the device's limits, and again
 * only where the build settled on a different one. They are allocated before the persistent
 * path's discovery launch: allocated after it, Oclgrind 21.10 took the partial products that
 * launch A writes into them for uninitialised in launch B (the results verified on PoCL). */
static bool fused_sizes_differ(const cg_fused_config *a, const cg_fused_config *b) {
  return a->rgroups != b->rgroups || a->three != b->three || a->dz1a != b->dz1a ||
         a->rcb != b->rcb || a->brg != b->brg;
}

static cg_rc fused_buffers(cl_mlp *m, const cg_device *dev, cg_error *err) {
  cg_rc rc = CG_OK;
  const cg_mlp_shape s = m->md.setup.shape;
  const size_t N = (size_t)s.batch, H = (size_t)s.hidden, O = (size_t)s.dout;
  const cg_fused_config *c = &m->cfg;
  const size_t ldh = (size_t)c->ldh; /* the rows of the partials and of dz1 */
  cl_mem *bufs[] = {&m->dz2, &m->part, &m->w2p, &m->dz1, &m->part2, &m->lossp, &m->w1p};
  for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; ++i) cg_cl_release_mem(bufs[i]);
  if (c->ldh != s.hidden)
    CG_TRY(cg_mlp_buffer(dev, "w1 at the fused launches' row pitch", (size_t)s.din * ldh,
                         &m->w1p, err));
  CG_TRY(cg_mlp_buffer(dev, "dz2 (batch x dout)", N * O, &m->dz2, err));
  CG_TRY(cg_mlp_buffer(dev, "partial x w1 (row groups x batch x hidden)",
                       (size_t)c->rgroups * N * ldh, &m->part, err));
  if (c->dz1a && !c->three)
    CG_TRY(cg_mlp_buffer(dev, "w2 of dz1 (hidden x dout)", H * O, &m->w2p, err));
  if (!c->dz1a) CG_TRY(cg_mlp_buffer(dev, "dz1 (batch x hidden)", N * ldh, &m->dz1, err));
  if (c->three)
    CG_TRY(cg_mlp_buffer(dev, "partial h1 w2 (column blocks x batch x dout)",
                         (size_t)c->rcb * N * O, &m->part2, err));
  if (c->brg > 1)
    CG_TRY(cg_mlp_buffer(dev, "launch B's loss partials (its work-groups)", (size_t)c->brg,
                         &m->lossp, err));
cleanup:
  return rc;
}

/* Build the fused kernels (the configuration checked against them), their buffers again where
 * the configuration changed, and their arguments. */
static cg_rc fused_build(const cg_backend_env *env, cl_mlp *m, cg_kernel_config *config,
                         cg_build_tally *tally, cg_error *err) {
  cg_rc rc = CG_OK;
  cl_int code = CL_SUCCESS;
  const cg_fused_config planned = m->cfg;
  CG_TRY(build_fused(env, m, config, tally, true, err));
  if (fused_sizes_differ(&planned, &m->cfg))
    CG_TRY(fused_buffers(m, cg_cl_env_device(env), err));
  if (m->w1p) {
    m->copy_rows = clCreateKernel(m->program, "mlp_copy_rows", &code);
    CG_CL_CHECK(clCreateKernel, code);
  }
  CG_TRY(fused_set_args(m, err));
cleanup:
  return rc;
}

/* The fused kernels built where prepare left them for later (see fused_pending): when a
 * persistent launch failed, before the launches that redo its work. The build's time falls in
 * that run's. */
static cg_rc ensure_fused(cl_mlp *m, cg_error *err) {
  cg_rc rc = CG_OK;
  if (!m->fused_pending) return CG_OK;
  cg_kernel_config config = {0};
  cg_build_tally tally = {0};
  CG_TRY(fused_build(&m->fused_env, m, &config, &tally, err));
  m->fused_pending = false;
cleanup:
  return rc;
}

/* A(forward), then per iteration [R,] B[, D] and A(backward of it, forward of the next); the last
 * A only finishes the backward part, so the weights are those of `iters` full steps. A split
 * iteration is A(forward), [R,] B[, D], G(backward): launch A heads each iteration, so that the
 * sampled first one holds all of its launches. */
static cg_rc fused_enqueue(cl_mlp *m, int iters, cg_error *err) {
  cg_rc rc = CG_OK;
  cg_mlp_device *md = &m->md;
  cg_mlp_sampler *sm = &md->sampler;
  cg_device_span *span = &md->span;
  const bool three = m->cfg.three, split = m->cfg.split, rows = m->cfg.brg > 1;
  const char *r_name = rows ? "R: w2, g3, w3 update, h1 = relu(sum of partials), h1 w2"
                            : "R: w2 update, h1 = relu(sum of partials), h1 w2";
  const char *b_name = rows    ? "B: h2 .. dz2 (a work-group per BROWS rows), the loss's sum"
                       : three ? "B: h2 .. dz2, w3 (one work-group)"
                               : "B: h1 .. dz2, w3, dz1, g2, w2 (one work-group)";
  CG_CHECK(iters >= 1, CG_BAD_INPUT, "mlp enqueue of %d iterations", iters);
  cg_mlp_device_run_begin(md);
  if (!split) CG_TRY(fused_wide(m, 0, 1, &span->begin, err));
  for (int i = 0; i < iters; ++i) {
    sm->on = i == 0; /* events on the first iteration only */
    cl_event *last = i == iters - 1 ? &span->end : NULL;
    if (split) {
      cg_device_span *sampled = cg_mlp_sample(sm, "A: partial x w1");
      CG_TRY(fused_wide(m, 0, 1, sampled ? &sampled->begin : i == 0 ? &span->begin : NULL, err));
      if (sampled) clRetainEvent(span->begin = sampled->begin); /* the run's first command */
    }
    if (three) CG_TRY(fused_reduce(m, i > 0, 1, cg_mlp_kernel_event(sm, r_name, NULL), err));
    /* with row groups, the loss's sum (once per run) ends launch B's sampled span */
    cg_device_span *b_span = cg_mlp_sample(sm, b_name);
    CG_TRY(fused_small(m, i == 0, b_span ? &b_span->begin : NULL, err));
    if (rows && i == 0) CG_TRY(fused_loss_sum(m, b_span ? &b_span->end : NULL, err));
    if (m->dz1k)
      CG_TRY(fused_dz1(m, cg_mlp_kernel_event(sm, "D: dz1 = (dz2 w2^T) * (h1 > 0)", NULL), err));
    if (split)
      CG_TRY(fused_wide_on(m, m->gwide, &m->gcfg, 1, 0,
                           cg_mlp_kernel_event(sm, "G: dz1, g1, w1 update", three ? NULL : last),
                           err));
    else
      CG_TRY(fused_wide(m, 1, i < iters - 1,
                        cg_mlp_kernel_event(sm, "A: dz1, g1, w1 update, next partial x w1",
                                            three ? NULL : last),
                        err));
    if (i == 0) cg_mlp_sampler_close(sm, three ? NULL : last);
  }
  /* with three launches the last w2 update is pending: R alone finishes it */
  if (three) CG_TRY(fused_reduce(m, 1, 0, &span->end, err));
cleanup:
  sm->on = false;
  return rc;
}

/* ---- the implementation -------------------------------------------------------------------- */

static const char *const cl_mlp_variants[] = {"per-op", "fused", NULL};
static const char *const cl_mlp_kernel_params[] = {
    "STRATEGY", "TX", "TY", "R", "RN", "KC", "TPG", "VW", "PF", "STAGE", "DB", "FWR", "UR", "WPF",
    "WGB", "BROWS", "BLOC", "THREE", "DZ1A", "RC", "PERSIST", "PGROUPS", "SPIN", "WG_PERSIST",
    "SPLITK", "DZ1P", "SPLITS", "LOSSG", "PAD", "SPLIT", "GTX", "GTY", "GR", "GRN", "GKC", "GUR",
    NULL};

/* The fused kernels' blocking (cg_fused_configure says what each parameter is); a setting the
 * shape or the device cannot take is refused and skipped by the search. */
static const cg_tune_space cl_mlp_tune[] = {
    {"fused",
     NULL,
     20,
     {{"STRATEGY", 2, {0, 1}},
      {"SPLIT", 2, {0, 1}},
      {"GR", 3, {2, 4, 8}},
      {"GKC", 3, {16, 32, 64}},
      {"TX", 4, {4, 8, 16, 32}},
      {"TY", 4, {2, 4, 8, 16}},
      {"R", 4, {1, 2, 4, 8}},
      {"RN", 4, {1, 2, 4, 8}},
      {"KC", 4, {4, 8, 16, 32}},
      {"TPG", 2, {1, 2}},
      {"VW", 3, {1, 2, 4}},
      {"PF", 2, {0, 1}},
      {"STAGE", 2, {0, 1}},
      {"DB", 2, {0, 1}},
      {"FWR", 3, {0, 1, 2}},
      {"UR", 4, {1, 2, 4, 8}},
      {"WPF", 2, {0, 1}},
      {"BLOC", 3, {0, 1, 2}},
      {"THREE", 2, {0, 1}},
      {"DZ1A", 2, {0, 1}}}},
    {NULL, NULL, 0, {{NULL, 0, {0}}}},
};

/* The variant (v) with that strategy. *trips: where the fused kernels are built to run (not the
 * persistent path), the most loop iterations of a work-item in one launch if they are beyond the
 * device's loop limit (*limit), else 0. */
static cg_rc prepare_strategy(const cg_backend_env *env, int v, int strategy,
                              cg_origin strategy_origin, const cg_mlp_setup *setup,
                              void **state, cg_prepared *out, double *trips, uint64_t *limit,
                              cg_error *err) {
  cg_rc rc = CG_OK;
  *trips = 0;
  *limit = 0;
  cl_mlp *m = calloc(1, sizeof *m);
  CG_CHECK(m, CG_ERROR, "out of memory");
  const cg_device *dev = cg_cl_env_device(env);
  const cg_mlp_shape s = setup->shape;
  m->stepped = v == VARIANT_PER_OP || strategy == CG_FUSED_PRODUCTS;
  CG_TRY(cg_mlp_device_create(dev, setup, &m->md, err));
  /* h1's rows at the fused launches' pitch (LDH), padded or not (PAD) */
  const size_t N = (size_t)s.batch, O = (size_t)s.dout, ldh = cg_fused_padded_pitch(s.hidden);
  if (m->stepped) {
    CG_TRY(cg_mlp_step_create(dev, &m->md, &m->step, err));
  } else {
    CG_TRY(cg_mlp_buffer(dev, "h1 (batch x hidden)", N * ldh, &m->h1, err));
    CG_TRY(cg_mlp_buffer(dev, "h2 (batch x dout)", N * O, &m->h2, err));
    CG_TRY(cg_mlp_buffer(dev, "dy (batch x dout)", N * O, &m->dy, err));
  }

  memset(&out->config, 0, sizeof out->config);
  uint64_t t0 = cg_now_ns();
  cg_build_tally tally = {0};
  if (m->stepped) {
    CG_TRY(build_per_op(env, m, &out->config, &tally, err));
    if (strategy == CG_FUSED_PRODUCTS) {
      /* the loss's work-groups at most (1: one work-group, the loss in one launch) */
      cg_origin origin = CG_ORIGIN_DEFAULT;
      const int lossg = cg_kernel_override(env->overrides, "LOSSG", CG_MLP_LOSS_PARTS, &origin);
      CG_CHECK(lossg >= 1 && lossg <= CG_MLP_LOSS_PARTS, CG_BAD_INPUT,
               "--kernel-param LOSSG=%d: out of range (1..%d)", lossg, CG_MLP_LOSS_PARTS);
      m->step.ew.loss_groups = lossg;
      cg_kernel_config_set(&out->config, "LOSSG", lossg, origin);
      CG_TRY(cg_mlp_products_create(env, &m->md,
                                    (cg_mlp_product){.gemm = gemm, .ctx = m, .clblast = false},
                                    &m->prod, &out->config, &tally, err));
    }
  } else {
    /* configured only: built below unless the persistent path runs */
    CG_TRY(build_fused(env, m, &out->config, &tally, false, err));
  }
  if (v == VARIANT_FUSED)
    cg_kernel_config_set(&out->config, "STRATEGY", strategy, strategy_origin);
  out->compile_ms = cg_ns_to_ms(cg_now_ns() - t0);

  if (strategy == CG_FUSED_PRODUCTS) {
    m->step.product =
        (cg_mlp_product){.gemm = cg_mlp_products_gemm, .ctx = &m->prod, .clblast = false};
  } else if (m->stepped) {
    m->step.product = (cg_mlp_product){.gemm = gemm, .ctx = m, .clblast = false};
  } else {
    CG_TRY(fused_buffers(m, dev, err));
    CG_TRY(cg_cl_mlp_persistent_setup(env, &m->md, &out->config, &out->compile_ms, &tally,
                                      &m->persist, err));
    if (cg_cl_mlp_persistent_on(m->persist)) {
      /* the fallback built only if a persistent launch fails (a cold first run would otherwise
       * compile both programs), on md's w1 as the persistent path leaves it; the record keeps
       * the configuration it would build */
      m->dense_w1 = true;
      cg_cl_release_mem(&m->w1p);
      CG_TRY(build_fused(env, m, &out->config, &tally, false, err));
      m->fused_pending = true;
      m->fused_env = *env;
      m->fused_env.warning = NULL;
      m->fused_env.warning_size = 0;
      if (env->overrides) {
        m->fused_overrides = *env->overrides;
        m->fused_env.overrides = &m->fused_overrides;
      }
    } else {
      /* the configuration again, now checked against the built kernels */
      const uint64_t t1 = cg_now_ns();
      CG_TRY(fused_build(env, m, &out->config, &tally, err));
      CG_TRY(cg_backend_loop_limit(env, limit, err));
      const double most = fmax(fused_loop_trips(&m->cfg, s),
                               m->cfg.split ? fused_loop_trips(&m->gcfg, s) : 0);
      if (!cg_loop_limit_holds(*limit, most)) *trips = most;
      out->compile_ms += cg_ns_to_ms(cg_now_ns() - t1);
    }
  }
  out->compile_kind = cg_build_tally_kind(&tally);
  *state = m;
  m = NULL;
cleanup:
  cl_mlp_release(m);
  return rc;
}

static cg_rc cl_mlp_prepare(const cg_backend_env *env, const char *variant, const char *mode,
                            const void *problem, void **state, cg_prepared *out,
                            cg_error *err) {
  (void)mode;
  cg_rc rc = CG_OK;
  const cg_mlp_setup *setup = problem;
  const int v = cg_variant_index(cl_mlp_variants, variant);
  CG_CHECK(v >= 0, CG_BAD_INPUT, "unknown cl mlp variant '%s'", variant);
  int strategy = CG_FUSED_KERNELS;
  cg_origin strategy_origin = CG_ORIGIN_DEFAULT;
  /* room for further strategies of cl/fused here: each one a choice by shape and device */
  if (v == VARIANT_FUSED)
    CG_TRY(cg_fused_strategy(setup->shape, cg_device_get_info(cg_cl_env_device(env)),
                             env->overrides, &strategy, &strategy_origin, err));
  double trips = 0;
  uint64_t limit = 0;
  CG_TRY(prepare_strategy(env, v, strategy, strategy_origin, setup, state, out, &trips, &limit,
                          err));
  if (trips == 0) goto cleanup;
  /* The fused kernels would loop longer than the driver runs a work-item's loops (Mesa 22.3's
   * llvmpipe, at batch x dout from about 11000 where dout is 64): the products step, whose
   * kernels loop over k in tiles, unless the fused kernels were asked for. */
  cl_mlp_release(*state);
  *state = NULL;
  char why[200];
  snprintf(why, sizeof why,
           "the fused kernels would loop %.0f times in a work-item of one launch, and this driver "
           "ends a work-item's loops after %llu",
           trips, (unsigned long long)limit);
  CG_CHECK(strategy_origin != CG_ORIGIN_OVERRIDE, CG_UNSUPPORTED, "--kernel-param STRATEGY=0: %s",
           why);
  const double tried_ms = out->compile_ms; /* the fused kernels' build counts too */
  CG_TRY(prepare_strategy(env, v, CG_FUSED_PRODUCTS, CG_ORIGIN_FALLBACK, setup, state, out,
                          &trips, &limit, err));
  out->compile_ms += tried_ms;
  snprintf(out->config.path, sizeof out->config.path, "products step: %s", why);
cleanup:
  return rc;
}

/* w1's rows between md's dense w1 and w1p (to_pitched: into w1p); the queue orders it. */
static cg_rc copy_w1_rows(cl_mlp *m, bool to_pitched, cg_error *err) {
  cg_rc rc = CG_OK;
  const cg_mlp_shape s = m->md.setup.shape;
  const cl_int rows = s.din, cols = s.hidden, dense = s.hidden, pitched = m->cfg.ldh;
  const cl_mem src = to_pitched ? m->md.w1 : m->w1p, dst = to_pitched ? m->w1p : m->md.w1;
  const cl_int lds = to_pitched ? dense : pitched, ldd = to_pitched ? pitched : dense;
  CG_CL(clSetKernelArg, (m->copy_rows, 0, sizeof rows, &rows));
  CG_CL(clSetKernelArg, (m->copy_rows, 1, sizeof cols, &cols));
  CG_CL(clSetKernelArg, (m->copy_rows, 2, sizeof src, &src));
  CG_CL(clSetKernelArg, (m->copy_rows, 3, sizeof lds, &lds));
  CG_CL(clSetKernelArg, (m->copy_rows, 4, sizeof dst, &dst));
  CG_CL(clSetKernelArg, (m->copy_rows, 5, sizeof ldd, &ldd));
  const size_t global[2] = {(size_t)cols, (size_t)rows};
  CG_CL(clEnqueueNDRangeKernel, (m->md.queue, m->copy_rows, 2, NULL, global, NULL, 0, NULL, NULL));
cleanup:
  return rc;
}

static cg_rc cl_mlp_upload(void *state, const void *inputs, cg_error *err) {
  cg_rc rc = CG_OK;
  cl_mlp *m = state;
  const cg_mlp_tensors *in = inputs;
  CG_TRY(cg_mlp_device_upload(&m->md, in, err));
  if (m->w1p) {
    CG_TRY(copy_w1_rows(m, true, err));
    CG_CL(clFinish, (m->md.queue));
  }
  if (m->prod.xt) CG_TRY(cg_mlp_products_upload(&m->prod, in->x, err));
cleanup:
  return rc;
}

static cg_rc cl_mlp_enqueue(void *state, const cg_run *run, cg_error *err) {
  cl_mlp *m = state;
  if (cg_cl_mlp_persistent_on(m->persist))
    return cg_cl_mlp_persistent_enqueue(m->persist, &m->md, run->iters, err);
  if (m->stepped) return cg_mlp_step_enqueue(&m->step, &m->md, run->iters, err);
  const cg_rc rc = ensure_fused(m, err);
  return rc == CG_OK ? fused_enqueue(m, run->iters, err) : rc;
}

static cg_rc cl_mlp_finish(void *state, cg_run_result *out, cg_error *err) {
  cl_mlp *m = state;
  /* the step: 8 products and 7 elementwise kernels, 8 with update_w3, and in the products
   * strategy the split products' sums and w2's transpose (the loss's own sum runs once per run,
   * where it has partials); the fused kernels: B and A, with R before them when three (and D
   * between them without DZ1A) and G in a split iteration, plus the closing launches of a run
   * (launch A's first forward part unless split, and with three launches a last R) */
  int launches = m->stepped      ? (m->md.setup.update_w3 ? 16 : 15) + m->prod.launches
                 : m->cfg.three ? (m->cfg.dz1a ? 3 : 4)
                                : 2;
  if (!m->stepped && m->cfg.split) ++launches; /* launch G */
  if (cg_cl_mlp_persistent_on(m->persist)) {
    /* one launch per run (no whole number per iteration), or a failed one redone */
    bool redo = false;
    int iters = 0;
    cg_rc rc = cg_cl_mlp_persistent_check(m->persist, &m->md, &redo, &iters, err);
    if (rc == CG_OK && redo) rc = ensure_fused(m, err);
    if (rc == CG_OK && redo) rc = fused_enqueue(m, iters, err);
    if (rc != CG_OK) return rc;
    if (!redo) launches = -1;
  }
  out->path = cg_cl_mlp_persistent_path(m->persist);
  return cg_mlp_device_finish(&m->md, launches, out, err);
}

static cg_rc cl_mlp_download(void *state, void *outputs, cg_error *err) {
  cl_mlp *m = state;
  if (m->w1p) {
    const cg_rc rc = copy_w1_rows(m, false, err);
    if (rc != CG_OK) return rc;
  }
  return cg_mlp_device_download(&m->md, outputs, err);
}

const cg_impl cg_cl_mlp = {
    .workload = "mlp",
    .backend = &cg_backend_cl,
    .variants = cl_mlp_variants,
    .kernel_params = cl_mlp_kernel_params,
    .tune_spaces = cl_mlp_tune,
    .prepare = cl_mlp_prepare,
    .upload = cl_mlp_upload,
    .enqueue = cl_mlp_enqueue,
    .finish = cl_mlp_finish,
    .download = cl_mlp_download,
    .release = cl_mlp_release,
};
