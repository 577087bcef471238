/* The split-K product, its sum and the transpose of cl/mlp_splitk.cl (see mlp_splitk.h). */
#include "backends/cl/mlp_splitk.h"

#include <stdio.h>
#include <string.h>

#include "clgauge/device.h"

/* Work-groups per compute unit that a split aims at: one alone leaves a unit idle while its
 * loads are in flight. */
#define GROUPS_PER_UNIT 2
/* The shortest slice of k (a multiple of the tile): shorter ones buy little against the
 * partials they write and the sum reads. */
#define MIN_SLICE 64

static size_t items(int bm, int bn) { return (size_t)(bm / 4) * (size_t)(bn / 4); }
static uint64_t tile_bytes(int bm, int bn, int kt) {
  return (uint64_t)kt * (uint64_t)(bm + 4 + bn + 4) * sizeof(float);
}

/* One step down when the block does not fit: a shorter k-tile where the local memory is short,
 * else a block half as tall or wide (the larger first), down to 4 x 4. */
static bool shrink(int *bm, int *bn, int *kt, bool too_many) {
  if (!too_many && *kt > 1) {
    *kt /= 2;
    return true;
  }
  int *p = *bm >= *bn ? bm : bn;
  if (*p <= 4) p = p == bm ? bn : bm;
  if (*p <= 4) return false;
  *p /= 2;
  return true;
}

static void release_kernels(cg_mlp_splitk *sk) {
  cl_kernel *k[] = {&sk->product, &sk->sum, &sk->transpose};
  for (int i = 0; i < 3; ++i)
    if (*k[i]) {
      clReleaseKernel(*k[i]);
      *k[i] = NULL;
    }
  if (sk->program) clReleaseProgram(sk->program);
  sk->program = NULL;
}

cg_rc cg_mlp_splitk_create(const cg_backend_env *env, int splits, cg_mlp_splitk *sk,
                           cg_kernel_config *config, cg_build_tally *tally, cg_error *err) {
  cg_rc rc = CG_OK;
  cl_int code = CL_SUCCESS;
  const cg_device_info *info = cg_device_get_info(cg_cl_env_device(env));
  memset(sk, 0, sizeof *sk);
  sk->units = (long)cg_device_units(info);
  sk->splits = splits;
  cg_cl_group_limits dev;
  CG_TRY(cg_cl_device_limits(info, &dev, err));
  int bm = 64, bn = 64, kt = 16;
  cg_cl_group_limits lim = dev;
  char options[96];
  for (;;) {
    while (items(bm, bn) > lim.items || (size_t)(bn / 4) > lim.dim[0] ||
           (size_t)(bm / 4) > lim.dim[1] || tile_bytes(bm, bn, kt) > lim.local_mem) {
      const bool too_many = items(bm, bn) > lim.items || (size_t)(bn / 4) > lim.dim[0] ||
                            (size_t)(bm / 4) > lim.dim[1];
      CG_CHECK(shrink(&bm, &bn, &kt, too_many), CG_UNSUPPORTED,
               "kernel mlp_splitk fits no block on this device (%zu work-items, %llu bytes of "
               "local memory)",
               lim.items, (unsigned long long)lim.local_mem);
    }
    snprintf(options, sizeof options, "-DBM=%d -DBN=%d -DKT=%d", bm, bn, kt);
    CG_TRY(cg_backend_build(env, "mlp_splitk.cl", options, &sk->program, tally, err));
    sk->product = clCreateKernel(sk->program, "mlp_splitk", &code);
    CG_CL_CHECK(clCreateKernel, code);
    cg_cl_group_limits built = dev;
    uint64_t used = 0;
    CG_TRY(cg_cl_kernel_limits(info, sk->product, &built, &used, err));
    if (items(bm, bn) <= built.items && used <= dev.local_mem) break;
    /* Against the built kernel's limits: each pass shrinks, since the same block no longer
     * fits. */
    release_kernels(sk);
    lim.items = built.items < lim.items ? built.items : lim.items;
    lim.local_mem = cg_cl_local_for_arrays(dev.local_mem, tile_bytes(bm, bn, kt), used);
  }
  sk->bm = bm;
  sk->bn = bn;
  sk->kt = kt;
  const struct {
    const char *name;
    int value, first;
  } chosen[] = {{"SK_BM", bm, 64}, {"SK_BN", bn, 64}, {"SK_KT", kt, 16}};
  for (int i = 0; i < 3; ++i)
    cg_kernel_config_set(config, chosen[i].name, chosen[i].value,
                         chosen[i].value < chosen[i].first ? CG_ORIGIN_FALLBACK
                                                           : CG_ORIGIN_DEFAULT);
  sk->sum = clCreateKernel(sk->program, "mlp_splitk_sum", &code);
  CG_CL_CHECK(clCreateKernel, code);
  sk->transpose = clCreateKernel(sk->program, "mlp_transpose", &code);
  CG_CL_CHECK(clCreateKernel, code);
  /* the transpose: a square work-group within its own limits, a tile of edge x (edge + 1) */
  cg_cl_group_limits tl = dev;
  CG_TRY(cg_cl_kernel_limits(info, sk->transpose, &tl, NULL, err));
  sk->tedge = cg_cl_square_edge(&tl, 16);
  while (sk->tedge > 1 && sk->tedge * (sk->tedge + 1) * sizeof(float) > tl.local_mem)
    sk->tedge /= 2;
  CG_CHECK(sk->tedge * (sk->tedge + 1) * sizeof(float) <= tl.local_mem, CG_UNSUPPORTED,
           "kernel mlp_transpose needs %zu bytes of local memory, the device has %llu left",
           2 * sizeof(float), (unsigned long long)tl.local_mem);
cleanup:
  if (rc != CG_OK) release_kernels(sk);
  return rc;
}

