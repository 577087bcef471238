/* Check suite of the saxpy workload: every implementation and variant on every device against the
 * host reference at awkward n, on fresh random data with poisoned outputs; the engine end to end;
 * validation against the device's limits; the kernel configuration and its override; the
 * registration; the reference and its tolerance. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clgauge/backend.h"
#include "clgauge/device.h"
#include "clgauge/engine.h"
#include "clgauge/kernel_config.h"
#include "clgauge/random.h"
#include "clgauge/reference.h"
#include "clgauge/report.h"
#include "clgauge/saxpy.h"
#include "clgauge/workload.h"
#include "clgauge/sizes.h"
#include "test_util.h"

/* One, two and three (tail only), seven and 31 (a float4 plus a tail), 1023 and 4097 (around a
 * power of two), and a prime above 10^5. */
static const int awkward_n[] = {1, 2, 3, 7, 31, 1023, 4097, 100003};
enum { NAWKWARD = sizeof awkward_n / sizeof awkward_n[0] };

typedef cg_test_combo combo;
static int combo_count(void) { return cg_test_combo_count("saxpy", true); }
static combo combo_at(int index) { return cg_test_combo_at("saxpy", index, true); }
static int device_count(void) {
  const int n = cg_test_device_count();
  return n > 0 ? n : 0;
}

/* ---- data, reference and checks ---- */

static float *filled(size_t n, float value) {
  float *v = malloc((n ? n : 1) * sizeof *v);
  ck_assert_ptr_nonnull(v);
  for (size_t i = 0; i < n; ++i) v[i] = value;
  return v;
}

static float *random_vector(cg_rng *rng, size_t n) {
  float *v = filled(n, 0);
  cg_rng_fill_normal(rng, v, n);
  return v;
}

/* Every element within the rounding of `updates` fp32 updates on each side:
 * |out - ref| <= eps * T * (|y0| + (T+3)/2 * |a x|), written here element by element, so that a
 * single wrong element (a tail the kernel skipped) shows however long the vector. Returns the
 * index of the first bad element, or -1. */
static long first_bad_element(const float *out, const float *ref, const float *x, const float *y0,
                              float a, double updates, size_t n) {
  const double T = updates;
  for (size_t i = 0; i < n; ++i) {
    const double bound =
        FLT_EPSILON * T * (fabs((double)y0[i]) + (T + 3) / 2 * fabs((double)a * x[i])) + 1e-30;
    if (!(fabs((double)out[i] - ref[i]) <= bound)) return (long)i;
  }
  return -1;
}

/* The host reference: `updates` updates of a copy of y0. */
static float *reference(const float *x, const float *y0, float a, int updates, size_t n) {
  float *ref = filled(n, 0);
  memcpy(ref, y0, n * sizeof *ref);
  for (int t = 0; t < updates; ++t) cg_ref_saxpy((int)n, a, x, ref);
  return ref;
}

/* The combo's device opened through its backend, as the engine opens it; NULL on the host. */
static void *open_combo(const combo *c, cg_device_list *list) {
  void *device = NULL;
  if (c->device < 0) return NULL;
  const cg_device_info *info = cg_test_device_at(list, c->device);
  const char *why = NULL;
  cg_error err = {0};
  ck_assert_msg(c->backend->open(info, &device, &why, &err) == CG_OK, "open: %s", err.msg);
  return device;
}

static const cg_kernel_param *find_param(const cg_kernel_config *k, const char *name) {
  for (int i = 0; i < k->nparams; ++i)
    if (strcmp(k->params[i].name, name) == 0) return &k->params[i];
  return NULL;
}

/* Download into a poisoned buffer and compare with the reference after `updates` updates. */
static void check_result(const cg_impl *impl, void *state, const char *name, const float *x,
                         const float *y0, float a, int updates, size_t n, uint64_t seed) {
  cg_error err = {0};
  float *out = filled(n, NAN);
  cg_saxpy_outputs outputs = {out};
  ck_assert_msg(impl->download(state, &outputs, &err) == CG_OK, "%s: download: %s", name,
                err.msg);
  float *ref = reference(x, y0, a, updates, n);
  const double rel = cg_rel_error(out, ref, n);
  const double tol = cg_saxpy_tolerance(n, a, x, y0, ref, updates);
  ck_assert_msg(rel <= tol,
                "%s, n %zu, a %g, %d updates: relative error %.3g over tolerance %.3g (seed %llu; "
                "y[0] = %g, reference %g)",
                name, n, a, updates, rel, tol, (unsigned long long)seed, out[0], ref[0]);
  const long bad = first_bad_element(out, ref, x, y0, a, updates, n);
  ck_assert_msg(bad < 0, "%s, n %zu, %d updates: y[%ld] is %g, reference %g (seed %llu)", name, n,
                updates, bad, bad < 0 ? 0 : out[bad], bad < 0 ? 0 : ref[bad],
                (unsigned long long)seed);
  free(ref);
  free(out);
}

