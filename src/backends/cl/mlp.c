/* The mlp workload on hand-written kernels from cl/mlp.cl, in two variants: "per-op", one launch
 * per operation as an eager framework issues them, and "fused", two or three launches per
 * iteration. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/backends.h"
#include "backends/opencl/cl_mlp_common.h"
#include "clgauge/program.h"
#include "clgauge/clock.h"
#include "clgauge/events.h"
#include "clgauge/stats.h"

enum { VARIANT_PER_OP, VARIANT_FUSED };
enum { MAX_SAMPLED = 20 };

/* Blocking of the fused kernels; the macros of the same names (upper case) in cl/mlp.cl. */
typedef struct fused_config {
  int tx, ty, rm, rn, rm2, kc, tpg; /* launch A: work-items, register blocks, chunk, tiles */
  int col_blocks, rgroups, nch;     /* launch A's grid (col_blocks x rgroups), row chunks */
  int three, dz1a;                  /* a reduce launch R; launch A computes dz1 */
  int wr, rr, rc, rcb, rrb;         /* launch R: work-items, rows, columns, grid rcb x rrb */
  int wgb;                          /* launch B's work-items */
} fused_config;

typedef struct cl_mlp {
  cg_mlp_device md;
  int variant;
  cl_program program;
  /* per-op */
  cg_mlp_eltwise ew;
  cl_kernel gemm;
  size_t ts;
  cl_mem h1, h2, y, dy, d2, d1, g1, g2;
  /* fused */
  cl_kernel wide, reduce, small;
  fused_config cfg;
  cl_mem dz2, dz1, w2p, part, part2;
  /* the launches of the first iteration of the last enqueue, with events, for kernel_split */
  bool sampling;
  int nsampled;
  cl_event sampled[MAX_SAMPLED];
  const char *sampled_name[MAX_SAMPLED];
} cl_mlp;

static void drop_samples(cl_mlp *m) {
  for (int i = 0; i < m->nsampled; ++i)
    if (m->sampled[i]) clReleaseEvent(m->sampled[i]);
  m->nsampled = 0;
}

/* The event slot of a launch: a sample slot while the sampled iteration runs, else `other`. */
static cl_event *launch_event(cl_mlp *m, const char *name, cl_event *other) {
  if (!m->sampling || m->nsampled == MAX_SAMPLED) return other;
  m->sampled_name[m->nsampled] = name;
  m->sampled[m->nsampled] = NULL;
  return &m->sampled[m->nsampled++];
}

/* After the sampled iteration: the span events it was to provide are its first and last
 * sampled launches. */
static void share_samples(cl_mlp *m, int from, cl_event *first, cl_event *last) {
  if (first && m->nsampled > from) clRetainEvent(*first = m->sampled[from]);
  if (last && m->nsampled > from) clRetainEvent(*last = m->sampled[m->nsampled - 1]);
}

static void cl_mlp_release(void *state) {
  cl_mlp *m = state;
  if (!m) return;
  drop_samples(m);
  cg_mlp_device_release(&m->md);
  cg_mlp_eltwise_release(&m->ew);
  cl_kernel kernels[] = {m->gemm, m->wide, m->reduce, m->small};
  for (size_t i = 0; i < sizeof kernels / sizeof kernels[0]; ++i)
    if (kernels[i]) clReleaseKernel(kernels[i]);
  cl_mem bufs[] = {m->h1,  m->h2,  m->y,   m->dy,   m->d2,   m->d1,
                   m->g1,  m->g2,  m->dz2, m->dz1,  m->w2p,  m->part, m->part2};
  for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; ++i)
    if (bufs[i]) clReleaseMemObject(bufs[i]);
  if (m->program) clReleaseProgram(m->program);
  free(m);
}

static size_t pow2_floor(size_t v) {
  size_t p = 1;
  while (p * 2 <= v) p *= 2;
  return p;
}