cg_mlp_split cg_mlp_splitk_plan(const cg_mlp_splitk *sk, size_t m, size_t n, size_t k) {
  const size_t tiles = cg_ceil_div(k, (size_t)sk->kt);
  size_t s;
  if (sk->splits > 0) {
    s = (size_t)sk->splits;
  } else {
    const size_t blocks = cg_ceil_div(m, (size_t)sk->bm) * cg_ceil_div(n, (size_t)sk->bn);
    const size_t wanted = (size_t)(GROUPS_PER_UNIT * sk->units);
    s = cg_ceil_div(wanted, blocks);
    const size_t most = cg_ceil_div(k, MIN_SLICE);
    if (s > most) s = most;
    if (s > CG_MLP_MAX_SPLITS) s = CG_MLP_MAX_SPLITS;
  }
  if (s > tiles) s = tiles;
  if (s < 1) s = 1;
  /* slices of whole tiles; rounding up may leave fewer of them */
  const size_t slice = cg_ceil_div(tiles, s) * (size_t)sk->kt;
  return (cg_mlp_split){.count = (int)cg_ceil_div(k, slice), .slice = (int)slice};
}

cg_rc cg_mlp_splitk_gemm(const cg_mlp_splitk *sk, cl_command_queue q, const cg_mlp_gemm *g,
                         cg_mlp_split split, cl_mem part, cg_mlp_sampler *sm, const char *name,
                         cg_error *err) {
  cg_rc rc = CG_OK;
  const bool summed = split.count > 1;
  const cl_int args[] = {(cl_int)g->m, (cl_int)g->n, (cl_int)g->k, split.slice};
  for (cl_uint i = 0; i < 4; ++i)
    CG_CL(clSetKernelArg, (sk->product, i, sizeof(cl_int), &args[i]));
  /* several slices write their partials, summed into c below */
  CG_TRY(cg_mlp_gemm_set_operands(sk->product, 4, g, summed ? part : g->c,
                                  summed ? 0.0f : g->beta, err));
  const size_t local[3] = {(size_t)sk->bn / 4, (size_t)sk->bm / 4, 1};
  const size_t global[3] = {cg_ceil_div(g->n, (size_t)sk->bn) * local[0],
                            cg_ceil_div(g->m, (size_t)sk->bm) * local[1], (size_t)split.count};
  CG_CL(clEnqueueNDRangeKernel,
        (q, sk->product, 3, NULL, global, local, 0, NULL, cg_mlp_kernel_event(sm, name, NULL)));
  if (summed) {
    const size_t count = g->m * g->n, wg = 64;
    const cl_int c = (cl_int)count, s = split.count;
    CG_CL(clSetKernelArg, (sk->sum, 0, sizeof c, &c));
    CG_CL(clSetKernelArg, (sk->sum, 1, sizeof s, &s));
    CG_CL(clSetKernelArg, (sk->sum, 2, sizeof part, &part));
    CG_CL(clSetKernelArg, (sk->sum, 3, sizeof g->c, &g->c));
    CG_CL(clSetKernelArg, (sk->sum, 4, sizeof g->beta, &g->beta));
    /* the work-group size left to the driver: any one serves an elementwise sum */
    const size_t global1 = cg_ceil_div(count, wg) * wg;
    CG_CL(clEnqueueNDRangeKernel,
          (q, sk->sum, 1, NULL, &global1, NULL, 0, NULL,
           cg_mlp_kernel_event(sm, "sum of k slices", NULL)));
  }
cleanup:
  return rc;
}

cg_rc cg_mlp_splitk_transpose(const cg_mlp_splitk *sk, cl_command_queue q, size_t rows,
                              size_t cols, cl_mem src, cl_mem dst, cl_event *ev, cg_error *err) {
  cg_rc rc = CG_OK;
  const cl_int r = (cl_int)rows, c = (cl_int)cols;
  const size_t e = sk->tedge;
  CG_CL(clSetKernelArg, (sk->transpose, 0, sizeof r, &r));
  CG_CL(clSetKernelArg, (sk->transpose, 1, sizeof c, &c));
  CG_CL(clSetKernelArg, (sk->transpose, 2, sizeof src, &src));
  CG_CL(clSetKernelArg, (sk->transpose, 3, sizeof dst, &dst));
  CG_CL(clSetKernelArg, (sk->transpose, 4, e * (e + 1) * sizeof(float), NULL));
  const size_t local[2] = {e, e};
  const size_t global[2] = {cg_ceil_div(cols, e) * e, cg_ceil_div(rows, e) * e};
  CG_CL(clEnqueueNDRangeKernel, (q, sk->transpose, 2, NULL, global, local, 0, NULL, ev));
cleanup:
  return rc;
}

void cg_mlp_splitk_release(cg_mlp_splitk *sk) { release_kernels(sk); }
