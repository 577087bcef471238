/* The fused mlp variant's persistent path (see mlp_persistent.h and cl/mlp_persistent.cl). */
#include "backends/cl/mlp_persistent.h"

#include <stdio.h>
#include <stdlib.h>

#include "backends/cl/persistent.h"
#include "clgauge/clock.h"
#include "clgauge/device.h"
#include "clgauge/grid.h"

struct cg_cl_mlp_persistent {
  cl_program program;
  cl_kernel kernel;
  cl_mem part, h1g, h2g, w2x, w1_saved, small_saved;
  cg_grid grid;
  size_t groups, local;
  cl_int spin;      /* the barrier's polls before it gives up */
  int iters;        /* of the run enqueued last */
  bool on, failed;  /* failed: a launch did, the path is launches from then on */
};

void cg_cl_mlp_persistent_release(cg_cl_mlp_persistent *p) {
  if (!p) return;
  cl_mem *bufs[] = {&p->part, &p->h1g, &p->h2g, &p->w2x, &p->w1_saved, &p->small_saved};
  for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; ++i) cg_cl_release_mem(bufs[i]);
  cg_grid_release(&p->grid);
  if (p->kernel) clReleaseKernel(p->kernel);
  if (p->program) clReleaseProgram(p->program);
  free(p);
}

bool cg_cl_mlp_persistent_on(const cg_cl_mlp_persistent *p) { return p && p->on; }

const char *cg_cl_mlp_persistent_path(const cg_cl_mlp_persistent *p) {
  return p && p->failed ? cg_cl_persist_failed_path : NULL;
}

static size_t max_of(size_t a, size_t b) { return a > b ? a : b; }
/* Work-items per sum when `wg` share `sums` sums: a power of two, at least 1. */
static size_t sharing(size_t wg, size_t sums) { return sums < wg ? cg_pow2_floor(wg / sums) : 1; }

/* The kernel's macros (cl/mlp_persistent.cl says what each is) for `groups` work-groups of
 * `wg` work-items. Tiles of w1 of BJ = 32 columns (fewer where the hidden layer is narrow, more
 * where there are fewer groups than 32-column blocks), and as many row blocks as the groups then
 * allow: the products of the first layer spread over every group, each partial sum over few
 * row blocks. */
typedef struct persist_tiling {
  size_t bi, bj, ti, tj, g, wg, w2r, ps, js, ks, gs, red;
} persist_tiling;

static persist_tiling tiling(cg_mlp_shape s, size_t groups, size_t wg) {
  const size_t D = (size_t)s.din, H = (size_t)s.hidden, O = (size_t)s.dout;
  persist_tiling t = {.g = groups, .wg = wg};
  t.bj = cg_round_up(H < 32 ? H : 32, 4);
  t.tj = cg_ceil_div(H, t.bj);
  if (t.tj > groups) {
    t.bj = cg_round_up(cg_ceil_div(H, groups), 4);
    t.tj = cg_ceil_div(H, t.bj);
  }
  const size_t ti = groups / t.tj ? groups / t.tj : 1;
  t.bi = cg_round_up(cg_ceil_div(D, ti), 2);
  t.ti = cg_ceil_div(D, t.bi);
  t.w2r = cg_ceil_div(H, groups);
  t.ps = sharing(wg, H);
  t.js = sharing(wg, O);
  t.ks = sharing(wg, O * O);
  t.gs = sharing(wg, t.w2r * O);
  t.red = max_of(max_of(wg, t.ps * H), max_of(max_of(t.js * O, t.ks * O * O), t.gs * t.w2r * O));
  return t;
}

/* Bytes of local memory of a group: the kernel's arrays, in its order. */
static size_t local_bytes(cg_mlp_shape s, const persist_tiling *t) {
  const size_t N = (size_t)s.batch, H = (size_t)s.hidden, O = (size_t)s.dout;
  const size_t ldx = cg_round_up(N, 4) + 4; /* the kernel's LDX */
  const size_t floats = ldx * t->bi + ldx * t->bj + t->bi * t->bj + t->bj * O + H + t->red +
                        5 * N * O + 2 * O * O + t->w2r * O + N * t->w2r;
  return floats * sizeof(float) + sizeof(cl_int);
}