static size_t kernel_wg(cl_kernel k, const cg_device_info *info) {
  size_t wg = 0;
  if (clGetKernelWorkGroupInfo(k, info->id, CL_KERNEL_WORK_GROUP_SIZE, sizeof wg, &wg, NULL) !=
      CL_SUCCESS)
    return 0;
  return wg;
}

/* ---- per-op ---------------------------------------------------------------------------- */

/* The largest power-of-two edge whose square fits in `items` work-items, at most 16. */
static size_t edge_for(size_t items) {
  size_t ts = 16;
  while (ts > 1 && ts * ts > items) ts /= 2;
  return ts;
}

/* Build with gemm work-groups of ts x ts; a driver may allow fewer work-items for the built
 * kernel than the device maximum (rusticl on llvmpipe: 32), and then the build is redone with the
 * largest edge that fits, as the matmul kernels of the cl backend do. */
static cg_rc build_per_op(const cg_backend_env *env, cl_mlp *m, cg_build_tally *tally,
                          cg_error *err) {
  cg_rc rc = CG_OK;
  cl_int code = CL_SUCCESS;
  const cg_device_info *info = cg_device_get_info(env->device);
  size_t ts = edge_for(info->max_work_group);
  for (;;) {
    char options[64];
    snprintf(options, sizeof options, "-DTS=%zu", ts);
    CG_TRY(cg_backend_build(env, "mlp.cl", options, &m->program, tally, err));
    m->gemm = clCreateKernel(m->program, "mlp_gemm", &code);
    CG_CL_CHECK(clCreateKernel, code);
    const size_t wg = kernel_wg(m->gemm, info);
    if (wg >= ts * ts) break;
    CG_CHECK(edge_for(wg) < ts, CG_UNSUPPORTED,
             "kernel mlp_gemm allows %zu work-items per group on this device", wg);
    ts = edge_for(wg);
    clReleaseKernel(m->gemm);
    clReleaseProgram(m->program);
    m->gemm = NULL;
    m->program = NULL;
  }
  m->ts = ts;
  CG_TRY(cg_mlp_eltwise_create(m->program, info, &m->ew, err));
cleanup:
  return rc;
}

/* C (M x N) = A (M x K) B (K x N) + beta C, with the operands' strides as in mlp_gemm. */
static cg_rc gemm(cl_mlp *m, int M, int N, int K, cl_mem A, int sam, int sak, cl_mem B, int sbk,
                  int sbn, cl_mem C, float beta, cl_event *ev, cg_error *err) {
  cg_rc rc = CG_OK;
  const cl_int args[] = {M, N, K};
  for (cl_uint i = 0; i < 3; ++i) CG_CL(clSetKernelArg, (m->gemm, i, sizeof(cl_int), &args[i]));
  const cl_int sa[] = {sam, sak}, sb[] = {sbk, sbn};
  CG_CL(clSetKernelArg, (m->gemm, 3, sizeof A, &A));
  CG_CL(clSetKernelArg, (m->gemm, 4, sizeof(cl_int), &sa[0]));
  CG_CL(clSetKernelArg, (m->gemm, 5, sizeof(cl_int), &sa[1]));
  CG_CL(clSetKernelArg, (m->gemm, 6, sizeof B, &B));
  CG_CL(clSetKernelArg, (m->gemm, 7, sizeof(cl_int), &sb[0]));
  CG_CL(clSetKernelArg, (m->gemm, 8, sizeof(cl_int), &sb[1]));
  CG_CL(clSetKernelArg, (m->gemm, 9, sizeof C, &C));
  CG_CL(clSetKernelArg, (m->gemm, 10, sizeof beta, &beta));
  const size_t local[2] = {m->ts, m->ts};
  const size_t global[2] = {((size_t)N + m->ts - 1) / m->ts * m->ts,
                            ((size_t)M + m->ts - 1) / m->ts * m->ts};
  CG_CL(clEnqueueNDRangeKernel, (m->md.queue, m->gemm, 2, NULL, global, local, 0, NULL, ev));
cleanup:
  return rc;
}

