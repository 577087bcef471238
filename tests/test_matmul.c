/* Check suite of the backends and the matmul workload: every backend and variant on every device,
 * on fresh random inputs of awkward shapes, against OpenBLAS; poisoned outputs; validation of the
 * configuration; the backend registry; the reference and its error measure. */
#include <cblas.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clgauge/backend.h"
#include "clgauge/device.h"
#include "clgauge/matmul.h"
#include "clgauge/random.h"
#include "clgauge/reference.h"
#include "clgauge/report.h"
#include "test_util.h"

typedef struct shape {
  int m, n, k;
} shape;

/* (m, n, k): degenerate, odd, prime, one-wide, tall and skinny, and a power of two. */
static const shape shapes[] = {{1, 1, 1},     {17, 31, 7},  {2, 3, 5},    {65, 33, 129},
                               {100, 1, 100}, {1, 100, 37}, {257, 3, 19}, {128, 128, 128}};
enum { NSHAPES = sizeof shapes / sizeof shapes[0] };

/* ---- what each looped test runs: (device, backend, variant) ---- */

static const char *const *matmul_variants(const cg_backend *b) {
  return b->matmul ? b->matmul->variants : NULL;
}

typedef cg_test_combo combo;
static int combo_count(void) { return cg_test_combo_count(matmul_variants, true); }
static combo combo_at(int index) { return cg_test_combo_at(matmul_variants, index, true); }
#define combo_name cg_test_combo_name

/* ---- helpers ---- */

static float *random_matrix(cg_rng *rng, size_t n) {
  float *x = malloc(n * sizeof *x);
  ck_assert_ptr_nonnull(x);
  cg_rng_fill_normal(rng, x, n);
  return x;
}