static void tiling_options(cg_mlp_shape s, const persist_tiling *t, char *out, size_t cap) {
  snprintf(out, cap,
           "-DNB=%d -DDIN=%d -DHID=%d -DDOUT=%d -DBI=%zu -DBJ=%zu -DTI=%zu -DTJ=%zu -DG=%zu "
           "-DWG=%zu -DW2R=%zu -DPS=%zu -DJS=%zu -DKS=%zu -DGS=%zu -DRED=%zu",
           s.batch, s.din, s.hidden, s.dout, t->bi, t->bj, t->ti, t->tj, t->g, t->wg, t->w2r,
           t->ps, t->js, t->ks, t->gs, t->red);
}

cg_rc cg_cl_mlp_persistent_setup(const cg_backend_env *env, const cg_mlp_device *md,
                                 cg_kernel_config *config, double *compile_ms,
                                 cg_build_tally *tally,
                                 cg_cl_mlp_persistent **out, cg_error *err) {
  cg_rc rc = CG_OK;
  cl_int code = CL_SUCCESS;
  cg_cl_mlp_persistent *p = NULL;
  *out = NULL;
  const cg_device *dev = cg_cl_env_device(env);
  const cg_device_info *info = cg_device_get_info(dev);
  const cg_mlp_shape s = md->setup.shape;
  const size_t N = (size_t)s.batch, D = (size_t)s.din, H = (size_t)s.hidden, O = (size_t)s.dout;
  /* a group per compute unit by default: the first layer's products spread over all of them.
   * On by default on GPUs: on the H200 it was faster than the launches at every shape where its
   * local memory fits (9.0 against 26.5 us per seed iteration, and at 5 other small shapes;
   * bench/RESULTS.md, 2026-12-04, evening) */
  const size_t cu = cg_device_units(info);
  cg_cl_persist_plan plan;
  bool want = false;
  CG_TRY(cg_cl_persist_want(env, (int)cu, true, config, &plan, &want, err));
  if (!want) goto cleanup;
  p = calloc(1, sizeof *p);
  CG_CHECK(p, CG_ERROR, "out of memory");
  p->groups = (size_t)plan.groups;
  p->spin = plan.spin;
  /* 256 work-items (eight warps for the small part every group repeats), a power of two (the
   * shares of its sums, `sharing`, are powers of two and the kernel is tested only so), within
   * the device's limit; built again with fewer where the kernel takes fewer */
  size_t wg = 0;
  cg_origin wg_origin = CG_ORIGIN_DEFAULT;
  CG_TRY(cg_cl_persist_ask_local(env, 256, true, &wg, &wg_origin, err));

  persist_tiling t;
  size_t bytes = 0;
  const uint64_t t0 = cg_now_ns();
  for (;;) {
    t = tiling(s, p->groups, wg);
    bytes = local_bytes(s, &t);
    if (bytes > info->local_mem) break; /* refused below, before any build */
    char options[400];
    tiling_options(s, &t, options, sizeof options);
    CG_TRY(cg_backend_build(env, "mlp_persistent.cl", options, &p->program, tally, err));
    p->kernel = clCreateKernel(p->program, "mlp_persistent", &code);
    CG_CL_CHECK(clCreateKernel, code);
    size_t fit = 0;
    CG_TRY(cg_cl_persist_fit_local(info, p->kernel, "mlp_persistent", wg, true, &fit, &wg_origin,
                                   err));
    if (fit == wg) break;
    wg = fit;
    clReleaseKernel(p->kernel);
    clReleaseProgram(p->program);
    p->kernel = NULL;
    p->program = NULL;
  }
  *compile_ms += cg_ns_to_ms(cg_now_ns() - t0);
  p->local = wg;
  char why[200];
  const bool fits = p->kernel && bytes <= info->local_mem;
  snprintf(why, sizeof why,
           "the persistent kernel needs %zu bytes of local memory per group at %zu groups "
           "(tiles of w1 of %zu x %zu), the device has %llu",
           bytes, p->groups, t.bi, t.bj, (unsigned long long)info->local_mem);
  CG_TRY(cg_cl_persist_check(env, "persistent, one launch per run", p->local, bytes, fits, why,
                             config, &plan, err));
  if (!plan.on) goto cleanup;
  cg_kernel_config_set(config, "WG_PERSIST", (int)p->local, wg_origin);
  CG_TRY(cg_cl_buffer(dev, "the partial products (row blocks x batch x hidden)",
                      t.ti * N * H * sizeof(float), CL_MEM_READ_WRITE, &p->part, err));
  CG_TRY(cg_cl_buffer(dev, "h1 (batch x hidden)", N * H * sizeof(float), CL_MEM_READ_WRITE,
                      &p->h1g, err));
  CG_TRY(cg_cl_buffer(dev, "h2 (batch x dout)", N * O * sizeof(float), CL_MEM_READ_WRITE,
                      &p->h2g, err));
  CG_TRY(cg_cl_buffer(dev, "the second buffer of w2", H * O * sizeof(float), CL_MEM_READ_WRITE,
                      &p->w2x, err));
  CG_TRY(cg_cl_buffer(dev, "the copy of w1", D * H * sizeof(float), CL_MEM_READ_WRITE,
                      &p->w1_saved, err));
  CG_TRY(cg_cl_buffer(dev, "the copies of w2, w3 and g3", (H * O + 2 * O * O) * sizeof(float),
                      CL_MEM_READ_WRITE, &p->small_saved, err));
  CG_TRY(cg_cl_persist_zero(md->queue, p->part, t.ti * N * H * sizeof(float), err));
  CG_TRY(cg_cl_persist_zero(md->queue, p->h1g, N * H * sizeof(float), err));
  CG_TRY(cg_cl_persist_zero(md->queue, p->h2g, N * O * sizeof(float), err));
  CG_TRY(cg_cl_persist_zero(md->queue, p->w2x, H * O * sizeof(float), err));
  CG_TRY(cg_grid_create(dev, &p->grid, err));
  p->on = true;
  *out = p;
  p = NULL;
cleanup:
  cg_cl_mlp_persistent_release(p);
  return rc;
}

