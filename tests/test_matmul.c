/* Check suite of the matmul workload: every implementation and variant on every device, on fresh
 * random inputs of awkward shapes, against OpenBLAS; poisoned outputs; the records the engine
 * plans and fills, failures confined to one record; kernel configurations and --kernel-param
 * overrides; kernel directories and the binary cache; validation; the registry; the reference and
 * its error measure. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clgauge/backend.h"
#include "clgauge/device.h"
#include "clgauge/engine.h"
#include "clgauge/kernel_config.h"
#include "clgauge/loop_limit.h"
#include "clgauge/matmul.h"
#include "clgauge/random.h"
#include "clgauge/reference.h"
#include "clgauge/report.h"
#include "clgauge/workload.h"
#include "test_util.h"

typedef struct shape {
  int m, n, k;
} shape;

/* (m, n, k): degenerate, odd, prime, one-wide, tall and skinny, and a power of two. None but the
 * last is a multiple of a tile edge (16) or of regblock's block (64). */
static const shape shapes[] = {{1, 1, 1},     {17, 31, 7},  {2, 3, 5},    {65, 33, 129},
                               {100, 1, 100}, {1, 100, 37}, {257, 3, 19}, {128, 128, 128}};
enum { NSHAPES = sizeof shapes / sizeof shapes[0] };

/* Mirrors of cl/matmul.c's limits, which the records must respect. */
enum { CL_MAX_TS = 32, CL_REGBLOCK_BK = 16 };
/* The pipelined variant's parameters (src/backends/cl/matmul_pipelined.c), in its order, their
 * ranges, and its default on a CPU device. */
enum { PIPE_NPARAMS = 7 };
static const char *const pipe_names[PIPE_NPARAMS] = {"MWG", "NWG", "KWG", "WM", "WN", "VW", "PAD"};
static const int pipe_lo[PIPE_NPARAMS] = {1, 1, 1, 1, 1, 1, 0};
static const int pipe_hi[PIPE_NPARAMS] = {256, 256, 64, 16, 16, 4, 8};
static const int pipe_cpu_default[PIPE_NPARAMS] = {64, 64, 16, 4, 4, 4, 1};

/* ---- what each looped test runs: (implementation, variant, device) ---- */

typedef cg_test_combo combo;
static int combo_count(void) { return cg_test_combo_count("matmul", true); }
static combo combo_at(int index) { return cg_test_combo_at("matmul", index, true); }
#define combo_name cg_test_combo_name

static int device_count(void) {
  const int n = cg_test_device_count();
  return n > 0 ? n : 0;
}

static bool is_cl(const cg_backend *b) { return strcmp(b->name, "cl") == 0; }

/* The cl backend's variants; those that take TS (all but pipelined, which has its own
 * parameters). */
static int cl_variant_count(void) {
  const cg_impl *impl = cg_impl_find(cg_backend_find("cl"), "matmul");
  int n = 0;
  for (const char *const *v = impl ? impl->variants : NULL; v && *v; ++v) ++n;
  return n;
}
static bool takes_ts(const char *variant) { return strcmp(variant, "pipelined") != 0; }

/* The combos of the cl backend alone: its variants on every device. Counted without Check's
 * assertions, which cannot run while the suite is built. */
static int cl_combo_count(void) {
  const cg_impl *impl = cg_impl_find(cg_backend_find("cl"), "matmul");
  int n = 0;
  for (const char *const *v = impl ? impl->variants : NULL; v && *v; ++v) ++n;
  return n * device_count();
}
static combo cl_combo_at(int index) {
  for (int i = 0; i < combo_count(); ++i) {
    const combo c = combo_at(i);
    if (is_cl(c.backend) && index-- == 0) return c;
  }
  ck_abort_msg("internal: no cl combo %d", index);
  return combo_at(0);
}

/* ---- helpers ---- */

static float *random_matrix(cg_rng *rng, size_t n) {
  float *x = malloc((n ? n : 1) * sizeof *x);
  ck_assert_ptr_nonnull(x);
  cg_rng_fill_normal(rng, x, n);
  return x;
}

static float *filled(size_t n, float value) {
  float *x = malloc((n ? n : 1) * sizeof *x);
  ck_assert_ptr_nonnull(x);
  for (size_t i = 0; i < n; ++i) x[i] = value;
  return x;
}

/* Every element within the classical bound of two k-term fp32 dot products of the same operands:
 * |out - ref| <= 2 k eps sum_p |a_ip b_pj|. Catches a single wrong element, which a norm-wise
 * error over a large matrix could hide. Returns the index of the first bad element, or -1. */
static long first_bad_element(const float *out, const float *ref, const float *A, const float *B,
                              shape s) {
  for (int i = 0; i < s.m; ++i)
    for (int j = 0; j < s.n; ++j) {
      double mag = 0;
      for (int p = 0; p < s.k; ++p) mag += fabs((double)A[i * s.k + p] * B[p * s.n + j]);
      double bound = 2.0 * s.k * FLT_EPSILON * mag + 1e-30;
      double d = fabs((double)out[i * s.n + j] - ref[i * s.n + j]);
      if (!(d <= bound)) return (long)i * s.n + j;
    }
  return -1;
}

/* The device list, and a combo's device opened through its backend as the engine opens it for a
 * record (nothing is opened for a host backend). */
typedef struct opened {
  cg_device_list list;
  const cg_device_info *info; /* NULL on the host */
  void *device;
  const char *no_device_time;
} opened;

static void open_combo(const combo *c, opened *o) {
  memset(o, 0, sizeof *o);
  if (c->device < 0) {
    ck_assert_msg(!c->backend->open && !c->backend->close, "host backend %s opens a device",
                  c->backend->name);
    return;
  }
  o->info = cg_test_device_at(&o->list, c->device);
  ck_assert_msg(c->backend->open && c->backend->close, "%s cannot open a device",
                c->backend->name);
  cg_error err = {0};
  o->no_device_time = "not set";
  ck_assert_msg(c->backend->open(o->info, &o->device, &o->no_device_time, &err) == CG_OK,
                "%s: open %s: %s", c->backend->name, o->info->name, err.msg);
  ck_assert_ptr_nonnull(o->device);
  if (o->info->profiling)
    ck_assert_msg(o->no_device_time == NULL, "%s: profiling device, yet no device time: %s",
                  o->info->name, o->no_device_time);
  else
    ck_assert_msg(o->no_device_time && *o->no_device_time, "%s: no profiling and no reason",
                  o->info->name);
}

static void close_combo(const combo *c, opened *o) {
  if (o->device) c->backend->close(o->device);
  o->device = NULL;
  cg_device_list_free(&o->list);
}

/* The default edge rule of the cl kernels: the largest power of two, at most 16, whose square
 * fits in the device's work-group. */
static int default_edge(size_t max_work_group) {
  int ts = 16;
  while (ts > 1 && (size_t)(ts * ts) > max_work_group) ts /= 2;
  return ts;
}

static bool is_pow2(int v) { return v > 0 && (v & (v - 1)) == 0; }

static const cg_kernel_param *find_param(const cg_kernel_config *k, const char *name) {
  for (int i = 0; i < k->nparams; ++i)
    if (k->params[i].name && strcmp(k->params[i].name, name) == 0) return &k->params[i];
  return NULL;
}

/* Whether `options` has -D<name>=<value> as one whole option. */
static bool has_define(const char *options, const char *name, int value) {
  char want[64];
  snprintf(want, sizeof want, "-D%s=%d", name, value);
  const size_t len = strlen(want);
  for (const char *p = strstr(options, want); p; p = strstr(p + 1, want))
    if ((p == options || p[-1] == ' ') && (p[len] == '\0' || p[len] == ' ')) return true;
  return false;
}

/* The pipelined variant's configuration: its seven parameters and no TS, each within its range
 * and consistent (WM and WN multiples of VW, the block a multiple of them), the work-group and
 * the double-buffered tiles within the device's limits, the build options saying the same; then
 * the split of the last wave's blocks along k: SPLITS 1..64 parts of TAIL blocks, built with
 * -DSPLIT_TAIL exactly where blocks are split (SPLITS > 1 and TAIL > 0, or 1 and 0). On a CPU
 * device a default value is the CPU default (no split) and a fallback one smaller; an override
 * is checked by the caller. */
static void check_pipelined_config(const cg_device_info *info, const cg_kernel_config *k,
                                   const char *name) {
  ck_assert_msg(find_param(k, "TS") == NULL, "%s: TS listed for pipelined", name);
  ck_assert_int_eq(k->nparams, PIPE_NPARAMS + 2);
  int v[PIPE_NPARAMS];
  for (int i = 0; i < PIPE_NPARAMS; ++i) {
    const cg_kernel_param *p = find_param(k, pipe_names[i]);
    ck_assert_msg(p != NULL, "%s: %s missing (options '%s')", name, pipe_names[i],
                  k->build_options);
    v[i] = p->value;
    ck_assert_msg(v[i] >= pipe_lo[i] && v[i] <= pipe_hi[i], "%s: %s=%d outside %d..%d", name,
                  pipe_names[i], v[i], pipe_lo[i], pipe_hi[i]);
    ck_assert_msg(has_define(k->build_options, pipe_names[i], v[i]),
                  "%s: build options '%s' lack -D%s=%d", name, k->build_options, pipe_names[i],
                  v[i]);
    if ((info->type & CL_DEVICE_TYPE_CPU) && p->origin == CG_ORIGIN_DEFAULT)
      ck_assert_msg(v[i] == pipe_cpu_default[i], "%s: default %s=%d on a CPU, expected %d", name,
                    pipe_names[i], v[i], pipe_cpu_default[i]);
    if ((info->type & CL_DEVICE_TYPE_CPU) && p->origin == CG_ORIGIN_FALLBACK)
      ck_assert_msg(v[i] < pipe_cpu_default[i], "%s: fallback %s=%d, default %d", name,
                    pipe_names[i], v[i], pipe_cpu_default[i]);
  }
  const cg_kernel_param *splits = find_param(k, "SPLITS"), *tail = find_param(k, "TAIL");
  ck_assert_msg(splits && tail, "%s: SPLITS or TAIL missing", name);
  const bool split = splits->value > 1;
  ck_assert_msg(splits->value >= 1 && splits->value <= 64 && tail->value >= 0 &&
                    split == (tail->value > 0),
                "%s: SPLITS=%d TAIL=%d", name, splits->value, tail->value);
  ck_assert_msg(has_define(k->build_options, "SPLIT_TAIL", 1) == split,
                "%s: SPLITS=%d with build options '%s'", name, splits->value, k->build_options);
  if ((info->type & CL_DEVICE_TYPE_CPU) && splits->origin == CG_ORIGIN_DEFAULT)
    ck_assert_msg(!split, "%s: the default split %d blocks in %d on a CPU", name, tail->value,
                  splits->value);
  const int mwg = v[0], nwg = v[1], kwg = v[2], wm = v[3], wn = v[4], vw = v[5], pad = v[6];
  ck_assert_msg(vw != 3 && wm % vw == 0 && wn % vw == 0 && mwg % wm == 0 && nwg % wn == 0,
                "%s: inconsistent MWG=%d NWG=%d WM=%d WN=%d VW=%d", name, mwg, nwg, wm, wn, vw);
  const size_t items = (size_t)(mwg / wm) * (size_t)(nwg / wn);
  ck_assert_msg(items <= info->max_work_group, "%s: %zu work-items, the device allows %zu", name,
                items, info->max_work_group);
  const size_t local = 2u * (size_t)kwg * ((size_t)mwg + (size_t)pad * vw + (size_t)nwg) * 4;
  ck_assert_msg(local <= info->local_mem, "%s: %zu bytes of local tiles, the device has %llu",
                name, local, (unsigned long long)info->local_mem);
}