static float *filled(size_t n, float value) {
  float *x = malloc(n * sizeof *x);
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


/* ---- every backend and variant through its ops, on every device ---- */

START_TEST(test_backend_ops) {
  const combo c = combo_at(_i);
  const cg_matmul_ops *ops = c.backend->matmul;
  cg_device_list list = {0};
  cg_device *dev = NULL;
  cg_error err = {0};
  char name[400];
  if (c.device >= 0) {
    cg_test_devices(&list);
    ck_assert_msg(c.device < list.count, "device %d of %d", c.device, list.count);
    ck_assert_msg(cg_device_open(&list.items[c.device], &dev, &err) == CG_OK, "%s", err.msg);
  }
  combo_name(&c, &list, name, sizeof name);
  const cg_backend_env env = {.device = dev};
  const uint64_t seed = cg_test_seed();
  cg_rng rng;
  cg_rng_seed(&rng, seed);

  for (int si = 0; si < NSHAPES; ++si) {
    const shape s = shapes[si];
    const cg_matmul_shape ms = {s.m, s.n, s.k};
    const size_t na = (size_t)s.m * s.k, nb = (size_t)s.k * s.n, nc = (size_t)s.m * s.n;
    void *state = NULL;
    cg_compile_info compile = {-1, NULL};
    cg_rc rc = ops->prepare(&env, c.variant, ms, &state, &compile, &err);
    ck_assert_msg(rc == CG_OK, "%s, %dx%dx%d: prepare: rc %d: %s", name, s.m, s.n, s.k, rc,
                  err.msg);
    ck_assert_ptr_nonnull(compile.kind);
    ck_assert_msg(strcmp(compile.kind, "source") == 0 ? isfinite(compile.ms) && compile.ms >= 0
                                                      : isnan(compile.ms),
                  "%s: compile kind %s with %g ms", name, compile.kind, compile.ms);

    /* C is poisoned before anything runs: unwritten elements read back as NaN. */
    float *C = filled(nc, 1234.5f);
    ck_assert_msg(ops->download(state, C, &err) == CG_OK, "%s: download: %s", name, err.msg);
    for (size_t e = 0; e < nc; ++e)
      ck_assert_msg(isnan(C[e]), "%s, %dx%dx%d: C[%zu] = %g before any product: not poisoned",
                    name, s.m, s.n, s.k, e, C[e]);

    /* Two rounds of fresh inputs; the second runs 3 products, which must overwrite C, not
     * accumulate, and must not show the first round's result. */
    for (int round = 0; round < 2; ++round) {
      float *A = random_matrix(&rng, na), *B = random_matrix(&rng, nb), *ref = filled(nc, 0);
      cg_ref_sgemm(s.m, s.n, s.k, A, B, ref);
      ck_assert_msg(ops->upload(state, A, B, &err) == CG_OK, "%s: upload: %s", name, err.msg);
      cg_device_span span = {0};
      int launches = -99;
      const int products = round == 0 ? 1 : 3;
      ck_assert_msg(ops->enqueue(state, products, &span, &launches, &err) == CG_OK,
                    "%s, %dx%dx%d: enqueue: %s", name, s.m, s.n, s.k, err.msg);
      ck_assert_msg(ops->finish(state, &err) == CG_OK, "%s: finish: %s", name, err.msg);
      if (c.device >= 0 && list.items[c.device].profiling)
        ck_assert_msg(span.begin && span.end, "%s: no events bound the work", name);
      if (c.device < 0) ck_assert_msg(!span.begin && !span.end, "%s: events on the host", name);
      ck_assert_msg(launches == -1 || launches >= 1, "%s: %d launches", name, launches);
      cg_device_span_release(&span);

      for (size_t e = 0; e < nc; ++e) C[e] = 1234.5f;
      ck_assert_msg(ops->download(state, C, &err) == CG_OK, "%s: download: %s", name, err.msg);
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
    ops->release(state);
  }
  cg_device_close(dev);
  cg_device_list_free(&list);
}
END_TEST

/* ---- the workload: records through cg_matmul_run ---- */

typedef struct progress_log {
  int calls, starts, last_index, last_total, last_runs;
} progress_log;

/* Called when a record starts (no runs yet) and after each of its timed runs. */
static void on_progress(void *ctx, int index, int total, const cg_record *rec) {
  progress_log *log = ctx;
  log->calls++;
  log->starts += rec->nruns == 0;
  log->last_index = index;
  log->last_total = total;
  log->last_runs = rec->nruns;
}

START_TEST(test_workload_records) {
  const combo c = combo_at(_i);
  cg_device_list list = {0};
  const cg_device_info *info = NULL;
  char name[400];
  if (c.device >= 0) {
    cg_test_devices(&list);
    info = &list.items[c.device];
  }
  combo_name(&c, &list, name, sizeof name);
  static const shape run_shapes[] = {{17, 31, 7}, {65, 33, 129}, {1, 1, 1}};
  for (int si = 0; si < 3; ++si) {
    const shape s = run_shapes[si];
    const char *backends[] = {c.backend->name, NULL}, *variants[] = {c.variant, NULL};
    cg_matmul_config cfg;
    cg_matmul_defaults(&cfg);
    cfg.m = s.m, cfg.n = s.n, cfg.k = s.k;
    cfg.loops = 1;
    cfg.runs = si == 2 ? 3 : 2;
    cfg.warmup = si == 2 ? 1 : 0;
    cfg.seed = cg_test_seed();
    cfg.backends = backends;
    cfg.variants = variants;
    cg_error err = {0};
    ck_assert_msg(cg_matmul_validate(&cfg, info, &err) == CG_OK, "%s: %s", name, err.msg);
    cg_report report;
    cg_report_init(&report, 0, NULL);
    progress_log log = {0, 0, -1, -1, -1};
    ck_assert_msg(cg_matmul_run(&cfg, info, &report, on_progress, &log, &err) == CG_OK, "%s: %s",
                  name, err.msg);
    ck_assert_int_eq(report.count, 1);
    ck_assert_int_eq(log.starts, 1);
    ck_assert_int_eq(log.calls, 1 + cfg.runs);
    ck_assert_int_eq(log.last_runs, cfg.runs);
    ck_assert_int_eq(log.last_index, 0);
    ck_assert_int_eq(log.last_total, 1);
    const cg_record *r = &report.records[0];
    ck_assert_msg(r->status == CG_STATUS_OK, "%s, %dx%dx%d: status %s: %s (seed %llu)", name,
                  s.m, s.n, s.k, cg_status_name(r->status), r->reason,
                  (unsigned long long)cfg.seed);
    ck_assert_str_eq(r->workload, "matmul");
    ck_assert_str_eq(r->backend, c.backend->name);
    ck_assert_str_eq(r->variant, c.variant);
    ck_assert_msg(r->verify_error <= cg_matmul_tolerance(s.k),
                  "%s: relative error %g (seed %llu)", name, r->verify_error,
                  (unsigned long long)cfg.seed);
    ck_assert_double_eq(r->verify_tolerance, cg_matmul_tolerance(s.k));
    ck_assert_int_eq(r->nruns, cfg.runs);
    ck_assert_int_eq(r->steady_complete.n, cfg.runs - 1);
    ck_assert_int_eq(r->iters_per_run, 1);
    ck_assert_double_eq(r->flops_per_iter, 2.0 * s.m * s.n * s.k);
    ck_assert_double_eq(cg_record_param(r, "m"), s.m);
    ck_assert_double_eq(cg_record_param(r, "n"), s.n);
    ck_assert_double_eq(cg_record_param(r, "k"), s.k);
    ck_assert_double_eq(cg_record_param(r, "seed"), (double)cfg.seed);
    ck_assert_msg(isfinite(r->upload_ms) && isfinite(r->download_ms) &&
                      isfinite(r->first.complete_ms) && isfinite(r->steady_complete.median) &&
                      isfinite(r->host_cpu_ms) && isfinite(r->host_wall_ms),
                  "%s: a phase of an ok record is not measured", name);
    for (int i = 0; i < r->nruns; ++i)
      ck_assert_msg(r->runs[i].enqueue_ms <= r->runs[i].complete_ms,
                    "%s: run %d enqueued in %g ms, completed in %g", name, i,
                    r->runs[i].enqueue_ms, r->runs[i].complete_ms);
    ck_assert_double_eq(r->first.complete_ms, r->runs[0].complete_ms);
    if (isfinite(r->steady_device.median))
      ck_assert_msg(r->steady_device.median <= r->steady_complete.max + 1.0,
                    "%s: device %g ms, wall %g ms", name, r->steady_device.median,
                    r->steady_complete.max);
    else
      ck_assert_msg(r->device_time_why[0] != '\0', "%s: no device time and no reason", name);
    if (c.device >= 0) {
      ck_assert_str_eq(r->device, info->name);
      ck_assert_msg(!r->host_backend && isfinite(r->init_ms), "%s: init not measured", name);
    } else {
      ck_assert_msg(r->host_backend && isnan(r->init_ms), "%s: host record", name);
    }
    cg_report_free(&report);
  }
  cg_device_list_free(&list);
}
END_TEST

/* Without a device the OpenCL records are skipped and the host ones still run. */
START_TEST(test_workload_without_device) {
  cg_matmul_config cfg;
  cg_matmul_defaults(&cfg);
  cfg.m = 5, cfg.n = 6, cfg.k = 7;
  cfg.loops = 1, cfg.runs = 2;
  cfg.seed = cg_test_seed();
  cg_report report;
  cg_report_init(&report, 0, NULL);
  cg_error err = {0};
  ck_assert_int_eq(cg_matmul_validate(&cfg, NULL, &err), CG_OK);
  ck_assert_int_eq(cg_matmul_run(&cfg, NULL, &report, NULL, NULL, &err), CG_OK);
  ck_assert_int_eq(report.count, cg_test_variant_count(matmul_variants, false) + cg_test_variant_count(matmul_variants, true));
  for (int i = 0; i < report.count; ++i) {
    const cg_record *r = &report.records[i];
    const cg_backend *b = cg_backend_find(r->backend);
    ck_assert_ptr_nonnull(b);
    if (b->uses_opencl) {
      ck_assert_int_eq(r->status, CG_STATUS_SKIPPED);
      ck_assert_msg(strstr(r->reason, "no OpenCL device") != NULL, "reason: %s", r->reason);
    } else {
      ck_assert_msg(r->status == CG_STATUS_OK, "%s: %s", r->backend, r->reason);
    }
  }
  cg_report_free(&report);
}
END_TEST

/* ---- validation ---- */

static void expect_bad_err(const cg_matmul_config *cfg, const cg_device_info *info,
                           const char *named, cg_error *out) {
  cg_error err = {0};
  cg_rc rc = cg_matmul_validate(cfg, info, &err);
  if (out) *out = err;
  ck_assert_msg(rc == CG_BAD_INPUT, "expected CG_BAD_INPUT naming '%s', got rc %d", named, rc);
  ck_assert_msg(strstr(err.msg, named) != NULL, "'%s' not named in: %s", named, err.msg);
  ck_assert_msg(strchr(err.msg, '\n') == NULL, "not one line: %s", err.msg);
}

static void expect_bad(const cg_matmul_config *cfg, const cg_device_info *info,
                       const char *named) {
  expect_bad_err(cfg, info, named, NULL);
}

static void small_config(cg_matmul_config *cfg) {
  cg_matmul_defaults(cfg);
  cfg->m = 4, cfg->n = 5, cfg->k = 6;
}

START_TEST(test_validate_values) {
  cg_matmul_config cfg;
  cg_error err = {0};
  cg_matmul_defaults(&cfg);
  ck_assert_msg(cg_matmul_validate(&cfg, NULL, &err) == CG_OK, "defaults: %s", err.msg);
  ck_assert_int_eq(cfg.m, 1000);
  ck_assert_int_eq(cfg.loops, 10);
  ck_assert_int_eq(cfg.runs, 10);

  small_config(&cfg), cfg.m = 0, expect_bad(&cfg, NULL, "--m 0");
  small_config(&cfg), cfg.n = -3, expect_bad(&cfg, NULL, "--n -3");
  small_config(&cfg), cfg.k = CG_MATMUL_MAX_DIM + 1, expect_bad(&cfg, NULL, "--k 1048577");
  small_config(&cfg), cfg.loops = 0, expect_bad(&cfg, NULL, "--loops 0");
  small_config(&cfg), cfg.runs = 0, expect_bad(&cfg, NULL, "--runs 0");
  small_config(&cfg), cfg.warmup = -1, expect_bad(&cfg, NULL, "--warmup -1");
  small_config(&cfg), cfg.warmup = 0;
  ck_assert_int_eq(cg_matmul_validate(&cfg, NULL, &err), CG_OK);
  small_config(&cfg), cfg.m = cfg.n = cfg.k = CG_MATMUL_MAX_DIM;
  ck_assert_int_eq(cg_matmul_validate(&cfg, NULL, &err), CG_OK); /* no device: no size limit */
}
END_TEST

START_TEST(test_validate_names) {
  cg_matmul_config cfg;
  cg_error err = {0};
  const char *foo[] = {"foo", NULL}, *cpu[] = {"cpu", NULL}, *tiled[] = {"tiled", NULL};
  const char *cpu_foo[] = {"cpu", "foo", NULL};
  small_config(&cfg), cfg.backends = foo, expect_bad(&cfg, NULL, "'foo'");
  small_config(&cfg), cfg.backends = cpu_foo, expect_bad(&cfg, NULL, "'foo'");
  small_config(&cfg), cfg.variants = foo, expect_bad(&cfg, NULL, "'foo'");
  /* A variant that exists, but not in a selected backend. */
  small_config(&cfg), cfg.backends = cpu, cfg.variants = tiled, expect_bad(&cfg, NULL, "'tiled'");
  small_config(&cfg), cfg.variants = tiled;
  ck_assert_msg(cg_matmul_validate(&cfg, NULL, &err) == CG_OK, "%s", err.msg);
  /* Every backend and variant name is accepted on its own. */
  for (const cg_backend *const *b = cg_backend_all(); *b; ++b) {
    if (!(*b)->matmul) continue;
    for (const char *const *v = (*b)->matmul->variants; *v; ++v) {
      const char *bs[] = {(*b)->name, NULL}, *vs[] = {*v, NULL};
      small_config(&cfg), cfg.backends = bs, cfg.variants = vs;
      ck_assert_msg(cg_matmul_validate(&cfg, NULL, &err) == CG_OK, "%s/%s: %s", (*b)->name, *v,
                    err.msg);
    }
  }
}
END_TEST

START_TEST(test_validate_device_limits) {
  cg_device_list list;
  cg_test_devices(&list);
  for (int i = 0; i < list.count; ++i) {
    const cg_device_info *info = &list.items[i];
    cg_matmul_config cfg;
    cg_error err = {0};
    /* The smallest square size whose matrices each exceed the maximum allocation. */
    int n = (int)ceil(sqrt((double)info->max_alloc / 4.0)) + 1;
    ck_assert_int_le(n, CG_MATMUL_MAX_DIM);
    small_config(&cfg), cfg.m = cfg.n = cfg.k = n;
    char named[64];
    snprintf(named, sizeof named, "--n %d", n); /* square: the option that set it */
    expect_bad_err(&cfg, info, named, &err);
    ck_assert_msg(strstr(err.msg, info->name) != NULL, "device not named: %s", err.msg);
    /* Only A too big: tall A, narrow B and C. */
    small_config(&cfg), cfg.m = (int)(info->max_alloc / 4 / 1024) + 1, cfg.k = 1024, cfg.n = 1;
    if (cfg.m <= CG_MATMUL_MAX_DIM) {
      snprintf(named, sizeof named, "--m %d --n %d --k %d", cfg.m, cfg.n, cfg.k);
      expect_bad(&cfg, info, named);
    }
    /* Host backends alone need no device memory. */
    const char *cpu[] = {"cpu", NULL};
    small_config(&cfg), cfg.m = cfg.n = cfg.k = n, cfg.backends = cpu;
    ck_assert_int_eq(cg_matmul_validate(&cfg, info, &err), CG_OK);
    /* Something that fits is fine. */
    small_config(&cfg);
    ck_assert_msg(cg_matmul_validate(&cfg, info, &err) == CG_OK, "%s", err.msg);
  }
  cg_device_list_free(&list);
}
END_TEST

/* ---- the registry ---- */

START_TEST(test_registry) {
  const cg_backend *const *all = cg_backend_all();
  int n = 0, host = 0;
  for (const cg_backend *const *b = all; *b; ++b, ++n) {
    ck_assert_ptr_eq(cg_backend_find((*b)->name), *b);
    ck_assert_msg((*b)->summary && *(*b)->summary, "%s has no summary", (*b)->name);
    for (const cg_backend *const *o = all; o != b; ++o)
      ck_assert_msg(strcmp((*o)->name, (*b)->name) != 0, "two backends named %s", (*b)->name);
    host += !(*b)->uses_opencl;
    if (!(*b)->matmul) continue;
    const char *const *v = (*b)->matmul->variants;
    ck_assert_msg(v && v[0], "%s has no variant", (*b)->name);
    for (int i = 0; v[i]; ++i) {
      ck_assert_int_eq(cg_variant_index(v, v[i]), i);
      const cg_matmul_ops *ops = (*b)->matmul;
      ck_assert_msg(ops->prepare && ops->upload && ops->enqueue && ops->finish &&
                        ops->download && ops->release,
                    "%s: an op is missing", (*b)->name);
    }
    ck_assert_int_eq(cg_variant_index(v, "no-such-variant"), -1);
  }
  ck_assert_int_ge(n, 3);
  ck_assert_int_ge(host, 1); /* the reference */
  ck_assert_ptr_null(cg_backend_find("no-such-backend"));
  ck_assert_ptr_nonnull(cg_backend_find("cpu"));
  ck_assert_int_eq(cg_variant_index(NULL, "x"), -1);

  const char *cl_only[] = {"cl", NULL}, *tiled[] = {"tiled", NULL};
  ck_assert(cg_backend_selected(NULL, cg_backend_find("clblast")));
  ck_assert(cg_backend_selected(cl_only, cg_backend_find("cl")));
  ck_assert(!cg_backend_selected(cl_only, cg_backend_find("cpu")));
  /* --variant tiled narrows the cl backend and leaves single-variant backends alone. */
  const char *const *clv = cg_backend_find("cl")->matmul->variants;
  const char *const *cpuv = cg_backend_find("cpu")->matmul->variants;
  ck_assert(cg_variant_selected(tiled, clv, "tiled"));
  ck_assert(!cg_variant_selected(tiled, clv, "naive"));
  ck_assert(cg_variant_selected(tiled, cpuv, cpuv[0]));
  ck_assert(cg_variant_selected(NULL, clv, "naive"));
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
  tcase_add_test(tc, test_workload_without_device);
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