cg_rc cg_cl_mlp_persistent_enqueue(cg_cl_mlp_persistent *p, cg_mlp_device *md, int iters,
                                   cg_error *err) {
  cg_rc rc = CG_OK;
  CG_CHECK(iters >= 1, CG_BAD_INPUT, "mlp enqueue of %d iterations", iters);
  cg_mlp_device_run_begin(md);
  p->iters = iters;
  cl_kernel k = p->kernel;
  const cl_int ints[] = {iters, md->setup.update_w3 ? 1 : 0};
  for (cl_uint i = 0; i < 2; ++i) CG_CL(clSetKernelArg, (k, i, sizeof(cl_int), &ints[i]));
  const cl_float lr = md->setup.lr;
  CG_CL(clSetKernelArg, (k, 2, sizeof lr, &lr));
  const cl_mem bufs[] = {md->x,      md->t,       md->w1,          md->w2,  p->w2x,
                         md->w3,     md->g3,      md->loss,        p->w1_saved,
                         p->small_saved, p->part, p->h1g,          p->h2g,  p->grid.state};
  for (cl_uint i = 0; i < 14; ++i) CG_CL(clSetKernelArg, (k, 3 + i, sizeof(cl_mem), &bufs[i]));
  CG_CL(clSetKernelArg, (k, 17, sizeof p->spin, &p->spin));
  CG_TRY(cg_grid_rearm(md->queue, &p->grid, err)); /* the barriers count from zero */
  const size_t global = p->groups * p->local;
  CG_CL(clEnqueueNDRangeKernel,
        (md->queue, k, 1, NULL, &global, &p->local, 0, NULL, &md->span.begin));
  md->span.end = md->span.begin;
  clRetainEvent(md->span.end);
  CG_TRY(cg_grid_read_failure(md->queue, &p->grid, err));
cleanup:
  return rc;
}

cg_rc cg_cl_mlp_persistent_check(cg_cl_mlp_persistent *p, cg_mlp_device *md, bool *redo,
                                 int *iters, cg_error *err) {
  cg_rc rc = CG_OK;
  CG_CL(clFinish, (md->queue));
  *redo = cg_grid_failed(&p->grid);
  *iters = p->iters;
  if (!*redo) goto cleanup;
  const cg_mlp_shape s = md->setup.shape;
  const size_t D = (size_t)s.din, H = (size_t)s.hidden, O = (size_t)s.dout;
  CG_CL(clEnqueueCopyBuffer, (md->queue, p->w1_saved, md->w1, 0, 0, D * H * 4, 0, NULL, NULL));
  CG_CL(clEnqueueCopyBuffer, (md->queue, p->small_saved, md->w2, 0, 0, H * O * 4, 0, NULL, NULL));
  CG_CL(clEnqueueCopyBuffer,
        (md->queue, p->small_saved, md->w3, H * O * 4, 0, O * O * 4, 0, NULL, NULL));
  CG_CL(clEnqueueCopyBuffer,
        (md->queue, p->small_saved, md->g3, (H * O + O * O) * 4, 0, O * O * 4, 0, NULL, NULL));
  CG_TRY(cg_grid_reset(md->queue, &p->grid, err));
  p->on = false;
  p->failed = true;
cleanup:
  return rc;
}