static int per_op_launches(const cl_mlp *m) { return m->md.setup.update_w3 ? 16 : 15; }

/* One iteration, one kernel per operation; `first` and `last` receive the events of its first
 * and last launch. */
static cg_rc per_op_step(cl_mlp *m, int keep, cl_event *first, cl_event *last, cg_error *err) {
  cg_rc rc = CG_OK;
  const cg_mlp_device *d = &m->md;
  const cg_mlp_shape s = d->setup.shape;
  const int N = s.batch, Din = s.din, H = s.hidden, O = s.dout;
  const cl_command_queue q = d->queue;
  const float lr = d->setup.lr;
  const int from = m->nsampled;
  const bool w3 = d->setup.update_w3;
  /* forward */
  CG_TRY(gemm(m, N, H, Din, d->x, Din, 1, d->w1, H, 1, m->h1, 0.0f,
              launch_event(m, "h1 = x w1", first), err));
  CG_TRY(cg_mlp_relu(&m->ew, q, (size_t)N * H, m->h1, launch_event(m, "relu h1", NULL), err));
  CG_TRY(gemm(m, N, O, H, m->h1, H, 1, d->w2, O, 1, m->h2, 0.0f,
              launch_event(m, "h2 = h1 w2", NULL), err));
  CG_TRY(cg_mlp_relu(&m->ew, q, (size_t)N * O, m->h2, launch_event(m, "relu h2", NULL), err));
  CG_TRY(gemm(m, N, O, O, m->h2, O, 1, d->w3, O, 1, m->y, 0.0f,
              launch_event(m, "y = h2 w3", NULL), err));
  CG_TRY(cg_mlp_loss_dy(&m->ew, q, (size_t)N * O, m->y, d->t, m->dy, d->loss, keep,
                        launch_event(m, "loss, dy", NULL), err));
  /* backward: g3 += h2^T dy; dz2 = (dy w3^T) * (h2 > 0); g2 = h1^T dz2;
   * dz1 = (dz2 w2^T) * (h1 > 0); g1 = x^T dz1 */
  CG_TRY(gemm(m, O, O, N, m->h2, 1, O, m->dy, O, 1, d->g3, 1.0f,
              launch_event(m, "g3 += h2^T dy", NULL), err));
  CG_TRY(gemm(m, N, O, O, m->dy, O, 1, d->w3, 1, O, m->d2, 0.0f,
              launch_event(m, "dy w3^T", NULL), err));
  CG_TRY(cg_mlp_relu_backward(&m->ew, q, (size_t)N * O, m->d2, m->h2,
                              launch_event(m, "relu' dz2", NULL), err));
  CG_TRY(gemm(m, H, O, N, m->h1, 1, H, m->d2, O, 1, m->g2, 0.0f,
              launch_event(m, "g2 = h1^T dz2", NULL), err));
  CG_TRY(gemm(m, N, H, O, m->d2, O, 1, d->w2, 1, O, m->d1, 0.0f,
              launch_event(m, "dz2 w2^T", NULL), err));
  CG_TRY(cg_mlp_relu_backward(&m->ew, q, (size_t)N * H, m->d1, m->h1,
                              launch_event(m, "relu' dz1", NULL), err));
  CG_TRY(gemm(m, Din, H, N, d->x, 1, Din, m->d1, H, 1, m->g1, 0.0f,
              launch_event(m, "g1 = x^T dz1", NULL), err));
  /* updates */
  CG_TRY(cg_mlp_sgd(&m->ew, q, (size_t)Din * H, lr, m->g1, d->w1, 0,
                    launch_event(m, "sgd w1", NULL), err));
  CG_TRY(cg_mlp_sgd(&m->ew, q, (size_t)H * O, lr, m->g2, d->w2, 0,
                    launch_event(m, "sgd w2", w3 ? NULL : last), err));
  if (w3)
    CG_TRY(cg_mlp_sgd(&m->ew, q, (size_t)O * O, lr, d->g3, d->w3, 1,
                      launch_event(m, "sgd w3", last), err));
  if (m->sampling) share_samples(m, from, first, last);
cleanup:
  return rc;
}

