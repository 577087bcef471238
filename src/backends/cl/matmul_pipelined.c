/* The pipelined matmul kernel's parameters: a default chosen for the device and the shape,
 * --kernel-param overrides, and smaller parameters (a fallback) where the device cannot take the
 * default: too many work-items per group, or too much local memory. */
#include "backends/cl/matmul_pipelined.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "clgauge/device.h"

/* In the order of cl/matmul.cl's build options. */
enum { P_MWG, P_NWG, P_KWG, P_WM, P_WN, P_VW, P_PAD, P_COUNT };
_Static_assert((int)P_COUNT == (int)CG_CL_PIPELINED_NPARAMS, "the header's count of parameters");
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

/* The default on a GPU: of these blocks of C, the one that takes the least time by a model of
 * wave quantisation. A device runs its work-groups in waves of one per compute unit, so a block
 * count just above a multiple of the compute units pays a whole wave for a few groups: at n=1025,
 * 128x64 blocks give 153 work-groups for the H200's 132 compute units, two waves, and ran at 17.4
 * TFLOP/s against 32.4 at n=1024; 96x96 blocks give 121, one wave, 28.7. The model's time is
 * waves * (the block's area) / (the block's rate), the rates being those the blocks reached at
 * n=4096 on the H200, where their waves are nearly full (bench/RESULTS.md, 2026-12-04); at all 15
 * shapes measured there, from 777x1333x555 to 4096^3, it picked the fastest of these four
 * blocks. The 96x96 block takes 6x6 outputs per work-item, so that it keeps 256 work-items (with
 * 8x8, 144, it ran 30% slower). The 32x32 block's rate was not measured at n=4096: its weight
 * is the one that reproduces its lead over 64x64 blocks at 555^3 (13.7 against 11.9 TFLOP/s on
 * the H200, 2026-12-03: three waves of small blocks against one of large). On a CPU device, the
 * 64x64 block: a CPU driver runs a work-group's items in loops on one core, and the accumulators
 * of 8x8 per item would not stay in its registers (measured on PoCL and rusticl:
 * bench/RESULTS.md). */
static const struct {
  int v[P_COUNT];
  double rate; /* TFLOP/s, relative weights only */
} gpu_blocks[] = {
    {{128, 128, 8, 8, 8, 4, 1}, 44.0}, {{128, 64, 16, 8, 8, 4, 1}, 42.0},
    {{96, 96, 16, 6, 6, 2, 1}, 40.0},  {{64, 64, 16, 4, 4, 4, 1}, 30.0},
    {{32, 32, 32, 4, 4, 4, 1}, 26.0},
};
enum { GPU_BLOCKS = sizeof gpu_blocks / sizeof gpu_blocks[0], CPU_BLOCK = 3 };

static long waves(const pipe_config *c, const cg_matmul_shape *s, long units) {
  return (groups(c, s) + units - 1) / units;
}

/* The share of the work-groups' slots in its waves that hold elements of C: 1 when the blocks
 * tile C exactly in whole waves. */
static double wave_efficiency(const pipe_config *c, const cg_matmul_shape *s, long units) {
  const double slots = (double)waves(c, s, units) * (double)units * c->v[P_MWG] * c->v[P_NWG];
  return (double)s->m * (double)s->n / slots;
}

static void choose_default(const cg_device_info *info, const cg_matmul_shape *s, pipe_config *c) {
  for (int i = 0; i < P_COUNT; ++i) c->origin[i] = CG_ORIGIN_DEFAULT;
  int best = CPU_BLOCK;
  if (!cg_device_is_cpu(info)) {
    const long units = (long)cg_device_units(info);
    double best_cost = INFINITY;
    for (int b = 0; b < GPU_BLOCKS; ++b) {
      memcpy(c->v, gpu_blocks[b].v, sizeof c->v);
      const double cost =
          (double)waves(c, s, units) * c->v[P_MWG] * c->v[P_NWG] / gpu_blocks[b].rate;
      if (cost < best_cost) {
        best_cost = cost;
        best = b;
      }
    }
  }
  memcpy(c->v, gpu_blocks[best].v, sizeof c->v);
}