/* One run of `iters` updates through the implementation; checks what finish reports. */
static void run_once(const combo *c, void *state, const char *name, int index, int iters,
                     bool profiling) {
  cg_error err = {0};
  const cg_run run = {index, iters, index == 0 ? CG_RUN_FIRST : CG_RUN_STEADY, NULL};
  ck_assert_msg(c->impl->enqueue(state, &run, &err) == CG_OK, "%s: enqueue: %s", name, err.msg);
  cg_run_result res;
  cg_run_result_init(&res);
  ck_assert_msg(c->impl->finish(state, &res, &err) == CG_OK, "%s: finish: %s", name, err.msg);
  ck_assert_msg(res.launches == -1 || res.launches >= 1, "%s: %d launches", name, res.launches);
  if (strcmp(c->backend->name, "cl") == 0) ck_assert_int_eq(res.launches, 1);
  if (c->device < 0) {
    ck_assert_msg(isnan(res.device_ms) && !res.device_why, "%s: device time on the host", name);
  } else if (profiling) {
    ck_assert_msg(res.device_why || (isfinite(res.device_ms) && res.device_ms >= 0),
                  "%s: device time %g ms without a reason", name, res.device_ms);
  }
}

/* ---- every implementation and variant, on every device, at awkward n ---- */

START_TEST(test_impl_awkward_n) {
  const combo c = combo_at(_i);
  cg_device_list list = {0};
  void *device = open_combo(&c, &list);
  const bool profiling = c.device >= 0 && list.items[c.device].profiling;
  char name[400];
  cg_test_combo_name(&c, &list, name, sizeof name);
  const cg_backend_env env = {.device = device};
  const uint64_t seed = cg_test_seed();
  cg_rng rng;
  cg_rng_seed(&rng, seed);
  cg_error err = {0};

  for (int k = 0; k < NAWKWARD; ++k) {
    const size_t n = (size_t)awkward_n[k];
    const float a = (float)(3.0 * cg_rng_normal(&rng));
    const cg_saxpy_problem problem = {(int)n, a};
    void *state = NULL;
    cg_prepared prepared = {.compile_ms = NAN, .compile_kind = "none"};
    cg_rc rc = c.impl->prepare(&env, c.variant, NULL, &problem, &state, &prepared, &err);
    ck_assert_msg(rc == CG_OK, "%s, n %zu: prepare: rc %d: %s", name, n, rc, err.msg);
    ck_assert_msg(strcmp(prepared.compile_kind, "source") == 0 ||
                          strcmp(prepared.compile_kind, "cache") == 0 ||
                          strcmp(prepared.compile_kind, "library") == 0
                      ? isfinite(prepared.compile_ms) && prepared.compile_ms >= 0
                      : isnan(prepared.compile_ms),
                  "%s: compile kind %s with %g ms", name, prepared.compile_kind,
                  prepared.compile_ms);
    if (c.impl->kernel_params) {
      const cg_kernel_param *wg = find_param(&prepared.config, "WG");
      ck_assert_msg(wg && wg->value >= 1, "%s: no work-group size in the config", name);
      char opt[32];
      snprintf(opt, sizeof opt, "-DWG=%d", wg->value);
      ck_assert_str_eq(prepared.config.build_options, opt);
    } else {
      ck_assert_int_eq(prepared.config.nparams, 0);
    }

    /* y is poisoned before anything is uploaded: a download shows NaN everywhere. */
    float *out = filled(n, 1234.5f);
    cg_saxpy_outputs outputs = {out};
    ck_assert_msg(c.impl->download(state, &outputs, &err) == CG_OK, "%s: download: %s", name,
                  err.msg);
    for (size_t e = 0; e < n; ++e)
      ck_assert_msg(isnan(out[e]), "%s, n %zu: y[%zu] = %g before the upload: not poisoned", name,
                    n, e, out[e]);
    free(out);

    /* Round 0: one run of one update, then two runs of three on the same y (7 updates in all,
     * each run continuing from the last). Round 1: fresh inputs replace y, then two updates. */
    for (int round = 0; round < 2; ++round) {
      float *x = random_vector(&rng, n), *y0 = random_vector(&rng, n);
      const cg_saxpy_inputs in = {x, y0};
      ck_assert_msg(c.impl->upload(state, &in, &err) == CG_OK, "%s: upload: %s", name, err.msg);
      if (round == 0) {
        run_once(&c, state, name, 0, 1, profiling);
        check_result(c.impl, state, name, x, y0, a, 1, n, seed);
        run_once(&c, state, name, 1, 3, profiling);
        run_once(&c, state, name, 2, 3, profiling);
        check_result(c.impl, state, name, x, y0, a, 7, n, seed);
      } else {
        run_once(&c, state, name, 3, 2, profiling);
        check_result(c.impl, state, name, x, y0, a, 2, n, seed);
      }
      free(x);
      free(y0);
    }
    c.impl->release(state);
  }
  if (device) c.backend->close(device);
  cg_device_list_free(&list);
}
END_TEST