/* The kernel configuration an implementation reported: empty for libraries and the host; for
 * the cl variants TS within the device's limits (as overridden when override_ts > 0, else the
 * default rule or a smaller fallback), WPT 1 or 4, regblock's BK, and build options that say the
 * same. */
static void check_kernel_config(const cg_backend *b, const char *variant,
                                const cg_device_info *info, const cg_kernel_config *k,
                                int override_ts, const char *name) {
  if (!is_cl(b)) {
    ck_assert_msg(k->nparams == 0 && k->build_options[0] == '\0',
                  "%s: a kernel configuration (%d parameters, options '%s') where nothing is built",
                  name, k->nparams, k->build_options);
    return;
  }
  ck_assert_ptr_nonnull(info);
  for (int i = 0; i < k->nparams; ++i) {
    ck_assert_msg(k->params[i].name && *k->params[i].name, "%s: parameter %d unnamed", name, i);
    ck_assert_msg(strcmp(cg_origin_name(k->params[i].origin), "?") != 0,
                  "%s: %s has origin %d", name, k->params[i].name, (int)k->params[i].origin);
    for (int j = 0; j < i; ++j)
      ck_assert_msg(strcmp(k->params[j].name, k->params[i].name) != 0, "%s: %s listed twice",
                    name, k->params[i].name);
  }
  if (strcmp(variant, "pipelined") == 0) {
    check_pipelined_config(info, k, name);
    return;
  }
  const cg_kernel_param *ts = find_param(k, "TS"), *wpt = find_param(k, "WPT"),
                        *bk = find_param(k, "BK");
  ck_assert_msg(ts && wpt, "%s: TS or WPT missing (options '%s')", name, k->build_options);
  const bool regblock = strcmp(variant, "regblock") == 0;
  ck_assert_msg(ts->value >= 1 && ts->value <= CL_MAX_TS &&
                    (size_t)ts->value * (size_t)ts->value <= info->max_work_group,
                "%s: TS %d outside 1..%d or over the work-group limit %zu", name, ts->value,
                (int)CL_MAX_TS, info->max_work_group);
  const int dflt = default_edge(info->max_work_group);
  if (override_ts > 0) {
    ck_assert_msg(ts->origin == CG_ORIGIN_OVERRIDE && ts->value == override_ts,
                  "%s: TS %d (%s), overridden to %d", name, ts->value,
                  cg_origin_name(ts->origin), override_ts);
  } else if (ts->origin == CG_ORIGIN_DEFAULT) {
    ck_assert_msg(ts->value == dflt, "%s: default TS %d, the rule gives %d", name, ts->value,
                  dflt);
  } else {
    ck_assert_msg(ts->origin == CG_ORIGIN_FALLBACK, "%s: TS origin %s without an override", name,
                  cg_origin_name(ts->origin));
    ck_assert_msg(ts->value < dflt && is_pow2(ts->value), "%s: fallback TS %d, default %d", name,
                  ts->value, dflt);
  }
  ck_assert_msg(wpt->value == (regblock ? 4 : 1) && wpt->origin == CG_ORIGIN_DEFAULT,
                "%s: WPT %d (%s)", name, wpt->value, cg_origin_name(wpt->origin));
  if (regblock)
    ck_assert_msg(bk && bk->value == CL_REGBLOCK_BK && bk->origin == CG_ORIGIN_DEFAULT,
                  "%s: BK %d", name, bk ? bk->value : -1);
  ck_assert_msg(has_define(k->build_options, "TS", ts->value) &&
                    has_define(k->build_options, "WPT", wpt->value) &&
                    (!bk || has_define(k->build_options, "BK", bk->value)),
                "%s: build options '%s' disagree with TS %d, WPT %d", name, k->build_options,
                ts->value, wpt->value);
  /* The local tiles fit the device. */
  size_t local = 0;
  if (strcmp(variant, "tiled") == 0) local = 2u * ts->value * ts->value * sizeof(float);
  if (regblock) local = 2u * CL_REGBLOCK_BK * ts->value * wpt->value * sizeof(float);
  ck_assert_msg(local <= info->local_mem, "%s: %zu bytes of local memory, the device has %llu",
                name, local, (unsigned long long)info->local_mem);
}

static void check_compile(const cg_backend *b, const char *kind, double ms, const char *name) {
  ck_assert_ptr_nonnull(kind);
  const bool built = strcmp(kind, "source") == 0 || strcmp(kind, "cache") == 0 ||
                     strcmp(kind, "library") == 0;
  ck_assert_msg(built || strcmp(kind, "lazy") == 0 || strcmp(kind, "none") == 0,
                "%s: compile kind '%s'", name, kind);
  ck_assert_msg(built ? isfinite(ms) && ms >= 0 : isnan(ms), "%s: compile kind %s with %g ms",
                name, kind, ms);
  if (!b->needs_device) ck_assert_msg(strcmp(kind, "none") == 0, "%s: compiles on the host", name);
  if (is_cl(b)) ck_assert_msg(built, "%s: hand-written kernels not built (%s)", name, kind);
  /* CLBlast's GEMM program is built before the timed runs, by a call of its own */
  if (strcmp(b->name, "clblast") == 0)
    ck_assert_msg(strcmp(kind, "library") == 0, "%s: compile kind %s", name, kind);
}

/* ---- every implementation and variant on every device ---- */

START_TEST(test_backend_ops) {
  const combo c = combo_at(_i);
  const cg_impl *impl = c.impl;
  ck_assert_ptr_eq(cg_impl_find(c.backend, "matmul"), impl);
  opened o;
  open_combo(&c, &o);
  cg_error err = {0};
  char name[400];
  combo_name(&c, &o.list, name, sizeof name);
  const cg_backend_env env = {.device = o.device};
  const uint64_t seed = cg_test_seed();
  cg_rng rng;
  cg_rng_seed(&rng, seed);

  for (int si = 0; si < NSHAPES; ++si) {
    const shape s = shapes[si];
    const cg_matmul_shape ms = {s.m, s.n, s.k};
    const size_t na = (size_t)s.m * s.k, nb = (size_t)s.k * s.n, nc = (size_t)s.m * s.n;
    void *state = NULL;
    /* As the engine starts it. */
    cg_prepared prepared = {.compile_ms = NAN, .compile_kind = "none"};
    cg_rc rc = impl->prepare(&env, c.variant, NULL, &ms, &state, &prepared, &err);
    ck_assert_msg(rc == CG_OK, "%s, %dx%dx%d: prepare: rc %d: %s", name, s.m, s.n, s.k, rc,
                  err.msg);
    ck_assert_ptr_nonnull(state);
    check_compile(c.backend, prepared.compile_kind, prepared.compile_ms, name);
    check_kernel_config(c.backend, c.variant, o.info, &prepared.config, 0, name);

    /* C is poisoned before anything runs: unwritten elements read back as NaN. */
    float *C = filled(nc, 1234.5f);
    ck_assert_msg(impl->download(state, &(cg_matmul_outputs){C}, &err) == CG_OK,
                  "%s: download: %s", name, err.msg);
    for (size_t e = 0; e < nc; ++e)
      ck_assert_msg(isnan(C[e]), "%s, %dx%dx%d: C[%zu] = %g before any product: not poisoned",
                    name, s.m, s.n, s.k, e, C[e]);

    /* Two rounds of fresh inputs; the second runs 3 products, which must overwrite C, not
     * accumulate, and must not show the first round's result. */
    for (int round = 0; round < 2; ++round) {
      float *A = random_matrix(&rng, na), *B = random_matrix(&rng, nb), *ref = filled(nc, 0);
      cg_ref_sgemm(s.m, s.n, s.k, A, B, ref);
      ck_assert_msg(impl->upload(state, &(cg_matmul_inputs){A, B}, &err) == CG_OK,
                    "%s: upload: %s", name, err.msg);
      const int products = round == 0 ? 1 : 3;
      const cg_run run = {round, products, round == 0 ? CG_RUN_FIRST : CG_RUN_STEADY, NULL};
      ck_assert_msg(impl->enqueue(state, &run, &err) == CG_OK, "%s, %dx%dx%d: enqueue: %s", name,
                    s.m, s.n, s.k, err.msg);
      cg_run_result res;
      cg_run_result_init(&res);
      ck_assert_msg(impl->finish(state, &res, &err) == CG_OK, "%s: finish: %s", name, err.msg);
      /* A profiling device gives the run's time, or says why not (rusticl stamps tiny runs
       * with placeholders). */
      if (c.device >= 0 && o.info->profiling)
        ck_assert_msg(res.device_why ? *res.device_why && isnan(res.device_ms)
                                     : isfinite(res.device_ms) && res.device_ms >= 0,
                      "%s: device time %g ms (%s)", name, res.device_ms,
                      res.device_why ? res.device_why : "no reason");
      else if (c.device >= 0)
        ck_assert_msg(res.device_why && isnan(res.device_ms), "%s: device time %g unprofiled",
                      name, res.device_ms);
      else
        ck_assert_msg(isnan(res.device_ms), "%s: device time %g on the host", name,
                      res.device_ms);
      if (is_cl(c.backend))
        ck_assert_msg(res.launches == 1, "%s: %d launches per product", name, res.launches);
      else
        ck_assert_msg(res.launches == -1 || res.launches >= 1, "%s: %d launches", name,
                      res.launches);
      /* Nothing of the training and batched workloads. */
      ck_assert_msg(isnan(res.loss) && res.nsplit == 0 && isnan(res.batch_upload_ms) &&
                        isnan(res.batch_compute_ms) && isnan(res.hidden_share),
                    "%s: a loss, split or batch time from a matmul run", name);

      for (size_t e = 0; e < nc; ++e) C[e] = 1234.5f;
      ck_assert_msg(impl->download(state, &(cg_matmul_outputs){C}, &err) == CG_OK,
                    "%s: download: %s", name, err.msg);
      const double rel = cg_rel_error(C, ref, nc), tol = cg_matmul_tolerance(s.k);
      ck_assert_msg(rel <= tol,
                    "%s, %dx%dx%d, round %d: relative error %.3g over tolerance %.3g "
                    "(seed %llu; C[0] = %g, reference %g)",
                    name, s.m, s.n, s.k, round, rel, tol, (unsigned long long)seed, C[0], ref[0]);
      long bad = first_bad_element(C, ref, A, B, s);
      ck_assert_msg(bad < 0, "%s, %dx%dx%d, round %d: element %ld is %g, reference %g (seed %llu)",
                    name, s.m, s.n, s.k, round, bad, bad < 0 ? 0 : C[bad], bad < 0 ? 0 : ref[bad],
                    (unsigned long long)seed);
      free(A);
      free(B);
      free(ref);
    }
    free(C);
    impl->release(state);
  }
  close_combo(&c, &o);
}
END_TEST

