/* The cl backend's matmul: hand-written kernels from cl/matmul.cl in four variants (naive,
 * tiled, register-blocked, pipelined), as the product of the shared OpenCL matmul. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/backends.h"
#include "backends/cl/matmul_pipelined.h"
#include "backends/opencl/cl_matmul_common.h"
#include "clgauge/clock.h"
#include "clgauge/loop_limit.h"

typedef struct cl_matmul_variant {
  const char *name;
  const char *kernel;
  int outputs_per_item; /* per dimension: the work-group covers ts*outputs_per_item of C; 0: the
                         * pipelined kernel, with parameters of its own */
} cl_matmul_variant;

static const cl_matmul_variant matmul_variants[] = {
    {"naive", "matmul_naive", 1},
    {"tiled", "matmul_tiled", 1},
    {"regblock", "matmul_regblock", 4},
    {"pipelined", "matmul_pipelined", 0}, /* its parameters: matmul_pipelined.c */
};
static const char *const cl_variants[] = {"naive", "tiled", "regblock", "pipelined", NULL};
enum { REGBLOCK_BK = 16, MAX_TS = 32 };

static size_t local_bytes(const cl_matmul_variant *var, int ts) {
  if (strcmp(var->name, "naive") == 0) return 0;
  const size_t rows = var->outputs_per_item == 1 ? (size_t)ts : REGBLOCK_BK;
  return 2 * rows * (size_t)ts * (size_t)var->outputs_per_item * sizeof(float);
}

static void release_kernel(cg_device_matmul *mm) {
  if (mm->kernel) clReleaseKernel(mm->kernel);
  if (mm->program) clReleaseProgram(mm->program);
  mm->kernel = NULL;
  mm->program = NULL;
}

/* The loop iterations of a work-item of naive, tiled or regblock with edge ts at that k, held
 * against a driver's loop limit (clgauge/loop_limit.h). naive: one loop over k. The tiled kernels
 * walk k in tiles whose inner loops have constant bounds, which compilers unroll: tiled ran right
 * at k = 70000 on Mesa 22.3's llvmpipe (ts 4), and regblock (ts 4) at 26000 but not at 30000,
 * about 37 loop trips per tile of BK. Counted here with room: for regblock the tile, twice its
 * loads loop's trips and BK (49 at ts 4), for tiled two per tile. */
static double loop_trips(const cl_matmul_variant *var, int ts, int k) {
  if (strcmp(var->name, "naive") == 0) return k;
  if (var->outputs_per_item == 1) return 2.0 * ceil((double)k / ts);
  const double bm = (double)ts * var->outputs_per_item;
  return ceil((double)k / REGBLOCK_BK) *
         (1 + 2 * ceil(REGBLOCK_BK * bm / ((double)ts * ts)) + REGBLOCK_BK);
}

/* Build the variant's kernel with work-groups of ts x ts. The device's limits are only upper
 * bounds: a driver may allow fewer work-items for a given kernel (rusticl on llvmpipe allows 32),
 * and a kernel may need more local memory than its tiles (CL_KERNEL_LOCAL_MEM_SIZE counts what
 * the driver adds), so when the built kernel does not fit the build is redone with the next
 * smaller edge (a fallback), and the time of every build counts as compile time. The edge also
 * starts smaller when the tiles alone do not fit the local memory. An edge set through
 * --kernel-param TS is built as given, or refused when it does not fit. */