/* upload copies y: the caller's starting vector stays as it was. */
START_TEST(test_impl_inputs_unchanged) {
  const combo c = combo_at(_i);
  cg_device_list list = {0};
  void *device = open_combo(&c, &list);
  char name[400];
  cg_test_combo_name(&c, &list, name, sizeof name);
  const cg_backend_env env = {.device = device};
  const uint64_t seed = cg_test_seed();
  cg_rng rng;
  cg_rng_seed(&rng, seed);
  cg_error err = {0};
  const size_t n = 4097;
  const cg_saxpy_problem problem = {(int)n, 2.0f};
  void *state = NULL;
  cg_prepared prepared = {.compile_ms = NAN, .compile_kind = "none"};
  ck_assert_msg(c.impl->prepare(&env, c.variant, NULL, &problem, &state, &prepared, &err) ==
                    CG_OK,
                "%s: prepare: %s", name, err.msg);
  float *x = random_vector(&rng, n), *y0 = random_vector(&rng, n);
  float *x_copy = filled(n, 0), *y_copy = filled(n, 0);
  memcpy(x_copy, x, n * sizeof *x);
  memcpy(y_copy, y0, n * sizeof *y0);
  const cg_saxpy_inputs in = {x, y0};
  ck_assert_msg(c.impl->upload(state, &in, &err) == CG_OK, "%s: upload: %s", name, err.msg);
  run_once(&c, state, name, 0, 2, false);
  check_result(c.impl, state, name, x, y0, 2.0f, 2, n, seed);
  ck_assert_msg(memcmp(x, x_copy, n * sizeof *x) == 0, "%s: x was written", name);
  ck_assert_msg(memcmp(y0, y_copy, n * sizeof *y0) == 0, "%s: the input y was written", name);
  c.impl->release(state);
  free(x), free(y0), free(x_copy), free(y_copy);
  if (device) c.backend->close(device);
  cg_device_list_free(&list);
}
END_TEST

/* ---- the engine end to end ---- */

static void set(cg_job *job, const char *name, double value) {
  cg_error err = {0};
  ck_assert_msg(cg_params_set(&job->params, name, value, &err) == CG_OK, "%s: %s", name, err.msg);
}

/* A small job: n, runs 3 (run 0 and two steady), loops 2, one warm-up: 8 updates in all. */
static void small_job(cg_job *job, int n) {
  cg_job_init(job, &cg_workload_saxpy);
  set(job, "n", n);
  set(job, "runs", 3);
  set(job, "loops", 2);
  set(job, "warmup", 1);
}

/* Run the job on the selection; the report holds its records. */
static void run_job(const cg_job *job, const cg_selection *sel, const cg_device_info *info,
                    cg_report *report) {
  cg_error err = {0};
  ck_assert_msg(cg_engine_validate(job, sel, info, &err) == CG_OK, "validate: %s", err.msg);
  cg_report_init(report, 0, NULL);
  ck_assert_msg(cg_engine_run(job, sel, info, report, NULL, NULL, &err) == CG_OK, "run: %s",
                err.msg);
}