/* ---- the workload: records through the engine ---- */

typedef struct progress_log {
  int calls, starts, last_index, last_total, last_runs;
  int starts_at[16]; /* the record index of each start call */
} progress_log;

static progress_log new_log(void) { return (progress_log){0, 0, -1, -1, -1, {0}}; }

/* Called before each record starts (no runs yet) and after each of its timed runs. */
static void on_progress(void *ctx, int index, int total, const cg_record *rec) {
  progress_log *log = ctx;
  log->calls++;
  if (rec->nruns == 0 && log->starts < 16) log->starts_at[log->starts] = index;
  log->starts += rec->nruns == 0;
  log->last_index = index;
  log->last_total = total;
  log->last_runs = rec->nruns;
}

static void set_param(cg_job *job, const char *name, double value) {
  cg_error err = {0};
  ck_assert_msg(cg_params_set(&job->params, name, value, &err) == CG_OK, "%s = %g: %s", name,
                value, err.msg);
}

/* A matmul job; n is set first, since it sets m and k too. */
static void matmul_job(cg_job *job, shape s, int loops, int runs, int warmup) {
  cg_job_init(job, &cg_workload_matmul);
  set_param(job, "n", s.n);
  set_param(job, "m", s.m);
  set_param(job, "k", s.k);
  set_param(job, "loops", loops);
  set_param(job, "runs", runs);
  set_param(job, "warmup", warmup);
}

static void run_job(const cg_job *job, const cg_selection *sel, const cg_device_info *info,
                    cg_report *report, progress_log *log) {
  cg_error err = {0};
  ck_assert_msg(cg_engine_validate(job, sel, info, &err) == CG_OK, "validate: %s", err.msg);
  cg_report_init(report, 0, NULL);
  ck_assert_msg(cg_engine_run(job, sel, info, report, on_progress, log, &err) == CG_OK, "run: %s",
                err.msg);
}

/* What every record has, whatever its status: the job's identity and parameters, the work per
 * iteration, and the fields that matmul leaves empty. */
static void check_record_frame(const cg_record *r, const cg_job *job, const cg_selection *sel,
                               const char *name) {
  const shape s = {(int)cg_params_get(&job->params, "m"), (int)cg_params_get(&job->params, "n"),
                   (int)cg_params_get(&job->params, "k")};
  const cg_backend *b = cg_backend_find(r->backend);
  ck_assert_msg(b != NULL, "%s: unknown backend '%s'", name, r->backend);
  ck_assert_str_eq(r->workload, "matmul");
  ck_assert_msg(r->mode[0] == '\0', "%s: mode '%s' in a workload without modes", name, r->mode);
  ck_assert_msg(r->group[0] == '\0', "%s: group '%s' outside a sweep", name, r->group);
  ck_assert_msg(isnan(r->sweep_value), "%s: sweep value %g outside a sweep", name,
                r->sweep_value);
  ck_assert_msg(r->reference == b->is_reference, "%s: reference flag %d", name, r->reference);
  ck_assert_msg(r->host_backend == !b->needs_device, "%s: host flag %d", name, r->host_backend);
  ck_assert_double_eq(cg_record_param(r, "m"), s.m);
  ck_assert_double_eq(cg_record_param(r, "n"), s.n);
  ck_assert_double_eq(cg_record_param(r, "k"), s.k);
  ck_assert_double_eq(cg_record_param(r, "loops"), cg_params_get(&job->params, "loops"));
  ck_assert_double_eq(cg_record_param(r, "runs"), cg_params_get(&job->params, "runs"));
  ck_assert_double_eq(cg_record_param(r, "warmup"), cg_params_get(&job->params, "warmup"));
  ck_assert_double_eq(cg_record_param(r, "seed"), (double)sel->seed);
  ck_assert_int_eq(r->iters_per_run, (int)cg_params_get(&job->params, "loops"));
  ck_assert_double_eq(r->flops_per_iter, 2.0 * s.m * s.n * s.k);
  ck_assert_double_eq(r->bytes_per_iter, 4.0 * ((double)s.m * s.k + (double)s.k * s.n +
                                                (double)s.m * s.n));
  ck_assert_msg(r->nlosses == 0 && !r->losses, "%s: losses in a matmul record", name);
}

/* An ok record: every phase measured, the runs consistent, verified (or adopted as the
 * reference). */
static void check_ok_record(const cg_record *r, const cg_job *job, const cg_selection *sel,
                            const cg_device_info *info, int override_ts, const char *name) {
  const cg_backend *b = cg_backend_find(r->backend);
  const int runs = (int)cg_params_get(&job->params, "runs");
  check_record_frame(r, job, sel, name);
  ck_assert_msg(r->status == CG_STATUS_OK, "%s: status %s: %s (seed %llu)", name,
                cg_status_name(r->status), r->reason, (unsigned long long)sel->seed);
  ck_assert_int_eq(r->nruns, runs);
  ck_assert_int_eq(r->planned_runs, runs);
  ck_assert_int_eq(r->steady_complete.n, runs - 1);
  ck_assert_msg(isfinite(r->upload_ms) && isfinite(r->download_ms) &&
                    isfinite(r->first.complete_ms),
                "%s: a phase of an ok record is not measured", name);
  if (runs > 1)
    ck_assert_msg(isfinite(r->steady_complete.median) && isfinite(r->host_cpu_ms) &&
                      isfinite(r->host_wall_ms),
                  "%s: the steady runs are not measured", name);
  else
    ck_assert_msg(isnan(r->steady_complete.median) && isnan(r->host_cpu_ms) &&
                      isnan(r->host_wall_ms) && isnan(r->steady_device.median),
                  "%s: steady figures without steady runs", name);
  for (int i = 0; i < r->nruns; ++i) {
    ck_assert_msg(r->runs[i].enqueue_ms <= r->runs[i].complete_ms,
                  "%s: run %d enqueued in %g ms, completed in %g", name, i, r->runs[i].enqueue_ms,
                  r->runs[i].complete_ms);
    ck_assert_int_eq(r->runs[i].iters, r->iters_per_run);
  }
  ck_assert_double_eq(r->first.complete_ms, r->runs[0].complete_ms);
  if (isfinite(r->steady_device.median))
    ck_assert_msg(r->steady_device.median <= r->steady_complete.max + 1.0,
                  "%s: device %g ms, wall %g ms", name, r->steady_device.median,
                  r->steady_complete.max);
  else if (runs > 1)
    ck_assert_msg(r->device_time_why[0] != '\0', "%s: no device time and no reason", name);
  else
    ck_assert_msg(isfinite(r->first.device_ms) || r->device_time_why[0] != '\0',
                  "%s: no device time for run 0 and no reason", name);
  check_compile(b, r->compile_kind, r->compile_ms, name);
  check_kernel_config(b, r->variant, info, &r->kernel, override_ts, name);
  if (is_cl(b))
    ck_assert_int_eq(r->launches_per_iter, 1);
  else
    ck_assert_msg(r->launches_per_iter == -1 || r->launches_per_iter >= 1, "%s: %d launches",
                  name, r->launches_per_iter);
  if (b->needs_device) {
    ck_assert_ptr_nonnull(info);
    ck_assert_str_eq(r->device, info->name);
    ck_assert_msg(isfinite(r->init_ms) && r->init_ms >= 0, "%s: init not measured", name);
    if (strcmp(r->compile_kind, "none") != 0)
      ck_assert_msg(strcmp(r->driver_cache, "on") == 0 || strcmp(r->driver_cache, "off") == 0 ||
                        strcmp(r->driver_cache, "unknown") == 0,
                    "%s: driver cache '%s'", name, r->driver_cache);
  } else {
    ck_assert_msg(isnan(r->init_ms), "%s: init %g ms on the host", name, r->init_ms);
    ck_assert_msg(isnan(r->steady_device.median) && r->device_time_why[0],
                  "%s: device time on the host", name);
    ck_assert_msg(r->driver_cache[0] == '\0', "%s: driver cache '%s' on the host", name,
                  r->driver_cache);
  }
}