static cg_rc build_kernel(const cg_backend_env *env, const cl_matmul_variant *var,
                          cg_device_matmul *mm, cg_kernel_config *config, int *ts_out,
                          cg_build_tally *tally, cg_error *err) {
  cg_rc rc = CG_OK;
  cl_int code = CL_SUCCESS;
  const cg_device_info *info = cg_device_get_info(mm->dev);
  cg_cl_group_limits dev;
  CG_TRY(cg_cl_device_limits(info, &dev, err));
  cg_origin origin = CG_ORIGIN_DEFAULT;
  const int edge = (int)cg_cl_square_edge(&dev, 16);
  int ts = cg_kernel_override(env->overrides, "TS", edge, &origin);
  const size_t dim = dev.dim[0] < dev.dim[1] ? dev.dim[0] : dev.dim[1];
  CG_CHECK(ts >= 1 && ts <= MAX_TS && (size_t)(ts * ts) <= dev.items && (size_t)ts <= dim,
           CG_BAD_INPUT,
           "--kernel-param TS=%d: the work-group edge must be 1..%d with TS*TS <= %zu and "
           "TS <= %zu here",
           ts, (int)MAX_TS, dev.items, dim);
  if (origin != CG_ORIGIN_OVERRIDE)
    while (ts > 1 && local_bytes(var, ts) > dev.local_mem) ts /= 2;
  for (;;) {
    CG_CHECK(local_bytes(var, ts) <= dev.local_mem, CG_UNSUPPORTED,
             "variant %s needs %zu bytes of local memory at TS=%d, the device has %llu",
             var->name, local_bytes(var, ts), ts, (unsigned long long)dev.local_mem);
    snprintf(config->build_options, sizeof config->build_options, "-DTS=%d -DWPT=%d -DBK=%d", ts,
             var->outputs_per_item, (int)REGBLOCK_BK);
    CG_TRY(cg_backend_build(env, "matmul.cl", config->build_options, &mm->program, tally, err));
    mm->kernel = clCreateKernel(mm->program, var->kernel, &code);
    CG_CL_CHECK(clCreateKernel, code);
    cg_cl_group_limits lim = dev;
    uint64_t used = 0;
    CG_TRY(cg_cl_kernel_limits(info, mm->kernel, &lim, &used, err));
    const bool fits = lim.items >= (size_t)(ts * ts) && used <= dev.local_mem;
    if (fits) break;
    CG_CHECK(origin != CG_ORIGIN_OVERRIDE, CG_BAD_INPUT,
             "--kernel-param TS=%d: kernel %s allows %zu work-items per group and needs %llu "
             "bytes of local memory (the device has %llu)",
             ts, var->kernel, lim.items, (unsigned long long)used,
             (unsigned long long)dev.local_mem);
    const int next = used > dev.local_mem ? ts / 2 : (int)cg_cl_square_edge(&lim, (size_t)ts);
    CG_CHECK(next >= 1 && next < ts, CG_UNSUPPORTED,
             "kernel %s allows %zu work-items per group and needs %llu bytes of local memory on "
             "this device (it has %llu)",
             var->kernel, lim.items, (unsigned long long)used, (unsigned long long)dev.local_mem);
    ts = next;
    release_kernel(mm);
  }
  if (ts < edge && origin == CG_ORIGIN_DEFAULT) origin = CG_ORIGIN_FALLBACK;
  *ts_out = ts;
  cg_kernel_config_set(config, "TS", ts, origin);
  cg_kernel_config_set(config, "WPT", var->outputs_per_item, CG_ORIGIN_DEFAULT);
  if (var->outputs_per_item > 1) cg_kernel_config_set(config, "BK", REGBLOCK_BK, CG_ORIGIN_DEFAULT);
cleanup:
  return rc;
}

static cg_rc kernel_product(cg_device_matmul *mm, cl_event *ev, cg_error *err) {
  cg_rc rc = CG_OK;
  CG_CL(clEnqueueNDRangeKernel,
        (mm->queue, mm->kernel, 2, NULL, mm->global, mm->local, 0, NULL, mm->sum ? NULL : ev));
  if (mm->sum) /* the split blocks' parts into C (matmul_pipelined.c) */
    CG_CL(clEnqueueNDRangeKernel,
          (mm->queue, mm->sum, 1, NULL, &mm->sum_global, &mm->sum_local, 0, NULL, ev));
cleanup:
  return rc;
}