/* What every ok saxpy record of small_job shows. */
static void check_record(const cg_record *r, int n, const char *what, uint64_t seed) {
  ck_assert_msg(r->status == CG_STATUS_OK, "%s, n %d: status %s: %s (seed %llu)", what, n,
                cg_status_name(r->status), r->reason, (unsigned long long)seed);
  ck_assert_str_eq(r->workload, "saxpy");
  ck_assert_double_eq(r->flops_per_iter, 2.0 * n);
  ck_assert_double_eq(r->bytes_per_iter, 12.0 * n);
  ck_assert_int_eq(r->iters_per_run, 2);
  ck_assert_int_eq(r->nruns, 3);
  ck_assert_int_eq(r->steady_complete.n, 2);
  ck_assert_double_eq(cg_record_param(r, "n"), n);
  ck_assert_double_eq(cg_record_param(r, "a"), 2);
  ck_assert_double_eq(cg_record_param(r, "loops"), 2);
  ck_assert_double_eq(cg_record_param(r, "seed"), (double)seed);
  ck_assert_msg(isfinite(r->upload_ms) && isfinite(r->download_ms) &&
                    isfinite(r->first.complete_ms) && isfinite(r->steady_complete.median),
                "%s: a phase of an ok record is not measured", what);
  if (r->reference) return; /* its result is the reference */
  ck_assert_msg(isfinite(r->verify_tolerance) && r->verify_tolerance > 0, "%s: tolerance %g",
                what, r->verify_tolerance);
  ck_assert_msg(r->verify_error <= r->verify_tolerance,
                "%s, n %d: relative error %g over %g (seed %llu)", what, n, r->verify_error,
                r->verify_tolerance, (unsigned long long)seed);
  if (strcmp(r->backend, "cl") == 0) ck_assert_int_eq(r->launches_per_iter, 1);
}

/* Each implementation alone: the non-reference ones are verified against the host reference
 * that the descriptor computes itself. */
START_TEST(test_engine_each) {
  const combo c = combo_at(_i);
  cg_device_list list = {0};
  const cg_device_info *info = NULL;
  if (c.device >= 0) {
    info = cg_test_device_at(&list, c.device);
  }
  char name[400];
  cg_test_combo_name(&c, &list, name, sizeof name);
  static const int sizes[] = {1, 4097, 100003};
  for (int k = 0; k < 3; ++k) {
    cg_job job;
    small_job(&job, sizes[k]);
    const char *backends[] = {c.backend->name, NULL}, *variants[] = {c.variant, NULL};
    const cg_selection sel = {.backends = backends, .variants = variants, .seed = cg_test_seed()};
    cg_report report;
    run_job(&job, &sel, info, &report);
    ck_assert_int_eq(report.count, 1);
    const cg_record *r = &report.records[0];
    check_record(r, sizes[k], name, sel.seed);
    ck_assert_str_eq(r->backend, c.backend->name);
    ck_assert_str_eq(r->variant, c.variant);
    if (c.device >= 0) ck_assert_str_eq(r->device, info->name);
    cg_report_free(&report);
  }
  cg_device_list_free(&list);
}
END_TEST

/* Every backend together on one device: the cpu result is the reference of the others. */
START_TEST(test_engine_all) {
  cg_device_list list = {0};
  const cg_device_info *info = cg_test_device_at(&list, _i);
  cg_job job;
  small_job(&job, 4097);
  const cg_selection sel = {.seed = cg_test_seed()};
  cg_report report;
  run_job(&job, &sel, info, &report);
  ck_assert_int_eq(report.count,
                   cg_test_variant_count("saxpy", false) + cg_test_variant_count("saxpy", true));
  ck_assert_msg(report.records[0].reference, "the first record is not the reference");
  for (int i = 0; i < report.count; ++i) {
    char what[320];
    snprintf(what, sizeof what, "%s/%s on %s", report.records[i].backend,
             report.records[i].variant, info->name);
    check_record(&report.records[i], 4097, what, sel.seed);
  }
  cg_report_free(&report);
  cg_device_list_free(&list);
}
END_TEST

/* Without a device the OpenCL records are skipped and the host one still runs. */
START_TEST(test_engine_without_device) {
  cg_job job;
  small_job(&job, 31);
  const cg_selection sel = {.seed = cg_test_seed()};
  cg_report report;
  run_job(&job, &sel, NULL, &report);
  ck_assert_int_eq(report.count,
                   cg_test_variant_count("saxpy", false) + cg_test_variant_count("saxpy", true));
  for (int i = 0; i < report.count; ++i) {
    const cg_record *r = &report.records[i];
    if (r->host_backend) {
      check_record(r, 31, r->backend, sel.seed);
    } else {
      ck_assert_int_eq(r->status, CG_STATUS_SKIPPED);
      ck_assert_msg(strstr(r->reason, "no OpenCL device") != NULL, "reason: %s", r->reason);
    }
  }
  cg_report_free(&report);
}
END_TEST