/* The record of a backend that was verified against the reference (not adopted as it). */
static void check_verified(const cg_record *r, int k, uint64_t seed, const char *name) {
  ck_assert_msg(isfinite(r->verify_error) && r->verify_error <= cg_matmul_tolerance(k),
                "%s: relative error %g (seed %llu)", name, r->verify_error,
                (unsigned long long)seed);
  ck_assert_double_eq(r->verify_tolerance, cg_matmul_tolerance(k));
}

/* The record of the reference backend run first: its outputs are the reference. */
static void check_adopted(const cg_record *r, const char *name) {
  ck_assert_msg(r->reference, "%s: not the reference", name);
  ck_assert_msg(isnan(r->verify_error), "%s: compared with itself: error %g", name,
                r->verify_error);
}

START_TEST(test_workload_records) {
  const combo c = combo_at(_i);
  cg_device_list list = {0};
  const cg_device_info *info = NULL;
  char name[400];
  if (c.device >= 0) {
    info = cg_test_device_at(&list, c.device);
  }
  combo_name(&c, &list, name, sizeof name);
  /* The last: run 0 alone, then two warm-ups, which C must survive. */
  static const struct {
    shape s;
    int runs, warmup;
  } cases[] = {{{17, 31, 7}, 2, 0}, {{65, 33, 129}, 2, 0}, {{1, 1, 1}, 3, 1}, {{13, 7, 5}, 1, 2}};
  for (size_t ci = 0; ci < sizeof cases / sizeof cases[0]; ++ci) {
    const shape s = cases[ci].s;
    const char *backends[] = {c.backend->name, NULL}, *variants[] = {c.variant, NULL};
    const int runs = cases[ci].runs, warmup = cases[ci].warmup;
    cg_job job;
    matmul_job(&job, s, 1, runs, warmup);
    const cg_selection sel = {.backends = backends, .variants = variants, .seed = cg_test_seed()};
    cg_report report;
    progress_log log = new_log();
    run_job(&job, &sel, info, &report, &log);
    ck_assert_int_eq(report.count, 1);
    ck_assert_int_eq(log.starts, 1);
    ck_assert_int_eq(log.calls, 1 + runs); /* the warm-up is not reported */
    ck_assert_int_eq(log.last_runs, runs);
    ck_assert_int_eq(log.last_index, 0);
    ck_assert_int_eq(log.last_total, 1);
    const cg_record *r = &report.records[0];
    ck_assert_str_eq(r->backend, c.backend->name);
    ck_assert_str_eq(r->variant, c.variant);
    check_ok_record(r, &job, &sel, info, 0, name);
    if (c.backend->is_reference)
      check_adopted(r, name);
    else
      check_verified(r, s.k, sel.seed, name);
    cg_report_free(&report);
  }
  cg_device_list_free(&list);
}
END_TEST

/* Every backend and variant in one job: the records planned in registry order whatever the order
 * of --backend, the reference first and adopted, every other record verified against it. */
/* A long k, 66000 (naive's one loop over k, regblock's tiles): unsupported, naming the loops,
 * where the driver cuts a work-item's loops shorter (clgauge/loop_limit.h); verified elsewhere. */
START_TEST(test_loop_limit) {
  cg_device_list list;
  const cg_device_info *info = cg_test_device_at(&list, _i);
  cg_device *dev = NULL;
  cg_error err = {0};
  ck_assert_msg(cg_device_open(info, &dev, &err) == CG_OK, "%s: %s", info->name, err.msg);
  uint64_t limit = 0;
  ck_assert_msg(cg_loop_limit(dev, NULL, &limit, &err) == CG_OK, "%s", err.msg);
  cg_device_close(dev);
  cg_job job;
  matmul_job(&job, (shape){16, 16, 66000}, 1, 1, 0);
  const char *backends[] = {"cpu", "cl", NULL}, *variants[] = {"openblas", "naive", "regblock",
                                                                NULL};
  const cg_selection sel = {.backends = backends, .variants = variants, .seed = cg_test_seed()};
  cg_report report;
  progress_log log = new_log();
  run_job(&job, &sel, info, &report, &log);
  ck_assert_int_eq(report.count, 3);
  for (int i = 1; i < 3; ++i) {
    const cg_record *r = &report.records[i];
    char name[512];
    snprintf(name, sizeof name, "cl/%s at k = 66000 on %s (loop limit %llu)", r->variant,
             info->name, (unsigned long long)limit);
    if (limit) {
      ck_assert_msg(r->status == CG_STATUS_UNSUPPORTED && strstr(r->reason, "loops after"),
                    "%s: status %s: %s", name, cg_status_name(r->status), r->reason);
    } else {
      ck_assert_msg(r->status == CG_STATUS_OK, "%s: status %s: %s", name,
                    cg_status_name(r->status), r->reason);
      check_verified(r, 66000, sel.seed, name);
    }
  }
  cg_report_free(&report);
  cg_device_list_free(&list);
}
END_TEST

START_TEST(test_workload_every_backend) {
  cg_device_list list;
  const cg_device_info *info = cg_test_device_at(&list, _i);
  cg_job job;
  matmul_job(&job, (shape){33, 33, 33}, 2, 2, 0);
  const cg_selection sel = {.seed = cg_test_seed()};
  cg_report report;
  progress_log log = new_log();
  run_job(&job, &sel, info, &report, &log);
  const int expected = cg_test_variant_count("matmul", false) +
                       cg_test_variant_count("matmul", true);
  ck_assert_int_eq(report.count, expected);
  ck_assert_int_eq(log.starts, expected);
  ck_assert_int_eq(log.calls, expected * (1 + 2));
  ck_assert_int_eq(log.last_total, expected);
  ck_assert_int_eq(log.last_index, expected - 1);
  for (int i = 0; i < expected && i < 16; ++i) ck_assert_int_eq(log.starts_at[i], i);
  /* In the order of cg_impl_all. */
  int at = 0;
  for (const cg_impl *const *impl = cg_impl_all(); *impl; ++impl) {
    if (strcmp((*impl)->workload, "matmul") != 0) continue;
    for (const char *const *v = (*impl)->variants; *v; ++v, ++at) {
      ck_assert_int_lt(at, report.count);
      const cg_record *r = &report.records[at];
      char name[512];
      snprintf(name, sizeof name, "%s/%s on %s", (*impl)->backend->name, *v, info->name);
      ck_assert_str_eq(r->backend, (*impl)->backend->name);
      ck_assert_str_eq(r->variant, *v);
      check_ok_record(r, &job, &sel, info, 0, name);
      if (at == 0)
        check_adopted(r, name);
      else
        check_verified(r, 33, sel.seed, name);
    }
  }
  ck_assert_int_eq(at, expected);
  ck_assert_str_eq(report.records[0].backend, "cpu");
  cg_report_free(&report);

  /* --backend cl,cpu --variant tiled: still the reference first. */
  const char *backends[] = {"cl", "cpu", NULL}, *variants[] = {"tiled", NULL};
  const cg_selection two = {.backends = backends, .variants = variants, .seed = cg_test_seed()};
  log = new_log();
  run_job(&job, &two, info, &report, &log);
  ck_assert_int_eq(report.count, 2);
  ck_assert_str_eq(report.records[0].backend, "cpu");
  ck_assert_str_eq(report.records[0].variant, "openblas");
  ck_assert_str_eq(report.records[1].backend, "cl");
  ck_assert_str_eq(report.records[1].variant, "tiled");
  check_ok_record(&report.records[0], &job, &two, info, 0, "cpu (with cl)");
  check_adopted(&report.records[0], "cpu (with cl)");
  check_ok_record(&report.records[1], &job, &two, info, 0, "cl/tiled (with cpu)");
  check_verified(&report.records[1], 33, two.seed, "cl/tiled (with cpu)");
  cg_report_free(&report);
  cg_device_list_free(&list);
}
END_TEST

/* Without a device the OpenCL records are skipped and the host ones still run. */
START_TEST(test_workload_without_device) {
  cg_job job;
  matmul_job(&job, (shape){5, 6, 7}, 1, 2, 0);
  const cg_selection sel = {.seed = cg_test_seed()};
  cg_report report;
  progress_log log = new_log();
  run_job(&job, &sel, NULL, &report, &log);
  const int host = cg_test_variant_count("matmul", false);
  const int ocl = cg_test_variant_count("matmul", true);
  ck_assert_int_eq(report.count, host + ocl);
  ck_assert_int_eq(log.starts, host + ocl);
  ck_assert_int_eq(log.calls, host * (1 + 2) + ocl); /* a skipped record only starts */
  for (int i = 0; i < report.count; ++i) {
    const cg_record *r = &report.records[i];
    const cg_backend *b = cg_backend_find(r->backend);
    ck_assert_ptr_nonnull(b);
    check_record_frame(r, &job, &sel, r->backend);
    if (b->needs_device) {
      ck_assert_int_eq(r->status, CG_STATUS_SKIPPED);
      ck_assert_msg(strstr(r->reason, "no OpenCL device") != NULL, "reason: %s", r->reason);
      ck_assert_int_eq(r->nruns, 0);
      ck_assert_msg(isnan(r->init_ms) && isnan(r->compile_ms) && isnan(r->upload_ms),
                    "%s: a phase of a skipped record measured", r->backend);
    } else {
      check_ok_record(r, &job, &sel, NULL, 0, r->backend);
      check_adopted(r, r->backend);
    }
  }
  cg_report_free(&report);
}
END_TEST

/* ---- kernel configuration and --kernel-param ---- */