static cg_rc cl_matmul_prepare(const cg_backend_env *env, const char *variant, const char *mode,
                               const void *problem, void **state, cg_prepared *out,
                               cg_error *err) {
  cg_rc rc = CG_OK;
  const cg_matmul_shape shape = *(const cg_matmul_shape *)problem;
  const int v = cg_variant_index(cl_variants, variant);
  cg_device_matmul *mm = NULL;
  CG_CHECK(v >= 0, CG_BAD_INPUT, "unknown cl variant '%s'", variant);
  const cl_matmul_variant *var = &matmul_variants[v];
  CG_TRY(cg_cl_matmul_create(env, &shape, kernel_product, 1, &mm, err));
  const uint64_t t0 = cg_now_ns();
  cg_build_tally tally = {0};
  int edge = 0;
  if (var->outputs_per_item == 0)
    CG_TRY(cg_cl_pipelined_build(env, mm, true, &out->config, &tally, err));
  else
    CG_TRY(build_kernel(env, var, mm, &out->config, &edge, &tally, err));
  if (var->outputs_per_item > 0) {
    /* its measure, where there is one to make, counts as compile time: it builds a program */
    uint64_t limit = 0;
    CG_TRY(cg_backend_loop_limit(env, &limit, err));
    const double trips = loop_trips(var, edge, shape.k);
    CG_CHECK(cg_loop_limit_holds(limit, trips), CG_UNSUPPORTED,
             "variant %s would loop about %.0f times in a work-item at k = %d, and this driver "
             "ends a work-item's loops after %llu",
             var->name, trips, shape.k, (unsigned long long)limit);
  }
  out->compile_ms = cg_ns_to_ms(cg_now_ns() - t0);
  out->compile_kind = cg_build_tally_kind(&tally);

  const cl_int M = shape.m, N = shape.n, K = shape.k;
  CG_CL(clSetKernelArg, (mm->kernel, 0, sizeof M, &M));
  CG_CL(clSetKernelArg, (mm->kernel, 1, sizeof N, &N));
  CG_CL(clSetKernelArg, (mm->kernel, 2, sizeof K, &K));
  CG_CL(clSetKernelArg, (mm->kernel, 3, sizeof(cl_mem), &mm->a));
  CG_CL(clSetKernelArg, (mm->kernel, 4, sizeof(cl_mem), &mm->b));
  CG_CL(clSetKernelArg, (mm->kernel, 5, sizeof(cl_mem), &mm->c));
  /* OpenCL 1.x needs the global size to be a multiple of the work-group size: round up, and the
   * kernels leave the extra work-items idle. (The pipelined build sets its own sizes.) */
  if (var->outputs_per_item > 0) {
      const size_t ts = (size_t)edge, wpt = (size_t)var->outputs_per_item, block = ts * wpt;
    mm->local[0] = mm->local[1] = ts;
    mm->global[0] = cg_round_up((size_t)shape.n, block) / wpt;
    mm->global[1] = cg_round_up((size_t)shape.m, block) / wpt;
  }
  *state = mm;
  mm = NULL;
cleanup:
  cg_cl_matmul_release(mm);
  return rc;
}

/* pipelined's block and split follow the shape (the waves of its blocks on the compute units) */
static void cl_matmul_own_choice(const cg_device_info *info, const char *variant,
                                 const void *problem, cg_kernel_overrides *out) {
  if (strcmp(variant, "pipelined") == 0)
    cg_cl_pipelined_own_choice(info, (const cg_matmul_shape *)problem, out);
}

static const char *const cl_matmul_params[] = {"TS", "MWG", "NWG", "KWG",    "WM",   "WN",
                                                "VW", "PAD", "SPLITS", "TAIL", NULL};
/* The work-group edge of naive, tiled and regblock (x4 outputs per work-item for regblock); the
 * block of C, k-slice, outputs per work-item, vector width and padding of pipelined, and the
 * parts its last wave's blocks split into (SPLITS, bound to the shape: the class's other shapes
 * leave other tails; TAIL is the shape's and is not searched). */
static const char *const cl_matmul_shape_bound[] = {"SPLITS", NULL};
static const cg_tune_space cl_matmul_tune[] = {
    {"tiled", NULL, 1, {{"TS", 4, {4, 8, 16, 32}}}},
    {"regblock", NULL, 1, {{"TS", 4, {4, 8, 16, 32}}}},
    {"pipelined",
     NULL,
     8,
     {{"MWG", 4, {32, 64, 96, 128}},
      {"NWG", 4, {32, 64, 96, 128}},
      {"SPLITS", 7, {1, 2, 3, 4, 6, 8, 16}}, /* with the block: it decides the last wave */
      {"KWG", 3, {8, 16, 32}},
      {"WM", 3, {4, 6, 8}},
      {"WN", 3, {4, 6, 8}},
      {"VW", 3, {1, 2, 4}},
      {"PAD", 2, {0, 1}}}},
    {NULL, NULL, 0, {{NULL, 0, {0}}}},
};

const cg_impl cg_cl_matmul = {
    .workload = "matmul",
    .backend = &cg_backend_cl,
    .variants = cl_variants,
    .kernel_params = cl_matmul_params,
    .tune_spaces = cl_matmul_tune,
    .shape_bound = cl_matmul_shape_bound,
    .own_choice = cl_matmul_own_choice,
    .prepare = cl_matmul_prepare,
    .upload = cg_cl_matmul_upload,
    .enqueue = cg_cl_matmul_enqueue,
    .finish = cg_cl_matmul_finish,
    .download = cg_cl_matmul_download,
    .release = cg_cl_matmul_release,
};