/* ---- validation ---- */

static void expect_bad(const cg_job *job, const cg_selection *sel, const cg_device_info *info,
                       const char *named) {
  cg_error err = {0};
  const cg_rc rc = cg_engine_validate(job, sel, info, &err);
  ck_assert_msg(rc == CG_BAD_INPUT, "expected CG_BAD_INPUT naming '%s', got rc %d", named, rc);
  ck_assert_msg(strstr(err.msg, named) != NULL, "'%s' not named in: %s", named, err.msg);
  ck_assert_msg(strchr(err.msg, '\n') == NULL, "not one line: %s", err.msg);
}

static void expect_ok(const cg_job *job, const cg_selection *sel, const cg_device_info *info) {
  cg_error err = {0};
  ck_assert_msg(cg_engine_validate(job, sel, info, &err) == CG_OK, "%s", err.msg);
}

/* Whether the host holds the job's four vectors of n floats. */
static bool validate_host_fits(const cg_job *job) {
  return 16.0 * cg_params_get(&job->params, "n") <= (double)cg_host_memory();
}

START_TEST(test_validate_values) {
  const cg_selection sel = {0};
  cg_job job;
  cg_error err = {0};
  cg_job_init(&job, &cg_workload_saxpy);
  expect_ok(&job, &sel, NULL);
  ck_assert_double_eq(cg_params_get(&job.params, "n"), 1 << 24);
  ck_assert_double_eq(cg_params_get(&job.params, "a"), 2);
  ck_assert_double_eq(cg_params_get(&job.params, "loops"), 10);
  ck_assert_double_eq(cg_params_get(&job.params, "runs"), 10);
  ck_assert_double_eq(cg_params_get(&job.params, "warmup"), 0);

  /* Through cg_params_set, as the command line sets them. */
  ck_assert_int_eq(cg_params_set(&job.params, "n", 0, &err), CG_BAD_INPUT);
  ck_assert_msg(strstr(err.msg, "--n 0") != NULL, "%s", err.msg);
  ck_assert_int_eq(cg_params_set(&job.params, "n", (double)CG_SAXPY_MAX_N + 1, &err),
                   CG_BAD_INPUT);
  ck_assert_msg(strstr(err.msg, "--n 2147483648") != NULL, "%s", err.msg);
  ck_assert_int_eq(cg_params_set(&job.params, "a", 1e7, &err), CG_BAD_INPUT);
  ck_assert_msg(strstr(err.msg, "--a 1e+07") != NULL, "%s", err.msg);

  /* Values set directly are checked by the engine's validation. */
  static const struct {
    const char *name;
    double value;
    const char *named;
  } bad[] = {{"n", 0, "--n 0"},         {"n", -5, "--n -5"},       {"n", 2.5, "--n 2.5"},
             {"a", NAN, "--a nan"},     {"loops", 0, "--loops 0"}, {"runs", 0, "--runs 0"},
             {"warmup", -1, "--warmup -1"}};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
    cg_job_init(&job, &cg_workload_saxpy);
    job.params.v[cg_params_index(&job.params, bad[i].name)] = bad[i].value;
    expect_bad(&job, &sel, NULL, bad[i].named);
  }
  /* Without a device there is no device limit; the host must still hold the four vectors
   * (32 GiB at the largest n). */
  cg_job_init(&job, &cg_workload_saxpy);
  set(&job, "n", CG_SAXPY_MAX_N);
  if (validate_host_fits(&job))
    expect_ok(&job, &sel, NULL);
  else
    expect_bad(&job, &sel, NULL, "the host has");
}
END_TEST

START_TEST(test_validate_device_limits) {
  cg_device_list list;
  cg_test_devices(&list);
  const cg_selection all = {0};
  const char *cpu[] = {"cpu", NULL};
  const cg_selection host_only = {.backends = cpu};
  char named[64];
  for (int d = 0; d < list.count; ++d) {
    const cg_device_info *info = &list.items[d];
    cg_job job;
    /* The device's own limit, where an n can exceed it. */
    const double over = (double)(info->max_alloc / 4) + 1;
    if (over <= CG_SAXPY_MAX_N) {
      cg_job_init(&job, &cg_workload_saxpy);
      set(&job, "n", over);
      snprintf(named, sizeof named, "--n %.0f: each of x and y needs", over);
      expect_bad(&job, &all, info, named);
      expect_bad(&job, &all, info, info->name);
      expect_bad(&job, &all, info, "GiB per allocation");
      if (validate_host_fits(&job)) /* host backends alone need no device memory */
        expect_ok(&job, &host_only, info);
    }
    /* The same device with 1 MiB allocations: 2^18 floats fit, one more does not. */
    cg_device_info small = *info;
    small.max_alloc = 1 << 20;
    cg_job_init(&job, &cg_workload_saxpy);
    set(&job, "n", (1 << 18) + 1);
    expect_bad(&job, &all, &small, "--n 262145: each of x and y needs 1 MiB, device");
    set(&job, "n", 1 << 18);
    expect_ok(&job, &all, &small);
    /* And 1 MiB of memory in all: both vectors must fit together. */
    small.global_mem = 1 << 20;
    expect_bad(&job, &all, &small, "--n 262144: the vectors need 2 MiB");
    set(&job, "n", 1 << 17);
    expect_ok(&job, &all, &small);
  }
  cg_device_list_free(&list);
}
END_TEST