static void parse_overrides(cg_kernel_overrides *o, const char *text) {
  cg_error err = {0};
  memset(o, 0, sizeof *o);
  ck_assert_msg(cg_kernel_overrides_parse(o, text, &err) == CG_OK, "%s: %s", text, err.msg);
}

/* Each cl variant's configuration as prepare reports it on every device, with and without an
 * override of TS; an override outside the device's limits is refused naming --kernel-param. */
START_TEST(test_kernel_config_prepare) {
  const combo c = cl_combo_at(_i);
  opened o;
  open_combo(&c, &o);
  char name[400];
  combo_name(&c, &o.list, name, sizeof name);
  const cg_matmul_shape ms = {17, 31, 7};
  static const struct {
    const char *text;
    int ts; /* expected override; -1: refused; -2: either, as the built kernel allows */
  } cases[] = {{NULL, 0}, {"TS=4", 4}, {"TS=1", 1}, {"TS=0", -1}, {"TS=1000", -1},
               {"TS=-2", -1}, {"TS=64", -1}, {"TS=16", -2}};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
    if (cases[i].text && !takes_ts(c.variant)) continue; /* test_pipelined_overrides */
    cg_kernel_overrides ov;
    memset(&ov, 0, sizeof ov);
    if (cases[i].text) parse_overrides(&ov, cases[i].text);
    const cg_backend_env env = {.device = o.device, .overrides = cases[i].text ? &ov : NULL};
    cg_prepared prepared = {.compile_ms = NAN, .compile_kind = "none"};
    void *state = NULL;
    cg_error err = {0};
    cg_rc rc = c.impl->prepare(&env, c.variant, NULL, &ms, &state, &prepared, &err);
    if (cases[i].ts == -1 || (cases[i].ts == -2 && rc != CG_OK)) {
      ck_assert_msg(rc == CG_BAD_INPUT, "%s, %s: rc %d (%s)", name, cases[i].text, rc, err.msg);
      char named[64];
      snprintf(named, sizeof named, "--kernel-param %s", cases[i].text);
      ck_assert_msg(strstr(err.msg, named) != NULL, "%s: '%s' not named in: %s", name, named,
                    err.msg);
      ck_assert_msg(strchr(err.msg, '\n') == NULL, "%s: not one line: %s", name, err.msg);
      ck_assert_ptr_null(state);
      continue;
    }
    ck_assert_msg(rc == CG_OK, "%s, %s: prepare: %s", name, cases[i].text ? cases[i].text : "-",
                  err.msg);
    check_kernel_config(c.backend, c.variant, o.info, &prepared.config,
                        cases[i].ts == -2 ? 16 : cases[i].ts, name);
    c.impl->release(state);
  }
  close_combo(&c, &o);
}
END_TEST

/* One product of the pipelined variant on fresh inputs, every element against the reference;
 * the configuration it reported into *config. */
static void pipelined_product(const cg_impl *impl, const cg_backend_env *env, shape s,
                              cg_rng *rng, cg_kernel_config *config, const char *name) {
  const cg_matmul_shape ms = {s.m, s.n, s.k};
  const size_t na = (size_t)s.m * s.k, nb = (size_t)s.k * s.n, nc = (size_t)s.m * s.n;
  cg_prepared prepared = {.compile_ms = NAN, .compile_kind = "none"};
  void *state = NULL;
  cg_error err = {0};
  ck_assert_msg(impl->prepare(env, "pipelined", NULL, &ms, &state, &prepared, &err) == CG_OK,
                "%s, %dx%dx%d: prepare: %s", name, s.m, s.n, s.k, err.msg);
  float *A = random_matrix(rng, na), *B = random_matrix(rng, nb), *ref = filled(nc, 0);
  float *C = filled(nc, 1234.5f);
  cg_ref_sgemm(s.m, s.n, s.k, A, B, ref);
  ck_assert_msg(impl->upload(state, &(cg_matmul_inputs){A, B}, &err) == CG_OK, "%s: upload: %s",
                name, err.msg);
  const cg_run run = {0, 2, CG_RUN_FIRST, NULL};
  ck_assert_msg(impl->enqueue(state, &run, &err) == CG_OK, "%s: enqueue: %s", name, err.msg);
  cg_run_result res;
  cg_run_result_init(&res);
  ck_assert_msg(impl->finish(state, &res, &err) == CG_OK, "%s: finish: %s", name, err.msg);
  ck_assert_msg(impl->download(state, &(cg_matmul_outputs){C}, &err) == CG_OK,
                "%s: download: %s", name, err.msg);
  const long bad = first_bad_element(C, ref, A, B, s);
  ck_assert_msg(bad < 0, "%s, %dx%dx%d: element %ld is %g, reference %g (options '%s')", name,
                s.m, s.n, s.k, bad, bad < 0 ? 0 : C[bad], bad < 0 ? 0 : ref[bad],
                prepared.config.build_options);
  *config = prepared.config;
  free(A), free(B), free(ref), free(C);
  impl->release(state);
}

/* The pipelined variant with its default and with overridden parameters, at shapes on both sides
 * of its block of C and of its k-slice: blocks no power of two with work-groups whose items
 * share a slice's loads unevenly (9x10 of 3x5, k-slices of 2, scalar loads), float2 loads with
 * three vectors of padding, float4 with 8x8 outputs per work-item (as on a GPU), float2 with 6x6
 * (the GPU's 96x96 block, smaller), and overrides that the defaults must give way to (a vector
 * width for 2 x 1 outputs, outputs for a block of 6 x 10: fallbacks); every element checked,
 * every override reported as such. Values the kernel cannot take, or that cannot fit
 * the device with the overrides given, are refused naming --kernel-param and the overrides. */
START_TEST(test_pipelined_overrides) {
  cg_device_list list;
  const cg_device_info *info = cg_test_device_at(&list, _i);
  const cg_impl *impl = cg_impl_find(cg_backend_find("cl"), "matmul");
  void *device = NULL;
  const char *why = NULL;
  cg_error err = {0};
  ck_assert_msg(impl->backend->open(info, &device, &why, &err) == CG_OK, "open: %s", err.msg);
  cg_rng rng;
  cg_rng_seed(&rng, cg_test_seed());
  static const struct {
    const char *text;
    shape shapes[5];
  } cases[] = {
      {NULL, {{65, 63, 17}, {129, 1, 16}, {1, 130, 15}}},
      {"MWG=9,NWG=10,KWG=2,WM=3,WN=5,VW=1", {{19, 23, 7}, {9, 10, 12}, {1, 1, 1}}},
      {"MWG=8,NWG=16,KWG=5,WM=2,WN=4,VW=2,PAD=3", {{17, 33, 11}, {8, 16, 5}}},
      {"MWG=16,NWG=32,KWG=8,WM=8,WN=8", {{33, 31, 17}}},
      /* the GPU's 96x96 block in small: 6x6 outputs, float2 reads, a block no power of two */
      {"MWG=24,NWG=36,KWG=16,WM=6,WN=6,VW=2", {{25, 37, 17}, {49, 1, 33}, {24, 36, 16}}},
      /* the parameters not given agree with those given: the vector width with 2 x 1 outputs
       * per work-item, the outputs with blocks of 6 x 10 */
      {"WM=2,WN=1", {{17, 19, 23}}},
      {"MWG=6,NWG=10", {{25, 41, 9}}},
      /* long k-slices with padding: on rusticl (32 KiB, which reports twice the tiles' bytes as
       * the kernel's local memory) a smaller block than the default */
      {"KWG=32,VW=4,PAD=4", {{255, 130, 1}, {33, 70, 65}}},
      /* the last blocks split along k (as the GPUs' default may, past a wave): the last 4 blocks
       * in 3 parts of k, the last of them short (k = 17: 8, 8, 1; 37: 16, 16, 5; 100: 36, 36,
       * 28), one block of a row (1 x 33) and blocks partly outside C */
      {"MWG=8,NWG=8,KWG=4,WM=2,WN=2,VW=2,SPLITS=3,TAIL=4",
       {{33, 31, 17}, {9, 17, 37}, {1, 33, 100}}},
      /* 8x8 outputs of float4 with the last block split in two (k = 17: 16 and 1) */
      {"MWG=16,NWG=32,KWG=8,WM=8,WN=8,SPLITS=2,TAIL=1", {{33, 31, 17}}},
      /* every block split (a split-k product): the 9 blocks of 9 x 10 in 4 parts of 2 (k = 7) */
      {"MWG=9,NWG=10,KWG=2,WM=3,WN=5,VW=1,SPLITS=4,TAIL=9", {{19, 23, 7}}},
  };
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
    cg_kernel_overrides ov;
    memset(&ov, 0, sizeof ov);
    if (cases[c].text) parse_overrides(&ov, cases[c].text);
    const cg_backend_env env = {.device = device, .overrides = cases[c].text ? &ov : NULL};
    char name[400];
    snprintf(name, sizeof name, "cl/pipelined, %s, on %s", cases[c].text ? cases[c].text : "default",
             info->name);
    for (int si = 0; si < 5 && cases[c].shapes[si].m; ++si) {
      cg_kernel_config config;
      pipelined_product(impl, &env, cases[c].shapes[si], &rng, &config, name);
      check_pipelined_config(info, &config, name);
      for (int o = 0; o < ov.count; ++o) {
        const cg_kernel_param *p = find_param(&config, ov.items[o].name);
        ck_assert_msg(p && p->value == ov.items[o].value && p->origin == CG_ORIGIN_OVERRIDE,
                      "%s: %s=%d (%s), overridden to %d", name, ov.items[o].name,
                      p ? p->value : -1, p ? cg_origin_name(p->origin) : "missing",
                      ov.items[o].value);
      }
    }
  }
  static const char *const refused[] = {
      "WM=3", "VW=3", "MWG=0", "NWG=257", "KWG=65", "PAD=9", "MWG=12,WM=8",
      "MWG=256,NWG=256,WM=1,WN=1,VW=1", /* 65536 work-items: no device has them */
      "SPLITS=0", "SPLITS=65", "TAIL=2", /* TAIL without SPLITS */
  };
  for (size_t r = 0; r < sizeof refused / sizeof refused[0]; ++r) {
    cg_kernel_overrides ov;
    parse_overrides(&ov, refused[r]);
    const cg_backend_env env = {.device = device, .overrides = &ov};
    const cg_matmul_shape ms = {17, 19, 23};
    cg_prepared prepared = {.compile_ms = NAN, .compile_kind = "none"};
    void *state = NULL;
    memset(&err, 0, sizeof err);
    const cg_rc rc = impl->prepare(&env, "pipelined", NULL, &ms, &state, &prepared, &err);
    char named[80];
    snprintf(named, sizeof named, "--kernel-param %s", refused[r]);
    ck_assert_msg(rc == CG_BAD_INPUT && strstr(err.msg, named) && !strchr(err.msg, '\n'),
                  "%s on %s: rc %d, message '%s'", refused[r], info->name, rc, err.msg);
    ck_assert_ptr_null(state);
  }
  impl->backend->close(device);
  cg_device_list_free(&list);
}
END_TEST