/* ---- fused ------------------------------------------------------------------------------ */

static int ceil_div(int a, int b) { return (a + b - 1) / b; }

/* A tuning override from CLGAUGE_MLP_FUSED ("key=value,..."), else `dflt`. */
static int tune_int(const char *spec, const char *key, int dflt) {
  if (!spec) return dflt;
  const size_t len = strlen(key);
  for (const char *p = spec; *p;) {
    if (strncmp(p, key, len) == 0 && p[len] == '=') return atoi(p + len + 1);
    const char *comma = strchr(p, ',');
    if (!comma) break;
    p = comma + 1;
  }
  return dflt;
}

/* The blocking of the fused kernels within `limit` work-items per group and the device's local
 * memory. Launch A: up to 16 x 16 work-items with R x R register blocks, R = 8 (128 x 128 tiles
 * of w1) where the shape gives enough tiles; R halves until there are at least half as many tiles
 * as compute units, since a small shape is latency-bound and wants work-groups while a big one
 * wants register blocking. Then one row tile per work-group (TPG). Then two launches when one work-group can sum the partials quickly (about 64 loads per
 * work-item), else three. CLGAUGE_MLP_FUSED (keys tx, ty, r, kc, tpg, three, dz1a) overrides
 * the choices, for tuning on a device; the result stays correct for any valid setting. */
static cg_rc fused_configure(const cg_mlp_shape s, const cg_device_info *info, size_t limit,
                             fused_config *c, cg_error *err) {
  cg_rc rc = CG_OK;
  const char *tune = getenv("CLGAUGE_MLP_FUSED");
  const int lim = (int)pow2_floor(limit < 256 ? limit : 256);
  const int cu = info->compute_units ? (int)info->compute_units : 1;
  const int N = s.batch, Din = s.din, H = s.hidden, O = s.dout;
  memset(c, 0, sizeof *c);
  c->tx = c->ty = 16;
  while (c->tx * c->ty > lim) {
    if (c->tx >= c->ty)
      c->tx /= 2;
    else
      c->ty /= 2;
  }
  c->tx = tune_int(tune, "tx", c->tx);
  c->ty = tune_int(tune, "ty", c->ty);
  CG_CHECK(c->tx >= 1 && c->ty >= 1 && c->tx * c->ty <= lim, CG_BAD_INPUT,
           "CLGAUGE_MLP_FUSED: %d x %d work-items, the fused kernels allow %d here", c->tx, c->ty,
           lim);
  int r = 8;
  while (r > 1 && 2 * ceil_div(Din, c->ty * r) * ceil_div(H, c->tx * r) < cu) r /= 2;
  r = tune_int(tune, "r", r);
  CG_CHECK(r >= 1 && r <= 16, CG_BAD_INPUT, "CLGAUGE_MLP_FUSED: r=%d", r);
  const int kc0 = tune_int(tune, "kc", 16);
  CG_CHECK(kc0 >= 1, CG_BAD_INPUT, "CLGAUGE_MLP_FUSED: kc=%d", kc0);
  c->kc = kc0;
  size_t local = 0;
  for (;;) {
    c->rm = c->rn = r;
    c->rm2 = ceil_div(N, c->ty);
    if (c->rm2 > r) c->rm2 = r;
    const int bi = c->ty * r, bj = c->tx * r, nc = c->ty * c->rm2;
    local = (size_t)c->kc * (size_t)((bi > nc ? bi : nc) + 1 + bj) * sizeof(float);
    if (local <= info->local_mem) break;
    if (c->kc > 1) {
      c->kc /= 2;
    } else if (r > 1) {
      r /= 2;
      c->kc = kc0;
    } else {
      break;
    }
  }
  CG_CHECK(local <= info->local_mem, CG_UNSUPPORTED,
           "variant fused needs %zu bytes of local memory, the device has %llu", local,
           (unsigned long long)info->local_mem);
  c->nch = ceil_div(N, c->ty * c->rm2);
  const int row_tiles = ceil_div(Din, c->ty * c->rm);
  c->col_blocks = ceil_div(H, c->tx * c->rn);
  /* More than one tile per work-group cuts the partials but keeps two accumulator blocks live
   * (slower on an H200 at every setting tried), so one unless tuned. */
  c->tpg = tune_int(tune, "tpg", 1);
  CG_CHECK(c->tpg >= 1 && (c->tpg == 1 || c->nch == 1), CG_BAD_INPUT,
           "CLGAUGE_MLP_FUSED: tpg=%d needs batch <= %d", c->tpg, c->ty * c->rm2);
  c->rgroups = ceil_div(row_tiles, c->tpg);

  c->wgb = (int)pow2_floor(limit < 1024 ? limit : 1024);
  c->three = (double)c->rgroups * N * H > 64.0 * c->wgb;
  c->three = tune_int(tune, "three", c->three) != 0;
  c->dz1a = tune_int(tune, "dz1a", c->three) != 0;
  /* launch R: all NB rows of RC columns per work-group, RC small enough for a work-group per
   * compute unit */
  c->wr = lim;
  c->rc = 32;
  while (c->rc > 1 && ceil_div(H, c->rc) < cu) c->rc /= 2;
  while (c->rc > 1 && ((size_t)N * (c->rc + 1) + c->wr) * sizeof(float) > info->local_mem)
    c->rc /= 2;
  if (c->three)
    CG_CHECK(((size_t)N * (c->rc + 1) + c->wr) * sizeof(float) <= info->local_mem,
             CG_UNSUPPORTED, "variant fused: batch %d is too large for the local memory", N);
  c->rr = N;
  c->rcb = ceil_div(H, c->rc);
  c->rrb = 1;
  (void)O;
cleanup:
  return rc;
}