void cg_cl_pipelined_default(const cg_device_info *info, const cg_matmul_shape *shape,
                             int values[CG_CL_PIPELINED_NPARAMS]) {
  pipe_config c;
  choose_default(info, shape, &c);
  memcpy(values, c.v, sizeof c.v);
}

/* A tuned setting serves a size class (tuning.h), whose shapes may fall into waves differently:
 * n=1024 and n=1025 share one, and the 128x64 block tuned at 1024 takes two waves at 1025. A
 * tuned block that would fill its waves less than this share of the default's is not used. */
#define TUNED_WAVE_SHARE 0.85

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

/* The parameters not given, made to agree with those given: a default per-item block halves
 * until it divides an overridden work-group block, and a default vector width until it divides
 * the per-item block (so that WM=2 alone runs, with float2 loads, where the default is float4);
 * each one changed is a fallback. What the overrides themselves contradict stays for
 * consistent() to refuse. */
static void agree_with_overrides(pipe_config *c) {
  int *v = c->v;
  static const int block[2] = {P_MWG, P_NWG}, item[2] = {P_WM, P_WN};
  for (int d = 0; d < 2; ++d)
    if (c->origin[item[d]] != CG_ORIGIN_OVERRIDE && v[block[d]] >= 1)
      while (v[item[d]] > 1 && v[block[d]] % v[item[d]]) {
        v[item[d]] /= 2;
        c->origin[item[d]] = CG_ORIGIN_FALLBACK;
      }
  if (c->origin[P_VW] != CG_ORIGIN_OVERRIDE && v[P_WM] >= 1 && v[P_WN] >= 1)
    while (v[P_VW] > 1 && (v[P_WM] % v[P_VW] || v[P_WN] % v[P_VW])) {
      v[P_VW] /= 2;
      c->origin[P_VW] = CG_ORIGIN_FALLBACK;
    }
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
  pipe_config c, dflt, own;
  choose_default(info, &mm->shape, &own);
  c = own;
  bool tuned = false, overridden_block = false;
  for (int i = 0; i < P_COUNT; ++i) {
    c.v[i] = cg_kernel_override(env->overrides, cg_cl_pipelined_params[i], c.v[i], &c.origin[i]);
    tuned |= c.origin[i] == CG_ORIGIN_TUNED;
    overridden_block |= (i == P_MWG || i == P_NWG) && c.origin[i] == CG_ORIGIN_OVERRIDE;
  }
  const long units = (long)cg_device_units(info);
  if (tuned && !overridden_block && !cg_device_is_cpu(info) &&
      wave_efficiency(&c, &mm->shape, units) <
          TUNED_WAVE_SHARE * wave_efficiency(&own, &mm->shape, units)) {
    char line[256];
    snprintf(line, sizeof line,
             "the tuned block %dx%d would fill %.0f%% of its waves at this shape, the default "
             "%dx%d %.0f%%: the default parameters ran",
             c.v[P_MWG], c.v[P_NWG], 100 * wave_efficiency(&c, &mm->shape, units),
             own.v[P_MWG], own.v[P_NWG], 100 * wave_efficiency(&own, &mm->shape, units));
    cg_backend_warn(env, line);
    for (int i = 0; i < P_COUNT; ++i)
      if (c.origin[i] == CG_ORIGIN_TUNED) {
        c.v[i] = own.v[i];
        c.origin[i] = CG_ORIGIN_DEFAULT;
      }
  }
  agree_with_overrides(&c);
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
    lim.items = built.items < lim.items ? built.items : lim.items;
    lim.local_mem = cg_cl_local_for_arrays(dev.local_mem, tile_bytes(&c), used);
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
