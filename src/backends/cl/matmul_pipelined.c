/* The pipelined matmul kernel's parameters: a default chosen for the device and the shape,
 * --kernel-param overrides, and smaller parameters (a fallback) where the device cannot take the
 * default: too many work-items per group, or too much local memory. */
#include "backends/cl/matmul_pipelined.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

/* In the order of cl/matmul.cl's build options. */
enum { P_MWG, P_NWG, P_KWG, P_WM, P_WN, P_VW, P_PAD, P_COUNT };
const char *const cg_cl_pipelined_params[] = {"MWG", "NWG", "KWG", "WM", "WN", "VW", "PAD", NULL};

typedef struct pipe_config {
  int v[P_COUNT];
  cg_origin origin[P_COUNT];
} pipe_config;

static int threads_m(const pipe_config *c) { return c->v[P_MWG] / c->v[P_WM]; }
static int threads_n(const pipe_config *c) { return c->v[P_NWG] / c->v[P_WN]; }
static size_t threads(const pipe_config *c) { return (size_t)threads_m(c) * (size_t)threads_n(c); }

/* Bytes of the two double-buffered tiles: A's k-rows padded by PAD vectors. */
static uint64_t tile_bytes(const pipe_config *c) {
  const uint64_t a = (uint64_t)c->v[P_MWG] + (uint64_t)c->v[P_PAD] * (uint64_t)c->v[P_VW];
  return 2u * (uint64_t)c->v[P_KWG] * (a + (uint64_t)c->v[P_NWG]) * sizeof(float);
}

static long groups(const pipe_config *c, const cg_matmul_shape *s) {
  const long gm = (s->m + c->v[P_MWG] - 1) / c->v[P_MWG];
  const long gn = (s->n + c->v[P_NWG] - 1) / c->v[P_NWG];
  return gm * gn;
}

/* The default on a GPU: the largest block of C of this ladder that still gives at least 7/8 of
 * the compute units a work-group (at n=1000, 128x128 blocks would leave half of the H200's 132
 * idle; 128x64 fills them). The smaller blocks take 4x4 outputs per work-item, so that a
 * work-group keeps 256 or 64 work-items to hide latency with. Rungs 1, 2 and 4 are the best of
 * the candidates measured on the H200 at n=4096, n=1000 and 555^3, the sizes where they run
 * (bench/RESULTS.md); rung 3, between them, was not measured at a size that picks it (such as
 * 777x1333x555, where it gives 117 work-groups). On a CPU device, rung 3: a CPU driver runs a
 * work-group's items in loops on one core, and the accumulators of 8x8 per item would not stay
 * in its registers (measured on PoCL and rusticl: bench/RESULTS.md). */
static const int ladder[][P_COUNT] = {
    {128, 128, 8, 8, 8, 4, 1},
    {128, 64, 16, 8, 8, 4, 1},
    {64, 64, 16, 4, 4, 4, 1},
    {32, 32, 32, 4, 4, 4, 1},
};
enum { LADDER = sizeof ladder / sizeof ladder[0], CPU_RUNG = 2 };

static void choose_default(const cg_device_info *info, const cg_matmul_shape *s, pipe_config *c) {
  for (int i = 0; i < P_COUNT; ++i) c->origin[i] = CG_ORIGIN_DEFAULT;
  const long units = info->compute_units ? (long)info->compute_units : 1;
  int rung = 0;
  if (info->type & CL_DEVICE_TYPE_CPU)
    rung = CPU_RUNG;
  else
    for (; rung < LADDER - 1; ++rung) {
      memcpy(c->v, ladder[rung], sizeof c->v);
      if (groups(c, s) * 8 >= units * 7) break;
    }
  memcpy(c->v, ladder[rung], sizeof c->v);
}

/* "MWG=64,KWG=8": the overridden parameters, for messages. */
static void overrides_text(const pipe_config *c, char *out, size_t size) {
  size_t len = 0;
  out[0] = '\0';
  for (int i = 0; i < P_COUNT && len < size; ++i)
    if (c->origin[i] == CG_ORIGIN_OVERRIDE) {
      const int w = snprintf(out + len, size - len, "%s%s=%d", len ? "," : "",
                             cg_cl_pipelined_params[i], c->v[i]);
      len += w > 0 ? (size_t)w : 0;
    }
}

/* The values the kernel's source can take, whatever the device. */
static bool consistent(const pipe_config *c, char *why, size_t size) {
  static const int lo[P_COUNT] = {1, 1, 1, 1, 1, 1, 0};
  static const int hi[P_COUNT] = {256, 256, 64, 16, 16, 4, 8};
  for (int i = 0; i < P_COUNT; ++i)
    if (c->v[i] < lo[i] || c->v[i] > hi[i]) {
      snprintf(why, size, "%s must be %d..%d", cg_cl_pipelined_params[i], lo[i], hi[i]);
      return false;
    }
  const int *v = c->v;
  if (v[P_VW] == 3) {
    snprintf(why, size, "VW must be 1, 2 or 4");
    return false;
  }
  if (v[P_WM] % v[P_VW] || v[P_WN] % v[P_VW] || v[P_MWG] % v[P_WM] || v[P_NWG] % v[P_WN]) {
    snprintf(why, size,
             "WM and WN must be multiples of VW, MWG of WM and NWG of WN (here MWG=%d NWG=%d "
             "WM=%d WN=%d VW=%d)",
             v[P_MWG], v[P_NWG], v[P_WM], v[P_WN], v[P_VW]);
    return false;
  }
  return true;
}

static bool fits(const pipe_config *c, const cg_cl_group_limits *l) {
  return threads(c) <= l->items && (size_t)threads_n(c) <= l->dim[0] &&
         (size_t)threads_m(c) <= l->dim[1] && tile_bytes(c) <= l->local_mem;
}