static cg_rc build_fused(const cg_backend_env *env, cl_mlp *m, cg_build_tally *tally,
                         cg_error *err) {
  cg_rc rc = CG_OK;
  cl_int code = CL_SUCCESS;
  const cg_device_info *info = cg_device_get_info(env->device);
  const cg_mlp_shape s = m->md.setup.shape;
  size_t limit = info->max_work_group;
  for (;;) {
    fused_config *c = &m->cfg;
    CG_TRY(fused_configure(s, info, limit, c, err));
    char options[512];
    snprintf(options, sizeof options,
             "-DMLP_FUSED -DNB=%d -DDIN=%d -DHID=%d -DDOUT=%d -DTX=%d -DTY=%d -DRM=%d -DRN=%d "
             "-DRM2=%d -DKC=%d -DTPG=%d -DRGROUPS=%d -DNCH=%d -DTHREE=%d -DDZ1A=%d -DWR=%d "
             "-DRR=%d -DRC=%d -DRCB=%d -DWGB=%d",
             s.batch, s.din, s.hidden, s.dout, c->tx, c->ty, c->rm, c->rn, c->rm2, c->kc, c->tpg,
             c->rgroups, c->nch, c->three, c->dz1a, c->wr, c->rr, c->rc, c->rcb, c->wgb);
    CG_TRY(cg_backend_build(env, "mlp.cl", options, &m->program, tally, err));
    m->wide = clCreateKernel(m->program, "mlp_fused_wide", &code);
    CG_CL_CHECK(clCreateKernel, code);
    m->small = clCreateKernel(m->program, "mlp_fused_small", &code);
    CG_CL_CHECK(clCreateKernel, code);
    if (c->three) {
      m->reduce = clCreateKernel(m->program, "mlp_fused_reduce", &code);
      CG_CL_CHECK(clCreateKernel, code);
    }
    /* As for the matmul kernels: when the built kernels allow fewer work-items than asked for,
     * configure again within what they allow and rebuild. */
    const size_t wg_wide = kernel_wg(m->wide, info), wg_small = kernel_wg(m->small, info),
                 wg_reduce = m->reduce ? kernel_wg(m->reduce, info) : limit;
    size_t allowed = wg_wide < wg_small ? wg_wide : wg_small;
    if (wg_reduce < allowed) allowed = wg_reduce;
    if (wg_wide >= (size_t)(c->tx * c->ty) && wg_small >= (size_t)c->wgb &&
        wg_reduce >= (size_t)c->wr)
      break;
    CG_CHECK(allowed >= 1 && allowed < limit, CG_UNSUPPORTED,
             "fused kernels allow %zu, %zu and %zu work-items per group on this device", wg_wide,
             wg_small, wg_reduce);
    limit = allowed;
    clReleaseKernel(m->wide);
    clReleaseKernel(m->small);
    if (m->reduce) clReleaseKernel(m->reduce);
    clReleaseProgram(m->program);
    m->wide = m->small = m->reduce = NULL;
    m->program = NULL;
  }
cleanup:
  return rc;
}