/* ---- the kernel configuration in the record ---- */

/* The cl backend alone on the device at n 4097 (1025 work-items: the last work-group part
 * full for most sizes), with the overrides; the report holds its record. */
static const cg_record *run_cl(const cg_device_info *info, const cg_kernel_overrides *o,
                               cg_report *report, uint64_t *seed) {
  const char *cl[] = {"cl", NULL};
  cg_job job;
  small_job(&job, 4097);
  const cg_selection sel = {.backends = cl, .seed = cg_test_seed(), .overrides = o};
  *seed = sel.seed;
  run_job(&job, &sel, info, report);
  ck_assert_int_eq(report->count, 1);
  return &report->records[0];
}

static void expect_wg(const cg_record *r, int value, cg_origin origin) {
  const cg_kernel_param *wg = find_param(&r->kernel, "WG");
  ck_assert_msg(wg != NULL, "no WG in the record's kernel configuration");
  ck_assert_int_eq(r->kernel.nparams, 1);
  ck_assert_int_eq(wg->value, value);
  ck_assert_str_eq(cg_origin_name(wg->origin), cg_origin_name(origin));
  char opt[32];
  snprintf(opt, sizeof opt, "-DWG=%d", value);
  ck_assert_str_eq(r->kernel.build_options, opt);
}

/* By default the largest power of two up to 256 that the device allows, or a smaller power of
 * two (fallback) where the built kernel allows fewer work-items. */
START_TEST(test_kernel_config_default) {
  cg_device_list list;
  const cg_device_info *info = cg_test_device_at(&list, _i);
  size_t dflt = 1;
  while (dflt * 2 <= 256 && dflt * 2 <= info->max_work_group) dflt *= 2;
  cg_report report;
  uint64_t seed = 0;
  const cg_record *r = run_cl(info, NULL, &report, &seed);
  check_record(r, 4097, info->name, seed);
  const cg_kernel_param *wg = find_param(&r->kernel, "WG");
  ck_assert_ptr_nonnull(wg);
  if (wg->origin == CG_ORIGIN_DEFAULT) {
    expect_wg(r, (int)dflt, CG_ORIGIN_DEFAULT);
  } else {
    ck_assert_str_eq(cg_origin_name(wg->origin), "fallback");
    ck_assert_msg(wg->value < (int)dflt && (wg->value & (wg->value - 1)) == 0,
                  "fallback to %d from %zu", wg->value, dflt);
    expect_wg(r, wg->value, CG_ORIGIN_FALLBACK);
  }
  cg_report_free(&report);
  cg_device_list_free(&list);
}
END_TEST

/* --kernel-param WG=...: the record says override, and the result stays correct with one
 * work-item per group and with a size that is not a power of two. Too large a size is an error
 * of that record, naming the parameter. */
