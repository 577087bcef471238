/* The pipelined matmul kernel's parameters: a default chosen for the device and the shape,
 * --kernel-param overrides, and smaller parameters (a fallback) where the device cannot take the
 * default: too many work-items per group, or too much local memory. */
#include "backends/cl/matmul_pipelined.h"

#include <limits.h>
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
 * 8x8, 144, it ran 30% slower). Its weight is 40.8, not its rate at 4096 (40): at 39 sizes
 * from 1057 to 3021 on an H100 its full waves ran as fast as the 128x64 block's (median 40.3
 * TFLOP/s each), and at 40 the model kept 128x64 blocks in seven waves at n = 2561 to 2688
 * (32.3 to 36.2 TFLOP/s) over 96x96 blocks in six (36.7 to 40.4), and 32x32 blocks at 449 to
 * 458 over 96x96 in 5 parts: 1.07 to 1.16 times faster at the 22 of those sizes measured. At 41
 * it would also take 96x96 blocks at 3841 to 3936, where they ran 0.98 to 1.00 times as fast
 * (bench/RESULTS.md, 2026-12-07). The 32x32 block's rate was not measured at n=4096: its weight
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
    {{96, 96, 16, 6, 6, 2, 1}, 40.8},  {{64, 64, 16, 4, 4, 4, 1}, 30.0},
    {{32, 32, 32, 4, 4, 4, 1}, 26.0},
};
enum { GPU_BLOCKS = sizeof gpu_blocks / sizeof gpu_blocks[0], CPU_BLOCK = 3 };

static long waves(const pipe_config *c, const cg_matmul_shape *s, long units) {
  return (groups(c, s) + units - 1) / units;
}

/* The split of a product's tail along k. Where a product's blocks fill its last wave only in
 * part, the compute units left idle wait a whole wave: at n=1057, 96x96 blocks make 144
 * work-groups for an H100's 132 compute units, and none of the five blocks above ran faster than
 * 19.2 TFLOP/s there, against 32.5 at n=1056 (bench/RESULTS.md, 2026-12-07). The blocks past the
 * last whole wave (the tail) can instead each be split along k into parts of k_chunk (a multiple
 * of KWG), run by more work-groups after the whole blocks, whose partial blocks matmul_split_sum
 * then adds into C (the kernel built with -DSPLIT_TAIL). The model's time of the tail, in waves
 * of blocks that take all of k: the parts' waves times their share of k, each part paying
 * SPLIT_START_K of k more for its first slice's load and its store, and SPLIT_COST of a wave for
 * the second launch and the parts' round trip through global memory.
 * The default splits only where the model's time with the split is SPLIT_GAIN times shorter than
 * the best block's without, into no more parts than one wave holds, and never 128x128 blocks:
 * on an H100 (bench/RESULTS.md, 2026-12-07) the kernel built with the option ran its whole
 * blocks 5 to 11% slower, the splits of 128x128 blocks lost at every size measured (1536: 39.6
 * TFLOP/s unsplit, 20.7 split), 96x96 blocks in 7 parts (259 for 132 compute units) lost
 * (1232: 26.0 to 23.0) where 3 parts (111) won (1248: 26.9 to 34.3), the splits measured whose
 * model gain was below 1.10 lost at 2049 (1.09: 35.1 to 31.6) and 1793 (1.04) though one won
 * at 2305 (1.06), and every split measured at a gain of 1.10 or more won, 1.08 to 2.1 times
 * (2881 at 1.11: 37.3 to 40.4; 1057: 17.0 to 25.8; 1072: 13.2 to 28.0; 777x1333x555: 18.0 to
 * 20.4). */
enum { MAX_SPLITS = 16, SPLIT_START_K = 32, SPLITS_LIMIT = 64 };
#define SPLIT_COST 0.05
#define SPLIT_GAIN 1.10

typedef struct tail_split {
  long whole, tail; /* blocks that take all of k, and the blocks split after them (0: none) */
  int splits, k_chunk;
} tail_split;