static cg_rc fused_wide(cl_mlp *m, int backward, int forward, cl_event *ev, cg_error *err) {
  cg_rc rc = CG_OK;
  const cl_int b = backward, f = forward;
  CG_CL(clSetKernelArg, (m->wide, 8, sizeof b, &b));
  CG_CL(clSetKernelArg, (m->wide, 9, sizeof f, &f));
  const fused_config *c = &m->cfg;
  const size_t local[2] = {(size_t)c->tx * c->ty, 1};
  const size_t global[2] = {local[0] * c->col_blocks, (size_t)c->rgroups};
  CG_CL(clEnqueueNDRangeKernel, (m->md.queue, m->wide, 2, NULL, global, local, 0, NULL, ev));
cleanup:
  return rc;
}

static cg_rc fused_reduce(cl_mlp *m, int pending, int forward, cl_event *ev, cg_error *err) {
  cg_rc rc = CG_OK;
  const cl_int p = pending, f = forward;
  CG_CL(clSetKernelArg, (m->reduce, 6, sizeof p, &p));
  CG_CL(clSetKernelArg, (m->reduce, 7, sizeof f, &f));
  const fused_config *c = &m->cfg;
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
  const size_t local = (size_t)m->cfg.wgb;
  CG_CL(clEnqueueNDRangeKernel,
        (m->md.queue, m->small, 1, NULL, &local, &local, 0, NULL, ev));
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
  const cl_mem wide_bufs[] = {d->x, d->w1, dz1, m->h1, m->dz2, m->cfg.three ? d->w2 : w2p,
                              m->part};
  for (cl_uint i = 0; i < 7; ++i)
    CG_CL(clSetKernelArg, (m->wide, i, sizeof(cl_mem), &wide_bufs[i]));
  CG_CL(clSetKernelArg, (m->wide, 7, sizeof lr, &lr));
  if (m->reduce) {
    const cl_mem reduce_bufs[] = {m->part, d->w2, m->h1, m->dz2, m->part2};
    for (cl_uint i = 0; i < 5; ++i)
      CG_CL(clSetKernelArg, (m->reduce, i, sizeof(cl_mem), &reduce_bufs[i]));
    CG_CL(clSetKernelArg, (m->reduce, 5, sizeof lr, &lr));
  }
  const cl_mem small_bufs[] = {m->cfg.three ? m->part2 : m->part, m->h1, d->w2, w2p, d->t,
                               d->w3, d->g3, m->h2, m->dy, m->dz2, dz1, d->loss};
  for (cl_uint i = 0; i < 12; ++i)
    CG_CL(clSetKernelArg, (m->small, i, sizeof(cl_mem), &small_bufs[i]));
  CG_CL(clSetKernelArg, (m->small, 12, sizeof lr, &lr));
  CG_CL(clSetKernelArg, (m->small, 14, sizeof update_w3, &update_w3));
cleanup:
  return rc;
}