START_TEST(test_kernel_config_override) {
  cg_device_list list;
  const cg_device_info *info = cg_test_device_at(&list, _i);
  cg_report report;
  uint64_t seed = 0;
  const cg_record *r = run_cl(info, NULL, &report, &seed);
  ck_assert_int_eq(r->status, CG_STATUS_OK);
  const int fits = find_param(&r->kernel, "WG")->value;
  cg_report_free(&report);

  const int sizes[] = {1, fits > 2 ? fits - 1 : fits};
  for (int k = 0; k < 2; ++k) {
    char text[32];
    snprintf(text, sizeof text, "WG=%d", sizes[k]);
    cg_kernel_overrides o = {0};
    cg_error err = {0};
    ck_assert_msg(cg_kernel_overrides_parse(&o, text, &err) == CG_OK, "%s", err.msg);
    r = run_cl(info, &o, &report, &seed);
    check_record(r, 4097, text, seed);
    expect_wg(r, sizes[k], CG_ORIGIN_OVERRIDE);
    cg_report_free(&report);
  }

  char text[48];
  snprintf(text, sizeof text, "WG=%zu", info->max_work_group + 1);
  cg_kernel_overrides o = {0};
  cg_error err = {0};
  ck_assert_msg(cg_kernel_overrides_parse(&o, text, &err) == CG_OK, "%s", err.msg);
  r = run_cl(info, &o, &report, &seed);
  ck_assert_int_eq(r->status, CG_STATUS_ERROR);
  char named[64];
  snprintf(named, sizeof named, "--kernel-param %s", text);
  ck_assert_msg(strstr(r->reason, named) != NULL, "'%s' not named in: %s", named, r->reason);
  cg_report_free(&report);
  cg_device_list_free(&list);
}
END_TEST

/* ---- the registration ---- */

START_TEST(test_registry) {
  ck_assert_ptr_eq(cg_workload_find("saxpy"), &cg_workload_saxpy);
  bool listed = false;
  for (const cg_workload *const *w = cg_workload_all(); *w; ++w)
    listed |= *w == &cg_workload_saxpy;
  ck_assert(listed);
  const cg_workload *w = &cg_workload_saxpy;
  ck_assert_msg(w->summary && w->help && w->validate && w->create && w->destroy &&
                    w->reference && w->adopt_reference && w->verify,
                "a part of the descriptor is missing");
  ck_assert_ptr_null(w->loss_unit);
  ck_assert_ptr_null(w->modes);

  int impls = 0;
  for (const cg_backend *const *b = cg_backend_all(); *b; ++b) {
    const cg_impl *impl = cg_impl_find(*b, "saxpy");
    ck_assert_msg(impl != NULL, "backend %s has no saxpy", (*b)->name);
    ck_assert_msg(impl->variants && impl->variants[0], "%s has no variant", (*b)->name);
    ck_assert_msg(impl->prepare && impl->upload && impl->enqueue && impl->finish &&
                      impl->download && impl->release,
                  "%s: an entry is missing", (*b)->name);
    impls++;
  }
  ck_assert_int_eq(impls, 3);
  const cg_impl *cl = cg_impl_find(cg_backend_find("cl"), "saxpy");
  ck_assert_int_eq(cg_variant_index(cl->kernel_params, "WG"), 0);
  ck_assert_ptr_null(cl->kernel_params[1]);
  ck_assert_ptr_null(cg_impl_find(cg_backend_find("cpu"), "saxpy")->kernel_params);

  /* FLOPs, bytes and runs at the defaults. */
  cg_job job;
  cg_job_init(&job, w);
  ck_assert_double_eq(w->flops_per_iter(&job.params), 2.0 * (1 << 24));
  ck_assert_double_eq(w->bytes_per_iter(&job.params), 12.0 * (1 << 24));
  ck_assert_int_eq(w->iters_per_run(&job.params), 10);
  ck_assert_int_eq(w->run_count(&job.params), 10);
}
END_TEST

/* ---- the reference and its tolerance ---- */

/* Against y0 + T a x in double precision: each side of a comparison is within half the
 * tolerance's bound, element by element. */
START_TEST(test_reference) {
  const uint64_t seed = cg_test_seed();
  cg_rng rng;
  cg_rng_seed(&rng, seed);
  for (int k = 0; k < NAWKWARD; ++k) {
    const size_t n = (size_t)awkward_n[k];
    const float a = (float)(3.0 * cg_rng_normal(&rng));
    float *x = random_vector(&rng, n), *y0 = random_vector(&rng, n);
    static const int updates[] = {1, 2, 50};
    for (int u = 0; u < 3; ++u) {
      const int T = updates[u];
      float *ref = reference(x, y0, a, T, n);
      for (size_t i = 0; i < n; ++i) {
        const double exact = (double)y0[i] + T * ((double)a * x[i]);
        const double bound = FLT_EPSILON / 2 * T *
                             (fabs((double)y0[i]) + (T + 3) / 2.0 * fabs((double)a * x[i]));
        ck_assert_msg(fabs(ref[i] - exact) <= bound + 1e-30,
                      "n %zu, %d updates: y[%zu] = %.9g, exactly %.9g, bound %.3g (seed %llu)", n,
                      T, i, ref[i], exact, bound, (unsigned long long)seed);
      }
      free(ref);
    }
    free(x), free(y0);
  }
}
END_TEST