/* --kernel-param TS=4 (and TS=3, no power of two): every cl record runs with it, marked override,
 * and is still correct; the other backends ignore it. */
START_TEST(test_kernel_override_records) {
  cg_device_list list;
  const cg_device_info *info = cg_test_device_at(&list, _i);
  static const int edges[] = {4, 3};
  for (int e = 0; e < 2; ++e) {
    char text[32];
    snprintf(text, sizeof text, "TS=%d", edges[e]);
    cg_kernel_overrides ov;
    parse_overrides(&ov, text);
    cg_job job;
    matmul_job(&job, (shape){37, 29, 41}, 2, 2, 0);
    const char *backends[] = {"cpu", "cl", NULL};
    const cg_selection sel = {.backends = backends, .seed = cg_test_seed(), .overrides = &ov};
    cg_report report;
    progress_log log = new_log();
    run_job(&job, &sel, info, &report, &log);
    ck_assert_int_eq(report.count, 1 + cl_variant_count());
    for (int i = 0; i < report.count; ++i) {
      const cg_record *r = &report.records[i];
      char name[512];
      snprintf(name, sizeof name, "%s/%s, %s, on %s", r->backend, r->variant, text, info->name);
      const bool cl = strcmp(r->backend, "cl") == 0;
      check_ok_record(r, &job, &sel, info, cl ? edges[e] : 0, name);
      if (cl)
        check_verified(r, 41, sel.seed, name);
      else
        check_adopted(r, name);
    }
    cg_report_free(&report);
  }
  cg_device_list_free(&list);
}
END_TEST

/* An override outside the limits (TS=0, TS=1000) fails each cl record that takes TS with a
 * message naming --kernel-param TS; the other records (pipelined among them, whose parameters
 * are its own) still run and verify. Validation does not know the
 * kernels' limits, so the job validates. */
START_TEST(test_kernel_override_invalid) {
  cg_device_list list;
  const cg_device_info *info = cg_test_device_at(&list, _i);
  static const char *const texts[] = {"TS=0", "TS=1000"};
  for (int t = 0; t < 2; ++t) {
    cg_kernel_overrides ov;
    parse_overrides(&ov, texts[t]);
    cg_job job;
    matmul_job(&job, (shape){19, 23, 11}, 1, 2, 0);
    const cg_selection sel = {.seed = cg_test_seed(), .overrides = &ov};
    cg_report report;
    progress_log log = new_log();
    run_job(&job, &sel, info, &report, &log);
    const int expected = cg_test_variant_count("matmul", false) +
                         cg_test_variant_count("matmul", true);
    ck_assert_int_eq(report.count, expected);
    ck_assert_int_eq(log.starts, expected);
    int failed = 0;
    for (int i = 0; i < report.count; ++i) {
      const cg_record *r = &report.records[i];
      char name[512];
      snprintf(name, sizeof name, "%s/%s, %s, on %s", r->backend, r->variant, texts[t],
               info->name);
      if (strcmp(r->backend, "cl") != 0 || !takes_ts(r->variant)) {
        check_ok_record(r, &job, &sel, info, 0, name);
        if (i == 0)
          check_adopted(r, name);
        else
          check_verified(r, 11, sel.seed, name);
        continue;
      }
      failed++;
      check_record_frame(r, &job, &sel, name);
      ck_assert_msg(r->status == CG_STATUS_ERROR, "%s: status %s (%s)", name,
                    cg_status_name(r->status), r->reason);
      char named[64];
      snprintf(named, sizeof named, "--kernel-param %s", texts[t]);
      ck_assert_msg(strstr(r->reason, named) != NULL, "%s: '%s' not in the reason: %s", name,
                    named, r->reason);
      ck_assert_int_eq(r->nruns, 0);
      ck_assert_msg(isfinite(r->init_ms), "%s: the device was opened, init not measured", name);
      ck_assert_msg(isnan(r->upload_ms) && isnan(r->download_ms) && isnan(r->verify_error),
                    "%s: a phase after the failed prepare measured", name);
    }
    ck_assert_int_eq(failed, cl_variant_count() - 1);
    cg_report_free(&report);
  }
  cg_device_list_free(&list);
}
END_TEST

/* ---- kernel directories and the binary cache ---- */

static const char broken_matmul[] =
    "/* Does not compile, on purpose: the test of a failed build. */\n"
    "__kernel void matmul_naive(__global float *C) { C[0] = not_declared_anywhere; }\n";

/* --kernel-dir: the tree's own cl/ builds and runs; a directory whose matmul.cl does not compile
 * fails every cl record with the build log, and one without the file names it; the reference
 * still runs in the same job. */
START_TEST(test_kernel_dir) {
  cg_device_list list;
  const cg_device_info *info = cg_test_device_at(&list, _i);
  char broken[300], empty[300], path[400];
  cg_test_tempdir(broken, sizeof broken);
  cg_test_tempdir(empty, sizeof empty);
  snprintf(path, sizeof path, "%s/matmul.cl", broken);
  cg_test_write_file(path, broken_matmul);
  const char *const dirs[] = {CLGAUGE_SOURCE_DIR "/cl", broken, empty};
  for (int d = 0; d < 3; ++d) {
    cg_job job;
    matmul_job(&job, (shape){9, 10, 11}, 1, 2, 0);
    const char *backends[] = {"cpu", "cl", NULL};
    const cg_selection sel = {.backends = backends, .seed = cg_test_seed(), .kernel_dir = dirs[d]};
    cg_report report;
    progress_log log = new_log();
    run_job(&job, &sel, info, &report, &log);
    ck_assert_int_eq(report.count, 1 + cl_variant_count());
    ck_assert_int_eq(log.starts, 1 + cl_variant_count());
    check_ok_record(&report.records[0], &job, &sel, info, 0, "cpu");
    check_adopted(&report.records[0], "cpu");
    for (int i = 1; i < report.count; ++i) {
      const cg_record *r = &report.records[i];
      char name[600];
      snprintf(name, sizeof name, "cl/%s from %s on %s", r->variant, dirs[d], info->name);
      ck_assert_str_eq(r->backend, "cl");
      if (d == 0) {
        check_ok_record(r, &job, &sel, info, 0, name);
        check_verified(r, 11, sel.seed, name);
        continue;
      }
      check_record_frame(r, &job, &sel, name);
      ck_assert_msg(r->status == CG_STATUS_ERROR, "%s: status %s (%s)", name,
                    cg_status_name(r->status), r->reason);
      if (d == 1)
        ck_assert_msg(strstr(r->reason, "clBuildProgram") && strstr(r->reason, "build log") &&
                          strstr(r->reason, "not_declared_anywhere") &&
                          strstr(r->reason, broken),
                      "%s: reason without the build and its log: %s", name, r->reason);
      else
        ck_assert_msg(strstr(r->reason, empty) && strstr(r->reason, "matmul.cl"),
                      "%s: the missing file not named: %s", name, r->reason);
      ck_assert_int_eq(r->nruns, 0);
      ck_assert_msg(isnan(r->compile_ms) && isnan(r->upload_ms) && isnan(r->verify_error),
                    "%s: a phase of a failed build measured", name);
    }
    cg_report_free(&report);
  }
  cg_test_rmtree(broken);
  cg_test_rmtree(empty);
  cg_device_list_free(&list);
}
END_TEST

/* --binary-cache: the first job builds from source and fills the cache (a later variant built
 * with the same options may already load from it), the second loads every program from it; both
 * verify. */
START_TEST(test_binary_cache) {
  cg_device_list list;
  const cg_device_info *info = cg_test_device_at(&list, _i);
  char cache[300];
  cg_test_tempdir(cache, sizeof cache);
  const char *backends[] = {"cl", NULL};
  for (int pass = 0; pass < 2; ++pass) {
    cg_job job;
    matmul_job(&job, (shape){21, 13, 34}, 1, 2, 0);
    const cg_selection sel = {.backends = backends, .seed = cg_test_seed(), .binary_cache = cache};
    cg_report report;
    progress_log log = new_log();
    run_job(&job, &sel, info, &report, &log);
    ck_assert_int_eq(report.count, cl_variant_count());
    for (int i = 0; i < report.count; ++i) {
      const cg_record *r = &report.records[i];
      char name[512];
      snprintf(name, sizeof name, "cl/%s, pass %d, on %s", r->variant, pass, info->name);
      check_ok_record(r, &job, &sel, info, 0, name);
      check_verified(r, 34, sel.seed, name);
      const bool fresh = pass == 0 && i == 0;
      ck_assert_msg(strcmp(r->compile_kind, fresh ? "source" : "cache") == 0 ||
                        (pass == 0 && strcmp(r->compile_kind, "source") == 0),
                    "%s: compile kind %s", name, r->compile_kind);
    }
    /* naive and tiled share their build options; regblock's differ */
    if (pass == 0) ck_assert_int_ge(cg_test_dir_entries(cache), 2);
    cg_report_free(&report);
  }
  cg_test_rmtree(cache);
  cg_device_list_free(&list);
}
END_TEST

/* ---- validation ---- */