/* No split: every block takes all of k. */
static tail_split no_split(const pipe_config *c, const cg_matmul_shape *s) {
  return (tail_split){groups(c, s), 0, 1, s->k};
}

/* The split of the tail into at most `asked` parts of k_chunk; none where the blocks fill their
 * waves or k is too short for two slices' parts. The tail: the blocks past the last whole wave,
 * or the last `tail_asked` blocks where that is above 0. */
static tail_split split_of(const pipe_config *c, const cg_matmul_shape *s, long units, int asked,
                           long tail_asked) {
  const long blocks = groups(c, s);
  long tail = units > 0 ? blocks % units : 0;
  if (tail_asked > 0) tail = tail_asked < blocks ? tail_asked : blocks;
  const tail_split none = no_split(c, s);
  if (asked <= 1 || tail == 0) return none;
  const int kwg = c->v[P_KWG];
  const int chunk = ((s->k + asked - 1) / asked + kwg - 1) / kwg * kwg;
  const int splits = (s->k + chunk - 1) / chunk;
  if (splits <= 1) return none;
  return (tail_split){blocks - tail, tail, splits, chunk};
}

static double split_waves(const tail_split *t, const cg_matmul_shape *s, long units) {
  const double whole = (double)((t->whole + units - 1) / units);
  if (t->tail == 0) return whole;
  const double part_waves = (double)((t->tail * t->splits + units - 1) / units);
  return whole + part_waves * (t->k_chunk + SPLIT_START_K) / (s->k + SPLIT_START_K) + SPLIT_COST;
}

/* The share of the work-groups' slots in the model's waves of blocks c split as t that hold
 * elements of C: 1 when the blocks tile C exactly in whole waves, unsplit. */
static double wave_efficiency(const pipe_config *c, const tail_split *t, const cg_matmul_shape *s,
                              long units) {
  const double slots = split_waves(t, s, units) * (double)units * c->v[P_MWG] * c->v[P_NWG];
  return (double)s->m * (double)s->n / slots;
}

/* A tuned SPLITS (clgauge tune) for blocks c at shape s: the tail split into `splits` parts
 * where the shape leaves a tail and the model does not put the split behind none; unsplit where
 * it leaves none or `splits` is 1. A size class holds shapes whose tails take any share of a
 * wave, and parts tuned for a few blocks could take longer than the wave they replace on a
 * nearly full one: there *held is false and the caller runs its default split. */
static tail_split tuned_split(const pipe_config *c, const cg_matmul_shape *s, long units,
                              int splits, bool *held) {
  const tail_split none = no_split(c, s), t = split_of(c, s, units, splits, 0);
  *held = t.tail == 0 || split_waves(&t, s, units) <= split_waves(&none, s, units);
  return *held ? t : none;
}

int cg_cl_pipelined_tuned_splits(const cg_device_info *info, const cg_matmul_shape *shape,
                                 const int values[CG_CL_PIPELINED_NPARAMS], int splits) {
  pipe_config c;
  memcpy(c.v, values, sizeof c.v);
  bool held = false;
  const tail_split t = tuned_split(&c, shape, (long)cg_device_units(info), splits, &held);
  return held ? t.splits : 0;
}

/* The tail's split of blocks c by where SPLITS came from (`origin`): as --kernel-param SPLITS
 * and TAIL ask (override), as tuned (tuned_split; unsplit where c does not hold it), else the
 * model's own split for its own block `own`, or none for another block. */
static tail_split split_for(const pipe_config *c, const pipe_config *own,
                            const tail_split *own_split, const cg_matmul_shape *s, long units,
                            cg_origin origin, int asked, long tail_asked) {
  bool held;
  if (origin == CG_ORIGIN_OVERRIDE) return split_of(c, s, units, asked, tail_asked);
  if (origin == CG_ORIGIN_TUNED) return tuned_split(c, s, units, asked, &held);
  return memcmp(c->v, own->v, sizeof c->v) == 0 ? *own_split : no_split(c, s);
}

/* Of the splits into up to MAX_SPLITS parts whose parts fit the one wave they replace, the one
 * with the least model time, or none. */