/* ---- the ops ---------------------------------------------------------------------------- */

static const char *const cl_mlp_variants[] = {"per-op", "fused", NULL};

static cg_rc cl_mlp_prepare(const cg_backend_env *env, const char *variant,
                            const cg_mlp_setup *setup, void **state, cg_compile_info *compile,
                            cg_error *err) {
  cg_rc rc = CG_OK;
  const int v = cg_variant_index(cl_mlp_variants, variant);
  cl_mlp *m = calloc(1, sizeof *m);
  CG_CHECK(m, CG_ERROR, "out of memory");
  CG_CHECK(v >= 0, CG_BAD_INPUT, "unknown cl mlp variant '%s'", variant);
  m->variant = v;
  CG_TRY(cg_mlp_device_create(env->device, setup, &m->md, err));
  const cg_mlp_shape s = setup->shape;
  const size_t N = (size_t)s.batch, Din = (size_t)s.din, H = (size_t)s.hidden,
               O = (size_t)s.dout;
  const cg_device *dev = env->device;
  CG_TRY(cg_mlp_buffer(dev, "h1 (batch x hidden)", N * H, &m->h1, err));
  CG_TRY(cg_mlp_buffer(dev, "h2 (batch x dout)", N * O, &m->h2, err));
  CG_TRY(cg_mlp_buffer(dev, "dy (batch x dout)", N * O, &m->dy, err));

  uint64_t t0 = cg_now_ns();
  cg_build_tally tally = {0};
  if (v == VARIANT_PER_OP) {
    CG_TRY(build_per_op(env, m, &tally, err));
  } else {
    CG_TRY(build_fused(env, m, &tally, err));
  }
  compile->ms = cg_ns_to_ms(cg_now_ns() - t0);
  compile->kind = cg_build_tally_kind(&tally);

  if (v == VARIANT_PER_OP) {
    CG_TRY(cg_mlp_buffer(dev, "y (batch x dout)", N * O, &m->y, err));
    CG_TRY(cg_mlp_buffer(dev, "dz2 (batch x dout)", N * O, &m->d2, err));
    CG_TRY(cg_mlp_buffer(dev, "dz1 (batch x hidden)", N * H, &m->d1, err));
    CG_TRY(cg_mlp_buffer(dev, "g1 (din x hidden)", Din * H, &m->g1, err));
    CG_TRY(cg_mlp_buffer(dev, "g2 (hidden x dout)", H * O, &m->g2, err));
  } else {
    const fused_config *c = &m->cfg;
    CG_TRY(cg_mlp_buffer(dev, "dz2 (batch x dout)", N * O, &m->dz2, err));
    CG_TRY(cg_mlp_buffer(dev, "partial x w1 (row groups x batch x hidden)",
                         (size_t)c->rgroups * N * H, &m->part, err));
    if (c->dz1a && !c->three)
      CG_TRY(cg_mlp_buffer(dev, "w2 of dz1 (hidden x dout)", H * O, &m->w2p, err));
    if (!c->dz1a)
      CG_TRY(cg_mlp_buffer(dev, "dz1 (batch x hidden)", N * H, &m->dz1, err));
    if (c->three)
      CG_TRY(cg_mlp_buffer(dev, "partial h1 w2 (column blocks x batch x dout)",
                           (size_t)c->rcb * N * O, &m->part2, err));
    CG_TRY(fused_set_args(m, err));
  }
  *state = m;
  m = NULL;
cleanup:
  cl_mlp_release(m);
  return rc;
}

static cg_rc cl_mlp_upload(void *state, const cg_mlp_tensors *in, cg_error *err) {
  cl_mlp *m = state;
  return cg_mlp_device_upload(&m->md, in, err);
}