START_TEST(test_tolerance) {
  const uint64_t seed = cg_test_seed();
  cg_rng rng;
  cg_rng_seed(&rng, seed);
  const size_t n = 4097;
  float *x = random_vector(&rng, n), *y0 = random_vector(&rng, n);
  x[n - 1] = 1.0f; /* the element left unwritten below: 200 away from its start */
  float *ref100 = reference(x, y0, 2.0f, 100, n), *ref99 = reference(x, y0, 2.0f, 99, n);
  float *ref101 = reference(x, y0, 2.0f, 101, n);
  const double tol = cg_saxpy_tolerance(n, 2.0f, x, y0, ref100, 100);
  ck_assert_msg(isfinite(tol) && tol > 0 && tol < 1e-4, "tolerance %g after 100 updates", tol);
  /* A missed or an extra update fails. */
  ck_assert_msg(cg_rel_error(ref99, ref100, n) > 10 * tol, "one update fewer: %g, tolerance %g",
                cg_rel_error(ref99, ref100, n), tol);
  ck_assert_msg(cg_rel_error(ref101, ref100, n) > 10 * tol, "one update more: %g, tolerance %g",
                cg_rel_error(ref101, ref100, n), tol);
  /* A single element left at its starting value fails. */
  float *one_off = filled(n, 0);
  memcpy(one_off, ref100, n * sizeof *one_off);
  one_off[n - 1] = y0[n - 1];
  ck_assert_msg(cg_rel_error(one_off, ref100, n) > 10 * tol,
                "an unwritten element passes: %g, tolerance %g", cg_rel_error(one_off, ref100, n),
                tol);
  /* The bound grows with the updates. */
  float *ref1 = reference(x, y0, 2.0f, 1, n);
  ck_assert(cg_saxpy_tolerance(n, 2.0f, x, y0, ref1, 1) < tol);
  /* a = 0 leaves y exactly as it was; a zero reference makes the bound absolute. */
  float *same = reference(x, y0, 0.0f, 10, n);
  ck_assert_int_eq(memcmp(same, y0, n * sizeof *y0), 0);
  ck_assert_double_eq_tol(cg_saxpy_tolerance(n, 0.0f, x, y0, same, 10), 10 * FLT_EPSILON, 1e-12);
  float *zero = filled(n, 0);
  ck_assert_double_eq_tol(cg_saxpy_tolerance(n, 0.0f, x, zero, zero, 1), 0, 1e-30);
  /* A poisoned element never passes. */
  same[7] = NAN;
  ck_assert(!(cg_rel_error(same, y0, n) <= cg_saxpy_tolerance(n, 0.0f, x, y0, y0, 10)));
  free(x), free(y0), free(ref100), free(ref99), free(ref101), free(one_off), free(ref1);
  free(same), free(zero);
}
END_TEST

Suite *cg_saxpy_suite(void) {
  Suite *s = suite_create("saxpy");
  TCase *tc = tcase_create("impl");
  tcase_set_timeout(tc, CG_TEST_OPENCL_TIMEOUT);
  tcase_add_loop_test(tc, test_impl_awkward_n, 0, combo_count());
  tcase_add_loop_test(tc, test_impl_inputs_unchanged, 0, combo_count());
  suite_add_tcase(s, tc);

  tc = tcase_create("engine");
  tcase_set_timeout(tc, CG_TEST_OPENCL_TIMEOUT);
  tcase_add_loop_test(tc, test_engine_each, 0, combo_count());
  tcase_add_loop_test(tc, test_engine_all, 0, device_count());
  tcase_add_test(tc, test_engine_without_device);
  suite_add_tcase(s, tc);

  tc = tcase_create("validate");
  tcase_set_timeout(tc, CG_TEST_OPENCL_TIMEOUT);
  tcase_add_test(tc, test_validate_values);
  tcase_add_test(tc, test_validate_device_limits);
  suite_add_tcase(s, tc);

  tc = tcase_create("kernel_config");
  tcase_set_timeout(tc, CG_TEST_OPENCL_TIMEOUT);
  tcase_add_loop_test(tc, test_kernel_config_default, 0, device_count());
  tcase_add_loop_test(tc, test_kernel_config_override, 0, device_count());
  suite_add_tcase(s, tc);

  tc = tcase_create("registry_and_reference");
  tcase_add_test(tc, test_registry);
  tcase_add_test(tc, test_reference);
  tcase_add_test(tc, test_tolerance);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return cg_test_main(cg_saxpy_suite, true); }