static tail_split best_split(const pipe_config *c, const cg_matmul_shape *s, long units) {
  tail_split best = no_split(c, s);
  double best_waves = INFINITY;
  for (int n = 2; n <= MAX_SPLITS; ++n) {
    const tail_split t = split_of(c, s, units, n, 0);
    const double w = split_waves(&t, s, units);
    if (t.tail > 0 && t.tail * t.splits <= units && w < best_waves) {
      best = t;
      best_waves = w;
    }
  }
  return best;
}

/* The default block, and with `split_tail` its split (none on a CPU device, or where the model
 * does not gain enough by one). */
static void choose_default(const cg_device_info *info, const cg_matmul_shape *s, bool split_tail,
                           pipe_config *c, tail_split *split) {
  for (int i = 0; i < P_COUNT; ++i) c->origin[i] = CG_ORIGIN_DEFAULT;
  int best = CPU_BLOCK, best_split_block = -1;
  tail_split chosen = {0}, t;
  if (!cg_device_is_cpu(info)) {
    const long units = (long)cg_device_units(info);
    double best_cost = INFINITY, best_split_cost = INFINITY;
    for (int b = 0; b < GPU_BLOCKS; ++b) {
      memcpy(c->v, gpu_blocks[b].v, sizeof c->v);
      const double area = (double)c->v[P_MWG] * c->v[P_NWG];
      const double cost = (double)waves(c, s, units) * area / gpu_blocks[b].rate;
      if (cost < best_cost) {
        best_cost = cost;
        best = b;
      }
      if (!split_tail || area >= 128 * 128 || (t = best_split(c, s, units)).tail == 0) continue;
      const double split_cost = split_waves(&t, s, units) * area / gpu_blocks[b].rate;
      if (split_cost < best_split_cost) {
        best_split_cost = split_cost;
        best_split_block = b;
        chosen = t;
      }
    }
    if (best_split_block >= 0 && best_split_cost * SPLIT_GAIN <= best_cost)
      best = best_split_block;
    else
      best_split_block = -1;
  }
  memcpy(c->v, gpu_blocks[best].v, sizeof c->v);
  *split = best_split_block >= 0 ? chosen : no_split(c, s);
}

void cg_cl_pipelined_default(const cg_device_info *info, const cg_matmul_shape *shape,
                             bool split_tail, int values[CG_CL_PIPELINED_NPARAMS], int *splits) {
  pipe_config c;
  tail_split t;
  choose_default(info, shape, split_tail, &c, &t);
  memcpy(values, c.v, sizeof c.v);
  if (splits) *splits = t.splits;
}

void cg_cl_pipelined_own_choice(const cg_device_info *info, const cg_matmul_shape *shape,
                                cg_kernel_overrides *out) {
  int v[CG_CL_PIPELINED_NPARAMS], splits = 1;
  cg_cl_pipelined_default(info, shape, true, v, &splits);
  cg_error ignored = {0};
  for (int i = 0; i < P_COUNT; ++i)
    cg_kernel_overrides_add(out, cg_cl_pipelined_params[i], v[i], CG_ORIGIN_DEFAULT, &ignored);
  cg_kernel_overrides_add(out, "SPLITS", splits, CG_ORIGIN_DEFAULT, &ignored);
}

/* A tuned setting serves a size class (tuning.h), whose shapes may fall into waves differently:
 * n=1024 and n=1025 share one, and the 128x64 block tuned at 1024 takes two waves at 1025. A
 * tuned block that would fill its waves less than this share of the default's is not used. */
#define TUNED_WAVE_SHARE 0.85

/* Whether blocks c, their tail split as it would run (split_for: as --kernel-param SPLITS asks,
 * as tuned, or as the model splits it), fill at least TUNED_WAVE_SHARE of the share of their
 * waves that the default `own` fills, split as it would run in their place (as --kernel-param
 * SPLITS asks, else as own_split); *share and *own_share: those shares. */