static void expect_bad_rc(cg_rc rc, const cg_error *err, const char *named) {
  ck_assert_msg(rc == CG_BAD_INPUT, "expected CG_BAD_INPUT naming '%s', got rc %d (%s)", named,
                rc, err->msg);
  ck_assert_msg(strstr(err->msg, named) != NULL, "'%s' not named in: %s", named, err->msg);
  ck_assert_msg(strchr(err->msg, '\n') == NULL, "not one line: %s", err->msg);
}

static cg_rc validate(const cg_job *job, const cg_selection *sel, const cg_device_info *info,
                      cg_error *err) {
  memset(err, 0, sizeof *err);
  return cg_engine_validate(job, sel, info, err);
}

static void expect_bad_err(const cg_job *job, const cg_selection *sel,
                           const cg_device_info *info, const char *named, cg_error *out) {
  cg_error err;
  cg_rc rc = validate(job, sel, info, &err);
  if (out) *out = err;
  expect_bad_rc(rc, &err, named);
}

static void expect_bad(const cg_job *job, const cg_selection *sel, const cg_device_info *info,
                       const char *named) {
  expect_bad_err(job, sel, info, named, NULL);
}

/* cg_params_set refuses the value, naming the option and the value, and leaves it unchanged. */
static void expect_bad_set(const char *param, double value, const char *named) {
  cg_job job;
  cg_job_init(&job, &cg_workload_matmul);
  const cg_params before = job.params;
  cg_error err = {0};
  expect_bad_rc(cg_params_set(&job.params, param, value, &err), &err, named);
  ck_assert_msg(memcmp(before.v, job.params.v, sizeof before.v) == 0, "%s changed on refusal",
                param);
}

/* The same value set directly, which cg_engine_validate must refuse. */
static void expect_bad_value(const char *param, double value, const char *named) {
  cg_job job;
  matmul_job(&job, (shape){4, 5, 6}, 1, 1, 0);
  const int i = cg_params_index(&job.params, param);
  ck_assert_int_ge(i, 0);
  job.params.v[i] = value;
  const cg_selection sel = {0};
  expect_bad(&job, &sel, NULL, named);
}

START_TEST(test_validate_values) {
  cg_job job;
  cg_error err = {0};
  const cg_selection sel = {0};
  cg_job_init(&job, &cg_workload_matmul);
  ck_assert_ptr_eq(job.workload, &cg_workload_matmul);
  ck_assert_msg(validate(&job, &sel, NULL, &err) == CG_OK, "defaults: %s", err.msg);
  ck_assert_double_eq(cg_params_get(&job.params, "m"), 1000);
  ck_assert_double_eq(cg_params_get(&job.params, "n"), 1000);
  ck_assert_double_eq(cg_params_get(&job.params, "k"), 1000);
  ck_assert_double_eq(cg_params_get(&job.params, "loops"), 10);
  ck_assert_double_eq(cg_params_get(&job.params, "runs"), 10);
  ck_assert_double_eq(cg_params_get(&job.params, "warmup"), 0);
  ck_assert(isnan(cg_params_get(&job.params, "no-such-param")));

  expect_bad_set("m", 0, "--m 0");
  expect_bad_set("n", -3, "--n -3");
  expect_bad_set("k", CG_MATMUL_MAX_DIM + 1, "--k 1048577");
  expect_bad_set("loops", 0, "--loops 0");
  expect_bad_set("runs", 0, "--runs 0");
  expect_bad_set("warmup", -1, "--warmup -1");
  expect_bad_set("n", 2.5, "--n 2.5");
  expect_bad_set("n", NAN, "--n");
  expect_bad_set("no_such", 1, "'no_such'");
  expect_bad_value("m", 0, "--m 0");
  expect_bad_value("n", -3, "--n -3");
  expect_bad_value("k", CG_MATMUL_MAX_DIM + 1, "--k 1048577");
  expect_bad_value("loops", 0, "--loops 0");
  expect_bad_value("runs", 0, "--runs 0");
  expect_bad_value("warmup", -1, "--warmup -1");
  expect_bad_value("k", 7.5, "--k 7.5");

  /* --n sets m and k; m and k given after it override their part. */
  cg_job_init(&job, &cg_workload_matmul);
  set_param(&job, "n", 7);
  ck_assert_double_eq(cg_params_get(&job.params, "m"), 7);
  ck_assert_double_eq(cg_params_get(&job.params, "k"), 7);
  set_param(&job, "m", 3);
  ck_assert_double_eq(cg_params_get(&job.params, "m"), 3);
  ck_assert_double_eq(cg_params_get(&job.params, "n"), 7);
  ck_assert_double_eq(cg_params_get(&job.params, "k"), 7);

  matmul_job(&job, (shape){4, 5, 6}, 1, 1, 0);
  ck_assert_int_eq(validate(&job, &sel, NULL, &err), CG_OK);
  /* no device: no device limit, but the host must hold the matrices (16 TiB here) */
  matmul_job(&job, (shape){CG_MATMUL_MAX_DIM, CG_MATMUL_MAX_DIM, CG_MATMUL_MAX_DIM}, 1, 1, 0);
  expect_bad(&job, &sel, NULL, "the host has");
}
END_TEST

START_TEST(test_validate_names) {
  cg_job job;
  cg_error err = {0};
  matmul_job(&job, (shape){4, 5, 6}, 1, 1, 0);
  const char *foo[] = {"foo", NULL}, *cpu[] = {"cpu", NULL}, *tiled[] = {"tiled", NULL};
  const char *cpu_foo[] = {"cpu", "foo", NULL};
  const uint64_t seed = cg_test_seed();
  expect_bad(&job, &(cg_selection){.backends = foo, .seed = seed}, NULL, "'foo'");
  expect_bad(&job, &(cg_selection){.backends = cpu_foo, .seed = seed}, NULL, "'foo'");
  expect_bad(&job, &(cg_selection){.variants = foo, .seed = seed}, NULL, "'foo'");
  expect_bad(&job, &(cg_selection){.backends = foo, .seed = seed}, NULL, "--backend");
  expect_bad(&job, &(cg_selection){.variants = foo, .seed = seed}, NULL, "--variant");
  /* A variant that exists, but not in a selected backend. */
  expect_bad(&job, &(cg_selection){.backends = cpu, .variants = tiled, .seed = seed}, NULL,
             "'tiled'");
  ck_assert_msg(validate(&job, &(cg_selection){.variants = tiled, .seed = seed}, NULL,
                         &err) == CG_OK,
                "%s", err.msg);
  /* Every backend and variant name is accepted on its own. */
  for (const cg_impl *const *i = cg_impl_all(); *i; ++i) {
    if (strcmp((*i)->workload, "matmul") != 0) continue;
    for (const char *const *v = (*i)->variants; *v; ++v) {
      const char *bs[] = {(*i)->backend->name, NULL}, *vs[] = {*v, NULL};
      const cg_selection sel = {.backends = bs, .variants = vs, .seed = seed};
      ck_assert_msg(validate(&job, &sel, NULL, &err) == CG_OK,
                    "%s/%s: %s", (*i)->backend->name, *v, err.msg);
    }
  }
}
END_TEST

START_TEST(test_validate_device_limits) {
  cg_device_list list;
  cg_test_devices(&list);
  const cg_selection all = {0};
  for (int i = 0; i < list.count; ++i) {
    const cg_device_info *info = &list.items[i];
    cg_job job;
    cg_error err = {0};
    /* The smallest square size whose matrices each exceed the maximum allocation. */
    int n = (int)ceil(sqrt((double)info->max_alloc / 4.0)) + 1;
    ck_assert_int_le(n, CG_MATMUL_MAX_DIM);
    matmul_job(&job, (shape){n, n, n}, 1, 1, 0);
    char named[64];
    snprintf(named, sizeof named, "--n %d", n); /* square: the option that set it */
    expect_bad_err(&job, &all, info, named, &err);
    ck_assert_msg(strstr(err.msg, info->name) != NULL, "device not named: %s", err.msg);
    /* Only A too big: tall A, narrow B and C. */
    const shape tall = {(int)(info->max_alloc / 4 / 1024) + 1, 1, 1024};
    if (tall.m <= CG_MATMUL_MAX_DIM) {
      matmul_job(&job, tall, 1, 1, 0);
      snprintf(named, sizeof named, "--m %d --n %d --k %d", tall.m, tall.n, tall.k);
      expect_bad_err(&job, &all, info, named, &err);
      ck_assert_msg(strstr(err.msg, "matrix A") != NULL, "matrix A not named: %s", err.msg);
    }
    /* Each matrix fits one allocation, all three not the device's memory. */
    const int fit = (int)floor(sqrt((double)info->max_alloc / 4.0));
    if (3.0 * 4.0 * fit * fit > (double)info->global_mem) {
      matmul_job(&job, (shape){fit, fit, fit}, 1, 1, 0);
      snprintf(named, sizeof named, "--n %d", fit);
      expect_bad_err(&job, &all, info, named, &err);
      ck_assert_msg(strstr(err.msg, "the matrices") && strstr(err.msg, info->name),
                    "total not refused by name: %s", err.msg);
    }
    /* Host backends alone need no device memory. */
    const char *cpu[] = {"cpu", NULL};
    matmul_job(&job, (shape){n, n, n}, 1, 1, 0);
    const cg_selection host = {.backends = cpu};
    ck_assert_msg(validate(&job, &host, info, &err) == CG_OK || strstr(err.msg, "the host has"),
                  "%s", err.msg); /* the host's memory may still be too small */
    /* Something that fits is fine. */
    matmul_job(&job, (shape){4, 5, 6}, 1, 1, 0);
    ck_assert_msg(validate(&job, &all, info, &err) == CG_OK, "%s", err.msg);
  }
  cg_device_list_free(&list);
}
END_TEST

/* ---- the registry ---- */