static cg_rc cl_mlp_enqueue(void *state, int iters, cg_device_span *span, int *launches,
                            cg_error *err) {
  cg_rc rc = CG_OK;
  cl_mlp *m = state;
  CG_CHECK(iters >= 1, CG_BAD_INPUT, "mlp enqueue of %d iterations", iters);
  span->begin_at_end = false;
  drop_samples(m);
  if (m->variant == VARIANT_PER_OP) {
    for (int i = 0; i < iters; ++i) {
      m->sampling = i == 0; /* events on the first iteration only, so the loop runs unprofiled */
      CG_TRY(per_op_step(m, i == 0, i == 0 ? &span->begin : NULL,
                         i == iters - 1 ? &span->end : NULL, err));
    }
    *launches = per_op_launches(m);
  } else {
    /* A(forward), then per iteration [R,] B and A(backward of it, forward of the next); the
     * last A only finishes the backward part, so the weights are those of `iters` full steps. */
    const bool three = m->cfg.three;
    CG_TRY(fused_wide(m, 0, 1, &span->begin, err));
    for (int i = 0; i < iters; ++i) {
      m->sampling = i == 0;
      cl_event *last = i == iters - 1 ? &span->end : NULL;
      if (three)
        CG_TRY(fused_reduce(m, i > 0, 1,
                            launch_event(m, "R: w2 update, h1 = relu(sum of partials), h1 w2",
                                         NULL),
                            err));
      CG_TRY(fused_small(m, i == 0,
                         launch_event(m,
                                      three ? "B: h2 .. dz2, w3 (one work-group)"
                                            : "B: h1 .. dz2, w3, dz1, g2, w2 (one work-group)",
                                      NULL),
                         err));
      CG_TRY(fused_wide(m, 1, i < iters - 1,
                        launch_event(m, "A: dz1, g1, w1 update, next partial x w1",
                                     three ? NULL : last),
                        err));
      if (m->sampling && last && !three) share_samples(m, m->nsampled - 1, NULL, last);
    }
    /* with three launches the last w2 update is pending: R alone finishes it */
    if (three) CG_TRY(fused_reduce(m, 1, 0, &span->end, err));
    /* plus one per enqueue (two with three launches), the closing backward-only launches */
    *launches = three ? 3 : 2;
  }
cleanup:
  m->sampling = false;
  return rc;
}

static cg_rc cl_mlp_finish(void *state, cg_error *err) {
  cg_rc rc = CG_OK;
  cl_mlp *m = state;
  CG_CL(clFinish, (m->md.queue));
cleanup:
  return rc;
}

static cg_rc cl_mlp_read_loss(void *state, double *loss, cg_error *err) {
  cl_mlp *m = state;
  return cg_mlp_device_read_loss(&m->md, loss, err);
}

static cg_rc cl_mlp_download(void *state, cg_mlp_tensors *out, cg_error *err) {
  cl_mlp *m = state;
  return cg_mlp_device_download(&m->md, out, err);
}

static int cl_mlp_kernel_split(void *state, cg_kernel_time *out, int max) {
  cl_mlp *m = state;
  const int n = m->nsampled < max ? m->nsampled : max;
  for (int i = 0; i < n; ++i) out[i].name = m->sampled_name[i];
  bool ok = cg_kernel_times(m->sampled, n, out);
  drop_samples(m);
  return ok ? n : 0;
}

const cg_mlp_ops cg_cl_mlp_ops = {
    .variants = cl_mlp_variants,
    .prepare = cl_mlp_prepare,
    .upload = cl_mlp_upload,
    .enqueue = cl_mlp_enqueue,
    .finish = cl_mlp_finish,
    .read_loss = cl_mlp_read_loss,
    .download = cl_mlp_download,
    .release = cl_mlp_release,
    .kernel_split = cl_mlp_kernel_split,
};