static bool can_halve(const pipe_config *c, int p, int unit) {
  return c->origin[p] != CG_ORIGIN_OVERRIDE && c->v[p] % 2 == 0 && (c->v[p] / 2) % unit == 0;
}

/* One step towards the limits, changing no overridden parameter: fewer work-items (a block of C
 * half as tall or half as wide, the larger first) when there are too many, a shorter k-slice
 * when the tiles take too much local memory, then a smaller block. False when no step is left. */
static bool shrink(pipe_config *c, const cg_cl_group_limits *l) {
  int *v = c->v;
  const bool too_many = threads(c) > l->items || (size_t)threads_n(c) > l->dim[0] ||
                        (size_t)threads_m(c) > l->dim[1];
  if (!too_many && can_halve(c, P_KWG, 1)) {
    v[P_KWG] /= 2;
    return true;
  }
  const bool m_first = v[P_MWG] >= v[P_NWG] && (size_t)threads_n(c) <= l->dim[0];
  const int order[2] = {m_first ? P_MWG : P_NWG, m_first ? P_NWG : P_MWG};
  for (int i = 0; i < 2; ++i) {
    const int p = order[i];
    if (can_halve(c, p, v[p == P_MWG ? P_WM : P_WN])) {
      v[p] /= 2;
      return true;
    }
  }
  return false;
}

static void release_kernel(cg_device_matmul *mm) {
  if (mm->kernel) clReleaseKernel(mm->kernel);
  if (mm->program) clReleaseProgram(mm->program);
  mm->kernel = NULL;
  mm->program = NULL;
}

/* Build with the default (or overridden) parameters; where the device's limits, or the built
 * kernel's (CL_KERNEL_WORK_GROUP_SIZE, CL_KERNEL_LOCAL_MEM_SIZE), do not take them, shrink the
 * parameters that were not overridden and build again (origin fallback; every build counts as
 * compile time). Parameters that cannot fit with the overrides given are refused, naming them. */
cg_rc cg_cl_pipelined_build(const cg_backend_env *env, cg_device_matmul *mm,
                            cg_kernel_config *config, cg_build_tally *tally, cg_error *err) {
  cg_rc rc = CG_OK;
  cl_int code = CL_SUCCESS;
  const cg_device_info *info = cg_device_get_info(mm->dev);
  cg_cl_group_limits dev;
  CG_TRY(cg_cl_device_limits(info, &dev, err));
  pipe_config c, dflt;
  choose_default(info, &mm->shape, &c);
  for (int i = 0; i < P_COUNT; ++i)
    c.v[i] = cg_kernel_override(env->overrides, cg_cl_pipelined_params[i], c.v[i], &c.origin[i]);
  dflt = c;
  char given[160], why[200];
  overrides_text(&c, given, sizeof given);
  CG_CHECK(consistent(&c, why, sizeof why), CG_BAD_INPUT, "--kernel-param %s: %s", given, why);
  cg_cl_group_limits lim = dev;
  for (;;) {
    while (!fits(&c, &lim))
      CG_CHECK(shrink(&c, &lim), given[0] ? CG_BAD_INPUT : CG_UNSUPPORTED,
               "%s%s%s%dx%d work-items and %llu bytes of local tiles do not fit this device (at "
               "most %zu work-items, %zu x %zu, and %llu bytes)",
               given[0] ? "--kernel-param " : "", given, given[0] ? ": " : "", threads_n(&c),
               threads_m(&c), (unsigned long long)tile_bytes(&c), lim.items, lim.dim[0],
               lim.dim[1], (unsigned long long)lim.local_mem);
    int len = 0;
    for (int i = 0; i < P_COUNT; ++i)
      len += snprintf(config->build_options + len, sizeof config->build_options - (size_t)len,
                      "%s-D%s=%d", i ? " " : "", cg_cl_pipelined_params[i], c.v[i]);
    CG_TRY(cg_backend_build(env, "matmul.cl", config->build_options, &mm->program, tally, err));
    mm->kernel = clCreateKernel(mm->program, "matmul_pipelined", &code);
    CG_CL_CHECK(clCreateKernel, code);
    cg_cl_group_limits built = dev;
    uint64_t used = 0;
    CG_TRY(cg_cl_kernel_limits(info, mm->kernel, &built, &used, err));
    if (threads(&c) <= built.items && used <= dev.local_mem) break;
    /* Shrink against the built kernel's limits: its work-items, and the local memory the driver
     * adds beside the tiles. Each pass shrinks, since the same parameters no longer fit. */
    release_kernel(mm);
    const uint64_t extra = used > tile_bytes(&c) ? used - tile_bytes(&c) : 0;
    lim.items = built.items < lim.items ? built.items : lim.items;
    lim.local_mem = dev.local_mem > extra ? dev.local_mem - extra : 0;
  }
  for (int i = 0; i < P_COUNT; ++i) {
    const bool changed = c.v[i] != dflt.v[i];
    cg_kernel_config_set(config, cg_cl_pipelined_params[i], c.v[i],
                         changed ? CG_ORIGIN_FALLBACK : c.origin[i]);
  }
  mm->local[0] = (size_t)threads_n(&c);
  mm->local[1] = (size_t)threads_m(&c);
  mm->global[0] = (size_t)((mm->shape.n + c.v[P_NWG] - 1) / c.v[P_NWG]) * mm->local[0];
  mm->global[1] = (size_t)((mm->shape.m + c.v[P_MWG] - 1) / c.v[P_MWG]) * mm->local[1];
cleanup:
  return rc;
}