START_TEST(test_registry) {
  const cg_backend *const *all = cg_backend_all();
  int n = 0, host = 0, references = 0;
  for (const cg_backend *const *b = all; *b; ++b, ++n) {
    ck_assert_ptr_eq(cg_backend_find((*b)->name), *b);
    ck_assert_msg((*b)->summary && *(*b)->summary, "%s has no summary", (*b)->name);
    for (const cg_backend *const *o = all; o != b; ++o)
      ck_assert_msg(strcmp((*o)->name, (*b)->name) != 0, "two backends named %s", (*b)->name);
    host += !(*b)->needs_device;
    references += (*b)->is_reference;
    if ((*b)->is_reference) ck_assert_msg(!(*b)->needs_device, "the reference needs a device");
    ck_assert_msg((*b)->needs_device ? (*b)->open && (*b)->close : !(*b)->open && !(*b)->close,
                  "%s: open/close do not match needs_device", (*b)->name);
    const cg_impl *impl = cg_impl_find(*b, "matmul");
    if (!impl) continue;
    ck_assert_ptr_eq(impl->backend, *b);
    ck_assert_str_eq(impl->workload, "matmul");
    ck_assert_msg(impl->modes == NULL, "%s: modes in a workload without modes", (*b)->name);
    ck_assert(cg_impl_has_mode(impl, NULL));
    const char *const *v = impl->variants;
    ck_assert_msg(v && v[0], "%s has no variant", (*b)->name);
    for (int i = 0; v[i]; ++i) ck_assert_int_eq(cg_variant_index(v, v[i]), i);
    ck_assert_int_eq(cg_variant_index(v, "no-such-variant"), -1);
    ck_assert_msg(impl->prepare && impl->upload && impl->enqueue && impl->finish &&
                      impl->download && impl->release,
                  "%s: an entry is missing", (*b)->name);
    if (is_cl(*b)) {
      ck_assert_msg(impl->kernel_params && cg_variant_index(impl->kernel_params, "TS") >= 0,
                    "cl: TS is not a kernel parameter");
    } else if (strcmp((*b)->name, "clblast") == 0) {
      /* CLBlast's Xgemm parameters, which CLBlastOverrideParameters takes */
      ck_assert_msg(impl->kernel_params && cg_variant_index(impl->kernel_params, "XGEMM_MWG") >= 0 &&
                        cg_variant_index(impl->kernel_params, "MWG") < 0,
                    "clblast: the Xgemm parameters are not its kernel parameters");
    } else {
      ck_assert_msg(!impl->kernel_params || !impl->kernel_params[0],
                    "%s: kernel parameters without kernels", (*b)->name);
    }
  }
  ck_assert_int_ge(n, 3);
  ck_assert_int_ge(host, 1);
  ck_assert_int_eq(references, 1);
  ck_assert(cg_backend_find("cpu")->is_reference);
  ck_assert_ptr_null(cg_backend_find("no-such-backend"));
  ck_assert_ptr_nonnull(cg_backend_find("cpu"));
  ck_assert_ptr_null(cg_impl_find(cg_backend_find("cpu"), "no-such-workload"));
  ck_assert_int_eq(cg_variant_index(NULL, "x"), -1);

  /* The implementations of matmul: once each, in backend order. */
  int last = -1, impls = 0;
  for (const cg_impl *const *i = cg_impl_all(); *i; ++i) {
    if (strcmp((*i)->workload, "matmul") != 0) continue;
    int at = 0;
    while (all[at] && all[at] != (*i)->backend) ++at;
    ck_assert_msg(all[at] != NULL, "matmul of an unlisted backend");
    ck_assert_msg(at > last, "matmul of %s out of order or twice", (*i)->backend->name);
    ck_assert_ptr_eq(cg_impl_find((*i)->backend, "matmul"), *i);
    last = at;
    impls++;
  }
  ck_assert_int_eq(impls, n); /* every backend runs matmul */
  ck_assert_ptr_eq(cg_workload_find("matmul"), &cg_workload_matmul);

  const char *cl_only[] = {"cl", NULL}, *tiled[] = {"tiled", NULL};
  ck_assert(cg_backend_selected(NULL, cg_backend_find("clblast")));
  ck_assert(cg_backend_selected(cl_only, cg_backend_find("cl")));
  ck_assert(!cg_backend_selected(cl_only, cg_backend_find("cpu")));
  /* --variant tiled narrows the cl backend and leaves single-variant backends alone. */
  const char *const *clv = cg_impl_find(cg_backend_find("cl"), "matmul")->variants;
  const char *const *cpuv = cg_impl_find(cg_backend_find("cpu"), "matmul")->variants;
  ck_assert(cg_variant_selected(tiled, clv, "tiled"));
  ck_assert(!cg_variant_selected(tiled, clv, "naive"));
  ck_assert(cg_variant_selected(tiled, cpuv, cpuv[0]));
  ck_assert(cg_variant_selected(NULL, clv, "naive"));

  /* The selection check over a list of workloads. */
  const char *const matmul_only[] = {"matmul", NULL}, *const nothing[] = {"no-such", NULL};
  cg_error err = {0};
  ck_assert_int_eq(cg_selection_check(cl_only, tiled, matmul_only, &err), CG_OK);
  expect_bad_rc(cg_selection_check(cl_only, tiled, nothing, &err), &err, "'cl'");
  const char *cpu[] = {"cpu", NULL};
  memset(&err, 0, sizeof err);
  expect_bad_rc(cg_selection_check(cpu, tiled, matmul_only, &err), &err, "'tiled'");
}
END_TEST

/* ---- the reference and its error measure ---- */

START_TEST(test_reference) {
  uint64_t seed = cg_test_seed();
  cg_rng rng;
  cg_rng_seed(&rng, seed);
  for (int si = 0; si < NSHAPES; ++si) {
    const shape s = shapes[si];
    size_t na = (size_t)s.m * s.k, nb = (size_t)s.k * s.n, nc = (size_t)s.m * s.n;
    float *A = random_matrix(&rng, na), *B = random_matrix(&rng, nb), *C = filled(nc, NAN);
    cg_ref_sgemm(s.m, s.n, s.k, A, B, C);
    /* Against a plain double-precision triple loop, written here. */
    float *D = filled(nc, 0);
    for (int i = 0; i < s.m; ++i)
      for (int j = 0; j < s.n; ++j) {
        double acc = 0;
        for (int p = 0; p < s.k; ++p) acc += (double)A[i * s.k + p] * B[p * s.n + j];
        D[i * s.n + j] = (float)acc;
      }
    ck_assert_msg(first_bad_element(C, D, A, B, s) < 0, "OpenBLAS %dx%dx%d (seed %llu)", s.m,
                  s.n, s.k, (unsigned long long)seed);
    ck_assert_msg(cg_rel_error(C, D, nc) <= cg_matmul_tolerance(s.k), "OpenBLAS %dx%dx%d", s.m,
                  s.n, s.k);
    free(A), free(B), free(C), free(D);
  }
}
END_TEST

START_TEST(test_rel_error_and_tolerance) {
  const float ref[] = {3, 4}, same[] = {3, 4}, off[] = {3, 5}, nan[] = {3, NAN};
  const float zero[] = {0, 0}, small[] = {0.3f, 0.4f};
  ck_assert_double_eq(cg_rel_error(same, ref, 2), 0);
  ck_assert_double_eq_tol(cg_rel_error(off, ref, 2), 1.0 / 5.0, 1e-12);
  ck_assert(isnan(cg_rel_error(nan, ref, 2))); /* a poisoned element never passes */
  ck_assert(!(cg_rel_error(nan, ref, 2) <= cg_matmul_tolerance(1)));
  ck_assert_double_eq_tol(cg_rel_error(small, zero, 2), 0.5, 1e-7); /* zero reference: ||out|| */
  ck_assert_double_eq(cg_rel_error(zero, zero, 2), 0);

  ck_assert_double_eq(cg_matmul_tolerance(1), 1e-6);
  ck_assert_double_eq_tol(cg_matmul_tolerance(1000), 2000.0 * FLT_EPSILON, 1e-15);
  for (int k = 1; k < 100000; k = k * 3 + 1)
    ck_assert(cg_matmul_tolerance(k) <= cg_matmul_tolerance(k * 3 + 1));
}
END_TEST

Suite *cg_matmul_suite(void) {
  Suite *s = suite_create("matmul");
  TCase *tc = tcase_create("backend_ops");
  tcase_set_timeout(tc, CG_TEST_OPENCL_TIMEOUT);
  tcase_add_loop_test(tc, test_backend_ops, 0, combo_count());
  suite_add_tcase(s, tc);

  tc = tcase_create("workload");
  tcase_set_timeout(tc, CG_TEST_OPENCL_TIMEOUT);
  tcase_add_loop_test(tc, test_workload_records, 0, combo_count());
  tcase_add_loop_test(tc, test_workload_every_backend, 0, device_count());
  tcase_add_loop_test(tc, test_loop_limit, 0, device_count());
  tcase_add_test(tc, test_workload_without_device);
  suite_add_tcase(s, tc);

  tc = tcase_create("kernel_config");
  tcase_set_timeout(tc, CG_TEST_OPENCL_TIMEOUT);
  tcase_add_loop_test(tc, test_kernel_config_prepare, 0, cl_combo_count());
  tcase_add_loop_test(tc, test_kernel_override_records, 0, device_count());
  tcase_add_loop_test(tc, test_pipelined_overrides, 0, device_count());
  tcase_add_loop_test(tc, test_kernel_override_invalid, 0, device_count());
  tcase_add_loop_test(tc, test_kernel_dir, 0, device_count());
  tcase_add_loop_test(tc, test_binary_cache, 0, device_count());
  suite_add_tcase(s, tc);

  tc = tcase_create("validate");
  tcase_set_timeout(tc, CG_TEST_OPENCL_TIMEOUT);
  tcase_add_test(tc, test_validate_values);
  tcase_add_test(tc, test_validate_names);
  tcase_add_test(tc, test_validate_device_limits);
  suite_add_tcase(s, tc);

  tc = tcase_create("registry_and_reference");
  tcase_add_test(tc, test_registry);
  tcase_add_test(tc, test_reference);
  tcase_add_test(tc, test_rel_error_and_tolerance);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return cg_test_main(cg_matmul_suite, true); }