static bool fills_waves(const pipe_config *c, const pipe_config *own, const tail_split *own_split,
                        const cg_matmul_shape *s, long units, cg_origin split_origin, int asked,
                        long tail_asked, double *share, double *own_share) {
  const tail_split split = split_for(c, own, own_split, s, units, split_origin, asked, tail_asked),
                   own_runs = split_origin == CG_ORIGIN_OVERRIDE
                                  ? split_of(own, s, units, asked, tail_asked)
                                  : *own_split;
  *share = wave_efficiency(c, &split, s, units);
  *own_share = wave_efficiency(own, &own_runs, s, units);
  return *share >= TUNED_WAVE_SHARE * *own_share;
}

bool cg_cl_pipelined_fills_waves(const cg_device_info *info, const cg_matmul_shape *shape,
                                 const int values[CG_CL_PIPELINED_NPARAMS], cg_origin split_origin,
                                 int splits, int tail) {
  pipe_config c, own;
  tail_split own_split;
  choose_default(info, shape, true, &own, &own_split);
  memcpy(c.v, values, sizeof c.v);
  const long units = (long)cg_device_units(info);
  bool held = true;
  if (split_origin == CG_ORIGIN_TUNED) tuned_split(&c, shape, units, splits, &held);
  double share, own_share;
  return cg_device_is_cpu(info) ||
         fills_waves(&c, &own, &own_split, shape, units, held ? split_origin : CG_ORIGIN_DEFAULT,
                     splits, tail, &share, &own_share);
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

/* The kernel's arguments after C (whole, splits, k_chunk, partial) for split t, with its parts'
 * buffer, the kernel that adds them (matmul_split_sum, set up whole) and the work-groups of both
 * kernels: one row of groups, the whole blocks then the tail's parts. */
static cg_rc set_split(cg_device_matmul *mm, const pipe_config *c, const tail_split *t,
                       const cg_cl_group_limits *dev, cg_error *err) {
  cg_rc rc = CG_OK;
  cl_int code = CL_SUCCESS;
  const cg_device_info *info = cg_device_get_info(mm->dev);
  const cl_int whole = (cl_int)t->whole, splits = t->splits, chunk = t->k_chunk;
  CG_CL(clSetKernelArg, (mm->kernel, 6, sizeof whole, &whole));
  CG_CL(clSetKernelArg, (mm->kernel, 7, sizeof splits, &splits));
  CG_CL(clSetKernelArg, (mm->kernel, 8, sizeof chunk, &chunk));
  const size_t area = (size_t)c->v[P_MWG] * (size_t)c->v[P_NWG];
  const size_t parts = (size_t)t->tail * (size_t)t->splits;
  /* the kernels index the parts with int (only --kernel-param SPLITS and TAIL reach this) */
  CG_CHECK(parts * area <= (size_t)INT_MAX, CG_BAD_INPUT,
           "--kernel-param SPLITS and TAIL: %d parts of each of %ld blocks, %zu parts of %zu "
           "floats, are more than the kernel can index",
           t->splits, t->tail, parts, area);
  CG_TRY(cg_cl_buffer(mm->dev, "the split blocks' parts", parts * area * sizeof(float),
                      CL_MEM_READ_WRITE, &mm->partial, err));
  CG_CL(clSetKernelArg, (mm->kernel, 9, sizeof(cl_mem), &mm->partial));
  mm->sum = clCreateKernel(mm->program, "matmul_split_sum", &code);
  CG_CL_CHECK(clCreateKernel, code);
  const cl_int M = mm->shape.m, N = mm->shape.n, tail = (cl_int)t->tail;
  CG_CL(clSetKernelArg, (mm->sum, 0, sizeof M, &M));
  CG_CL(clSetKernelArg, (mm->sum, 1, sizeof N, &N));
  CG_CL(clSetKernelArg, (mm->sum, 2, sizeof whole, &whole));
  CG_CL(clSetKernelArg, (mm->sum, 3, sizeof tail, &tail));
  CG_CL(clSetKernelArg, (mm->sum, 4, sizeof splits, &splits));
  CG_CL(clSetKernelArg, (mm->sum, 5, sizeof(cl_mem), &mm->partial));
  CG_CL(clSetKernelArg, (mm->sum, 6, sizeof(cl_mem), &mm->c));
  cg_cl_group_limits sum_limits = *dev;
  uint64_t used = 0;
  CG_TRY(cg_cl_kernel_limits(info, mm->sum, &sum_limits, &used, err));
  mm->sum_local = sum_limits.items < 64 ? sum_limits.items : 64;
  mm->sum_global = (t->tail * area + mm->sum_local - 1) / mm->sum_local * mm->sum_local;
  mm->global[0] = (size_t)(t->whole + t->tail * t->splits) * mm->local[0];
  mm->global[1] = mm->local[1];
  mm->launches = 2;
cleanup:
  return rc;
}

/* The default's values in place of c's tuned ones (and its split in place of a tuned SPLITS),
 * where a tuned setting does not serve this shape; c is then made to agree with the overrides
 * (the caller checks it is consistent). */
static void drop_tuned(pipe_config *c, const pipe_config *own, cg_origin *split_origin) {
  for (int i = 0; i < P_COUNT; ++i)
    if (c->origin[i] == CG_ORIGIN_TUNED) {
      c->v[i] = own->v[i];
      c->origin[i] = CG_ORIGIN_DEFAULT;
    }
  if (*split_origin == CG_ORIGIN_TUNED) *split_origin = CG_ORIGIN_DEFAULT;
  agree_with_overrides(c);
}

/* Build with the default (or overridden) parameters; where the device's limits, or the built
 * kernel's (CL_KERNEL_WORK_GROUP_SIZE, CL_KERNEL_LOCAL_MEM_SIZE), do not take them, shrink the
 * parameters that were not overridden and build again (origin fallback; every build counts as
 * compile time). Parameters that cannot fit with the overrides given are refused, naming them. */
cg_rc cg_cl_pipelined_build(const cg_backend_env *env, cg_device_matmul *mm, bool split_tail,
                            cg_kernel_config *config, cg_build_tally *tally, cg_error *err) {
  cg_rc rc = CG_OK;
  cl_int code = CL_SUCCESS;
  const cg_device_info *info = cg_device_get_info(mm->dev);
  cg_cl_group_limits dev;
  CG_TRY(cg_cl_device_limits(info, &dev, err));
  pipe_config c, dflt, own;
  tail_split own_split, split;
  choose_default(info, &mm->shape, split_tail, &own, &own_split);
  c = own;
  bool tuned = false, overridden_block = false;
  for (int i = 0; i < P_COUNT; ++i) {
    c.v[i] = cg_kernel_override(env->overrides, cg_cl_pipelined_params[i], c.v[i], &c.origin[i]);
    tuned |= c.origin[i] == CG_ORIGIN_TUNED;
    overridden_block |= (i == P_MWG || i == P_NWG) && c.origin[i] == CG_ORIGIN_OVERRIDE;
  }
  /* The tail's split: the model's for its own block, as --kernel-param SPLITS (and TAIL) ask,
   * or a tuned SPLITS where the model holds it at this shape (tuned_split) */
  cg_origin split_origin = CG_ORIGIN_DEFAULT, tail_origin = CG_ORIGIN_DEFAULT;
  const int splits_asked =
      split_tail ? cg_kernel_override(env->overrides, "SPLITS", 1, &split_origin) : 1;
  int tail_asked = split_tail ? cg_kernel_override(env->overrides, "TAIL", 0, &tail_origin) : 0;
  if (tail_origin == CG_ORIGIN_TUNED) { /* not searched: the tail is the shape's */
    tail_asked = 0;
    tail_origin = CG_ORIGIN_DEFAULT;
  }
  const bool split_given = split_origin == CG_ORIGIN_OVERRIDE;
  CG_CHECK(split_origin == CG_ORIGIN_DEFAULT ||
               (splits_asked >= 1 && splits_asked <= SPLITS_LIMIT),
           CG_BAD_INPUT, "%s SPLITS=%d: the parts each split block takes must be 1..%d",
           split_given ? "--kernel-param" : "tuned", splits_asked, (int)SPLITS_LIMIT);
  CG_CHECK(tail_origin != CG_ORIGIN_OVERRIDE || (split_given && tail_asked >= 1), CG_BAD_INPUT,
           "--kernel-param TAIL=%d: the blocks split must be at least 1, with SPLITS given",
           tail_asked);
  agree_with_overrides(&c);
  char given[160], why[200];
  overrides_text(&c, given, sizeof given);
  CG_CHECK(consistent(&c, why, sizeof why), CG_BAD_INPUT, "--kernel-param %s: %s", given, why);
  const long units = (long)cg_device_units(info);
  char line[256];
  if (split_origin == CG_ORIGIN_TUNED) {
    bool held = true;
    tuned_split(&c, &mm->shape, units, splits_asked, &held);
    tuned |= held;
    if (!held) {
      const long tail = groups(&c, &mm->shape) % units;
      snprintf(line, sizeof line,
               "the tuned SPLITS=%d would split %ld blocks of %dx%d into %ld parts at this shape, "
               "slower by the model than none: the default split ran",
               splits_asked, tail, c.v[P_MWG], c.v[P_NWG], tail * (long)splits_asked);
      cg_backend_warn(env, line);
      split_origin = CG_ORIGIN_DEFAULT;
    }
  }
  double tuned_share, own_share;
  if (tuned && !overridden_block && !cg_device_is_cpu(info) &&
      !fills_waves(&c, &own, &own_split, &mm->shape, units, split_origin, splits_asked,
                   tail_asked, &tuned_share, &own_share)) {
    snprintf(line, sizeof line,
             "the tuned block %dx%d%s would fill %.0f%% of its waves at this shape, the default "
             "%dx%d %.0f%%: the default parameters ran",
             c.v[P_MWG], c.v[P_NWG], split_origin == CG_ORIGIN_TUNED ? " and SPLITS" : "",
             100 * tuned_share, own.v[P_MWG], own.v[P_NWG], 100 * own_share);
    cg_backend_warn(env, line);
    drop_tuned(&c, &own, &split_origin);
    CG_CHECK(consistent(&c, why, sizeof why), CG_BAD_INPUT, "--kernel-param %s: %s", given, why);
  }
  dflt = c;
  cg_cl_group_limits lim = dev;
  for (;;) {
    while (!fits(&c, &lim))
      CG_CHECK(shrink(&c, &lim), given[0] ? CG_BAD_INPUT : CG_UNSUPPORTED,
               "%s%s%s%dx%d work-items and %llu bytes of local tiles do not fit this device (at "
               "most %zu work-items, %zu x %zu, and %llu bytes)",
               given[0] ? "--kernel-param " : "", given, given[0] ? ": " : "", threads_n(&c),
               threads_m(&c), (unsigned long long)tile_bytes(&c), lim.items, lim.dim[0],
               lim.dim[1], (unsigned long long)lim.local_mem);
    split = split_for(&c, &own, &own_split, &mm->shape, units, split_origin, splits_asked,
                      tail_asked);
    int len = 0;
    for (int i = 0; i < P_COUNT; ++i)
      len += snprintf(config->build_options + len, sizeof config->build_options - (size_t)len,
                      "%s-D%s=%d", i ? " " : "", cg_cl_pipelined_params[i], c.v[i]);
    if (split.tail > 0)
      snprintf(config->build_options + len, sizeof config->build_options - (size_t)len,
               " -DSPLIT_TAIL=1");
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
  if (split_tail) {
    /* an override or a tuned value that cannot split here (no tail, or k too short) ran as it
     * could */
    if (split_origin != CG_ORIGIN_DEFAULT && split.splits != splits_asked)
      split_origin = CG_ORIGIN_FALLBACK;
    if (tail_origin == CG_ORIGIN_OVERRIDE && split.tail != tail_asked)
      tail_origin = CG_ORIGIN_FALLBACK;
    cg_kernel_config_set(config, "SPLITS", split.splits, split_origin);
    cg_kernel_config_set(config, "TAIL", (int)split.tail, tail_origin);
  }
  if (split.tail > 0) CG_TRY(set_split(mm, &c, &split, &dev, err));
cleanup:
  return rc;
}
