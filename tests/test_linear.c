/* Check suite of the linear workload: the host softmax cross-entropy against a float64 reference
 * (large logits included), the epoch orders, every backend, variant and transfer mode on every
 * device through the engine, equal results across transfer modes through the implementations,
 * the kernel configuration they report, and validation of the parameters and modes. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clgauge/backend.h"
#include "clgauge/device.h"
#include "clgauge/engine.h"
#include "clgauge/kernel_config.h"
#include "clgauge/linear.h"
#include "clgauge/loop_limit.h"
#include "clgauge/random.h"
#include "clgauge/reference.h"
#include "clgauge/report.h"
#include "clgauge/sizes.h"
#include "clgauge/workload.h"
#include "backends/opencl/cl_linear_common.h"
#include "test_util.h"

/* ---- what each looped test runs: (device, backend, variant) ---- */

typedef cg_test_combo combo;
static int combo_count(bool with_host) { return cg_test_combo_count("linear", with_host); }
static combo combo_at(int index, bool with_host) {
  return cg_test_combo_at("linear", index, with_host);
}
#define combo_name cg_test_combo_name

static const cg_impl *linear_impl(const cg_backend *b) { return cg_impl_find(b, "linear"); }

/* Modes an implementation lists (NULL-terminated). */
static int nmodes(const cg_impl *impl) {
  int n = 0;
  while (impl->modes && impl->modes[n]) ++n;
  return n;
}

/* The workload's modes by name: pageable, pinned, resident. */
static int mode_index(const char *name) {
  const cg_mode_desc *m = cg_workload_linear.modes;
  for (int i = 0; m->names[i]; ++i)
    if (strcmp(m->names[i], name) == 0) return i;
  return -1;
}

/* ---- softmax cross-entropy against float64 ---- */

/* The mean loss over n rows and g = (softmax - onehot) / n, in double, stably. */
static double xent64(const float *logits, int n, int classes, const int *labels, double *g) {
  double loss = 0;
  for (int r = 0; r < n; ++r) {
    const float *z = logits + (size_t)r * classes;
    double zmax = z[0];
    for (int c = 1; c < classes; ++c) zmax = fmax(zmax, z[c]);
    double sum = 0;
    for (int c = 0; c < classes; ++c) sum += exp((double)z[c] - zmax);
    loss += log(sum) - ((double)z[labels[r]] - zmax);
    for (int c = 0; c < classes; ++c)
      g[(size_t)r * classes + c] =
          (exp((double)z[c] - zmax) / sum - (c == labels[r] ? 1.0 : 0.0)) / n;
  }
  return loss / n;
}

enum { XC = 4 }; /* classes of the softmax tests */

typedef struct xent_row {
  float z[XC];
  int label;
} xent_row;

/* Both the loss and each probability are within a few fp32 roundings of exact for a careful
 * implementation: the loss within 1e-5 relative (or absolute below 1), each element of
 * (softmax - onehot) within 1e-6. */
#define XENT_LOSS_TOL 1e-5
#define XENT_GRAD_TOL 1e-6

/* Runs the rows one at a time and all together; checks loss, gradient and row sums. */
static void check_xent(const xent_row *rows, int n, const char *what) {
  float *logits = malloc(sizeof(float) * XC * n), *g = malloc(sizeof(float) * XC * n);
  int *labels = malloc(sizeof(int) * n);
  double *g64 = malloc(sizeof(double) * XC * n);
  ck_assert(logits && g && labels && g64);
  for (int r = 0; r < n; ++r) {
    memcpy(logits + r * XC, rows[r].z, sizeof rows[r].z);
    labels[r] = rows[r].label;
  }
  /* One row at a time: the loss of each row. */
  for (int r = 0; r < n; ++r) {
    for (int c = 0; c < XC; ++c) g[r * XC + c] = NAN;
    const double loss = cg_ref_softmax_xent(logits + r * XC, 1, XC, labels + r, g + r * XC);
    const double want = xent64(logits + r * XC, 1, XC, labels + r, g64 + r * XC);
    ck_assert_msg(isfinite(loss), "%s, row %d: loss %g", what, r, loss);
    ck_assert_msg(fabs(loss - want) <= XENT_LOSS_TOL * fmax(1.0, fabs(want)),
                  "%s, row %d {%g, %g, %g, %g} label %d: loss %.9g, float64 %.9g", what, r,
                  rows[r].z[0], rows[r].z[1], rows[r].z[2], rows[r].z[3], rows[r].label, loss,
                  want);
    double sum = 0;
    for (int c = 0; c < XC; ++c) {
      const float gv = g[r * XC + c];
      ck_assert_msg(isfinite(gv), "%s, row %d: g[%d] = %g", what, r, c, gv);
      ck_assert_msg(fabs(gv - g64[r * XC + c]) <= XENT_GRAD_TOL,
                    "%s, row %d {%g, %g, %g, %g} label %d: g[%d] = %.9g, float64 %.9g", what, r,
                    rows[r].z[0], rows[r].z[1], rows[r].z[2], rows[r].z[3], rows[r].label, c, gv,
                    g64[r * XC + c]);
      sum += gv;
    }
    ck_assert_msg(fabs(sum) <= 4 * XC * FLT_EPSILON, "%s, row %d: gradient sums to %g", what, r,
                  sum);
  }
  /* All rows together: the mean, and the gradient divided by n. */
  for (int e = 0; e < XC * n; ++e) g[e] = NAN;
  const double loss = cg_ref_softmax_xent(logits, n, XC, labels, g);
  const double want = xent64(logits, n, XC, labels, g64);
  ck_assert_msg(fabs(loss - want) <= XENT_LOSS_TOL * fmax(1.0, fabs(want)),
                "%s, %d rows: mean loss %.9g, float64 %.9g", what, n, loss, want);
  for (int r = 0; r < n; ++r) {
    double sum = 0;
    for (int c = 0; c < XC; ++c) {
      const float gv = g[r * XC + c];
      ck_assert_msg(isfinite(gv) && fabs(gv - g64[r * XC + c]) <= XENT_GRAD_TOL / n,
                    "%s, %d rows: row %d g[%d] = %.9g, float64 %.9g", what, n, r, c, gv,
                    g64[r * XC + c]);
      sum += gv;
    }
    ck_assert_msg(fabs(sum) <= 4 * XC * FLT_EPSILON / n, "%s, row %d of %d: gradient sums to %g",
                  what, r, n, sum);
  }
  free(logits), free(g), free(labels), free(g64);
}

/* Ordinary logits: random, and a few by hand. */
START_TEST(test_xent_ordinary) {
  const uint64_t seed = cg_test_seed();
  cg_rng rng;
  cg_rng_seed(&rng, seed);
  enum { N = 40 };
  xent_row rows[N] = {
      {{0.5f, -1.25f, 3.0f, 2.0f}, 2},
      {{0, 0, 0, 0}, 1},
      {{1, 2, 3, 4}, 0},
      {{-7.5f, 7.5f, 0.25f, 1e-3f}, 1},
  };
  for (int r = 4; r < N; ++r) {
    cg_rng_fill_normal(&rng, rows[r].z, XC);
    for (int c = 0; c < XC; ++c) rows[r].z[c] *= (float)(1 + r % 5);
    rows[r].label = (int)(cg_rng_next(&rng) % XC);
  }
  char what[64];
  snprintf(what, sizeof what, "ordinary logits (seed %llu)", (unsigned long long)seed);
  check_xent(rows, N, what);
}
END_TEST

/* Logits far beyond exp's range, at its edge (88.7: expf overflows just above), and rows of
 * equal logits: no overflow, no NaN, and the same accuracy as ordinary logits. */
START_TEST(test_xent_large_logits) {
  const xent_row rows[] = {
      {{1e4f, -1e4f, 0, 1e4f - 1}, 0},      /* the winner's loss is log(1 + e^-1) */
      {{1e4f, -1e4f, 0, 1e4f - 1}, 1},      /* loss 2e4 */
      {{88.7f, 88.7f, 88.7f, 88.7f}, 2},    /* log 4 */
      {{-88.7f, 88.7f, -1e4f, 50}, 3},
      {{-1e4f, -1e4f, -1e4f, -1e4f}, 0},    /* log 4 */
      {{1e4f, 1e4f, 1e4f, 1e4f}, 3},        /* log 4 */
      {{-1e4f, 1e4f, 88.7f, -88.7f}, 2},
      {{89.5f, -89.5f, 0, 0}, 1},
      {{1e30f, -1e30f, 0, 1}, 0},
  };
  check_xent(rows, sizeof rows / sizeof rows[0], "large logits");
}
END_TEST

/* Only the absence of overflow and NaN with large logits, gradients within their bounds, and
 * rows that sum to about zero: what any stable implementation gives, whatever its rounding
 * (test_xent_large_logits asks for full accuracy). */
START_TEST(test_xent_no_overflow) {
  const float z[][XC] = {{1e4f, -1e4f, 0, 1e4f - 1}, {88.7f, 88.7f, 88.7f, 88.7f},
                         {-1e4f, -1e4f, -1e4f, -1e4f}, {1e4f, 1e4f, 1e4f, 1e4f},
                         {1e30f, -1e30f, 0, 1},        {-1e30f, -1e30f, -1e30f, -1e30f}};
  const int n = sizeof z / sizeof z[0];
  for (int label = 0; label < XC; ++label) {
    int labels[16];
    for (int r = 0; r < n; ++r) labels[r] = (label + r) % XC;
    float g[sizeof z / sizeof z[0]][XC];
    const double loss = cg_ref_softmax_xent(&z[0][0], n, XC, labels, &g[0][0]);
    ck_assert_msg(isfinite(loss) && loss >= 0, "label %d: mean loss %g", label, loss);
    for (int r = 0; r < n; ++r) {
      double sum = 0;
      for (int c = 0; c < XC; ++c) {
        ck_assert_msg(isfinite(g[r][c]), "row %d: g[%d] = %g", r, c, g[r][c]);
        ck_assert_msg(g[r][c] >= -1.0f / n && g[r][c] <= 1.0f / n, "row %d: g[%d] = %g", r, c,
                      g[r][c]);
        sum += g[r][c];
      }
      ck_assert_msg(fabs(sum) <= 1e-3 / n, "row %d: gradient sums to %g", r, sum);
    }
  }
}
END_TEST

/* ---- epoch orders ---- */

START_TEST(test_orders) {
  const uint64_t seed = cg_test_seed();
  enum { S = 257, E = 4 };
  int *a = cg_linear_orders(S, E, seed), *b = cg_linear_orders(S, E, seed);
  int *c = cg_linear_orders(S, E, seed + 1);
  ck_assert(a && b && c);
  ck_assert_msg(memcmp(a, b, sizeof(int) * S * E) == 0, "not deterministic for seed %llu",
                (unsigned long long)seed);
  for (int e = 0; e < E; ++e) {
    int seen[S] = {0};
    for (int i = 0; i < S; ++i) {
      const int v = a[e * S + i];
      ck_assert_msg(v >= 0 && v < S, "epoch %d: element %d is %d", e, i, v);
      ck_assert_msg(!seen[v]++, "epoch %d: %d twice (seed %llu)", e, v,
                    (unsigned long long)seed);
    }
    for (int f = 0; f < e; ++f)
      ck_assert_msg(memcmp(a + e * S, a + f * S, sizeof(int) * S) != 0,
                    "epochs %d and %d in the same order (seed %llu)", f, e,
                    (unsigned long long)seed);
    /* shuffled: not the identity */
    int fixed = 0;
    for (int i = 0; i < S; ++i) fixed += a[e * S + i] == i;
    ck_assert_msg(fixed < S / 4, "epoch %d: %d of %d samples in place", e, fixed, S);
  }
  ck_assert_msg(memcmp(a, c, sizeof(int) * S * E) != 0, "seeds %llu and %llu give one order",
                (unsigned long long)seed, (unsigned long long)seed + 1);
  free(a), free(b), free(c);
  /* One sample: every epoch is {0}. */
  int *one = cg_linear_orders(1, 3, seed);
  ck_assert_ptr_nonnull(one);
  for (int e = 0; e < 3; ++e) ck_assert_int_eq(one[e], 0);
  free(one);
}
END_TEST

/* ---- kernel configuration ---- */

/* One more pinned run in test_transfers_agree with GROUP overridden to 3, groups that do not
 * divide the epoch, growing from one batch to 3 and shrinking again (RAMP=1), the host's gather
 * on 3 threads, which split no group evenly, and the groups uploaded into 3 device buffers and
 * gathered into 4 staging buffers, which the epoch's groups do not divide either. */
enum { OVERRIDE_GROUP = 3, OVERRIDE_THREADS = 3, OVERRIDE_SLOTS = 3 };
#define OVERRIDES_AGAIN "GROUP=3,RAMP=1,THREADS=3,SLOTS=3"

/* The pinned parameters a kernel configuration must show: each overridden to its value, or 0
 * for the default. */
typedef struct pinned_expect {
  int group, ramp, threads, slots;
} pinned_expect;

static const cg_kernel_param *find_param(const cg_kernel_config *k, const char *name) {
  for (int i = 0; i < k->nparams; ++i)
    if (strcmp(k->params[i].name, name) == 0) return &k->params[i];
  return NULL;
}

/* What an implementation reports it ran: nothing on the host; on OpenCL the work-group size of
 * every kernel it launches (a power of two, the default or a fallback to the device's limits),
 * and in pinned mode the batches per upload (at most CG_CL_LINEAR_PINNED_GROUP by default, never
 * more than the epoch's batches), the gather's host threads and the device buffers of the
 * groups (CG_CL_LINEAR_SLOTS by default). `group`, `threads` and `slots` are the GROUP, THREADS
 * and SLOTS overrides given, or 0. */
static void expect_kernel_config(const cg_kernel_config *k, const cg_backend *b,
                                 const char *variant, const char *mode, int batches,
                                 pinned_expect pe, const char *name) {
  const int group = pe.group, threads = pe.threads;
  if (!b->needs_device) {
    ck_assert_msg(k->nparams == 0 && k->build_options[0] == '\0',
                  "%s: a host backend with %d kernel parameters, options '%s'", name, k->nparams,
                  k->build_options);
    return;
  }
  const bool pinned = strcmp(mode, "pinned") == 0, resident = strcmp(mode, "resident") == 0;
  /* room for every name a configuration can hold: at 8, the ten of pinned on the persistent path
   * (a GPU's default) overran it, and the test crashed after its checks on the H200 */
  const char *wanted[CG_MAX_KERNEL_PARAMS];
  int n = 0;
  if (strcmp(b->name, "cl") == 0 && strcmp(variant, "epoch") == 0) {
    wanted[n++] = "WG_EPOCH"; /* one kernel, resident only */
  } else if (strcmp(b->name, "cl") == 0) {
    wanted[n++] = "WG_FORWARD";
    wanted[n++] = "WG_UPDATE";
    if (resident || pinned) { /* the persistent path: which ran, said in the path
                               * (test_persistent) */
      wanted[n++] = "PERSIST";
      const cg_kernel_param *on = find_param(k, "PERSIST");
      if (on && on->value == 1) {
        wanted[n++] = "PGROUPS";
        wanted[n++] = "WG_PERSIST";
        wanted[n++] = "PREFETCH";
        wanted[n++] = "SYNC";
      }
      ck_assert_msg(k->path[0], "%s: no kernel path in %s mode", name, mode);
    }
  } else {
    wanted[n++] = "WG_ROWS";
    if (resident) wanted[n++] = "WG_GATHER";
    wanted[n++] = "WG_UPDATE";
  }
  if (pinned) {
    wanted[n++] = "GROUP";
    wanted[n++] = "RAMP";
    wanted[n++] = "THREADS";
    wanted[n++] = "SLOTS";
  }
  ck_assert_msg(k->nparams == n, "%s, %s: %d kernel parameters, expected %d", name, mode,
                k->nparams, n);
  for (int i = 0; i < n; ++i) {
    const cg_kernel_param *p = find_param(k, wanted[i]);
    ck_assert_msg(p, "%s, %s: no %s in the kernel configuration", name, mode, wanted[i]);
    if (strcmp(p->name, "PERSIST") == 0 || strcmp(p->name, "PGROUPS") == 0) {
      ck_assert_msg(p->value == 0 || p->value == 1 || strcmp(p->name, "PGROUPS") == 0,
                    "%s: PERSIST=%d", name, p->value);
      continue; /* any origin: test_persistent overrides them */
    }
    if (strcmp(p->name, "RAMP") == 0) {
      ck_assert_int_eq(p->value, pe.ramp);
      ck_assert_msg(p->origin == (pe.ramp ? CG_ORIGIN_OVERRIDE : CG_ORIGIN_DEFAULT),
                    "%s: RAMP origin %s", name, cg_origin_name(p->origin));
      continue;
    }
    ck_assert_msg(p->value >= 1, "%s, %s: %s = %d", name, mode, p->name, p->value);
    if (strcmp(p->name, "SLOTS") == 0) {
      ck_assert_int_eq(p->value, pe.slots ? pe.slots : CG_CL_LINEAR_SLOTS);
      ck_assert_msg(p->origin == (pe.slots ? CG_ORIGIN_OVERRIDE : CG_ORIGIN_DEFAULT),
                    "%s: SLOTS origin %s", name, cg_origin_name(p->origin));
    } else if (strcmp(p->name, "THREADS") == 0) {
      if (threads > 0) {
        ck_assert_msg(p->origin == CG_ORIGIN_OVERRIDE, "%s: THREADS origin %s", name,
                      cg_origin_name(p->origin));
        ck_assert_int_eq(p->value, threads);
      } else {
        ck_assert_msg(p->origin == CG_ORIGIN_DEFAULT, "%s: THREADS origin %s", name,
                      cg_origin_name(p->origin));
        ck_assert_msg(p->value <= CG_CL_LINEAR_GATHER_THREADS, "%s: THREADS=%d", name, p->value);
      }
    } else if (strcmp(p->name, "GROUP") == 0) {
      if (group > 0) {
        ck_assert_msg(p->origin == CG_ORIGIN_OVERRIDE, "%s: GROUP origin %s", name,
                      cg_origin_name(p->origin));
        ck_assert_int_eq(p->value, group < batches ? group : batches);
      } else {
        ck_assert_msg(p->origin == CG_ORIGIN_DEFAULT || p->origin == CG_ORIGIN_FALLBACK,
                      "%s: GROUP origin %s", name, cg_origin_name(p->origin));
        ck_assert_msg(p->value <= CG_CL_LINEAR_PINNED_GROUP && p->value <= batches,
                      "%s: GROUP %d for %d batches", name, p->value, batches);
        /* the default group is the rule (CG_CL_LINEAR_PINNED_GROUP at the suite's batches, far
         * below CG_CL_LINEAR_PINNED_GROUP_BYTES); fewer, a fallback to the epoch or one
         * allocation */
        ck_assert_int_eq(p->origin == CG_ORIGIN_FALLBACK, p->value < CG_CL_LINEAR_PINNED_GROUP);
      }
    } else {
      ck_assert_msg((p->value & (p->value - 1)) == 0, "%s, %s: %s = %d is not a power of two",
                    name, mode, p->name, p->value);
      ck_assert_msg(p->origin == CG_ORIGIN_DEFAULT || p->origin == CG_ORIGIN_FALLBACK,
                    "%s, %s: %s origin %s", name, mode, p->name, cg_origin_name(p->origin));
    }
  }
}

/* ---- every backend, variant and transfer mode through the engine ---- */

typedef struct run_case {
  int samples, features, classes, batch, epochs;
  const char *why;
} run_case;

static const run_case run_cases[] = {
    {200, 37, 5, 32, 3, "a partial last batch of 8"},
    {20, 7, 3, 1, 2, "batch 1"},
    {50, 11, 4, 64, 2, "a batch larger than the dataset"},
    {60, 9, 1, 16, 2, "one class"},
    {60, 9, 2, 16, 2, "two classes"},
};
enum { NRUN_CASES = sizeof run_cases / sizeof run_cases[0] };

static void set_param(cg_job *job, const char *name, double value) {
  cg_error err = {0};
  ck_assert_msg(cg_params_set(&job->params, name, value, &err) == CG_OK, "--%s %g: %s", name,
                value, err.msg);
}

/* The case as a job, and a selection of every backend with a fresh seed. */
static void case_job(cg_job *job, cg_selection *sel, const run_case *rc) {
  cg_job_init(job, &cg_workload_linear);
  set_param(job, "samples", rc->samples);
  set_param(job, "features", rc->features);
  set_param(job, "classes", rc->classes);
  set_param(job, "batch", rc->batch);
  set_param(job, "epochs", rc->epochs);
  set_param(job, "lr", 0.05);
  *sel = (cg_selection){.seed = cg_test_seed()};
}

static int param_int(const cg_job *job, const char *name) {
  return (int)cg_params_get(&job->params, name);
}

/* Every record of a linear report ok, verified, with a loss per epoch and its kernel config. */
static void expect_linear_record(const cg_record *r, const cg_job *job, const cg_selection *sel,
                                 const cg_device_info *info, const char *name) {
  const int samples = param_int(job, "samples"), features = param_int(job, "features");
  const int classes = param_int(job, "classes"), batch = param_int(job, "batch");
  const int epochs = param_int(job, "epochs"), batches = (samples + batch - 1) / batch;
  ck_assert_msg(r->status == CG_STATUS_OK, "%s, %s transfer, %dx%dx%d batch %d: status %s: %s "
                "(seed %llu)", name, r->mode, samples, features, classes, batch,
                cg_status_name(r->status), r->reason, (unsigned long long)sel->seed);
  ck_assert_str_eq(r->workload, "linear");
  ck_assert_int_eq(r->nlosses, epochs);
  ck_assert_int_eq(r->loss_every, 1);
  ck_assert_str_eq(r->loss_unit, "epoch");
  for (int e = 0; e < r->nlosses; ++e) {
    ck_assert_msg(isfinite(r->losses[e]) && r->losses[e] >= 0, "%s: epoch %d loss %g", name, e,
                  r->losses[e]);
    if (classes == 1) ck_assert_msg(r->losses[e] == 0, "%s: one class, loss %g", name,
                                    r->losses[e]);
  }
  ck_assert_int_eq(r->nruns, epochs);
  ck_assert_int_eq(r->iters_per_run, batches);
  ck_assert_double_eq(cg_record_param(r, "samples"), samples);
  ck_assert_double_eq(cg_record_param(r, "features"), features);
  ck_assert_double_eq(cg_record_param(r, "classes"), classes);
  ck_assert_double_eq(cg_record_param(r, "batch"), batch);
  ck_assert_double_eq(cg_record_param(r, "epochs"), epochs);
  ck_assert_msg(isfinite(r->upload_ms) && isfinite(r->download_ms) &&
                    isfinite(r->first.complete_ms),
                "%s: a phase of an ok record is not measured", name);
  const cg_backend *b = cg_backend_find(r->backend);
  ck_assert_ptr_nonnull(b);
  expect_kernel_config(&r->kernel, b, r->variant, r->mode, batches, (pinned_expect){0}, name);
  if (r->host_backend) return;
  ck_assert_str_eq(r->device, info->name);
  ck_assert_msg(isfinite(r->verify_error) && isfinite(r->verify_loss_error) &&
                    isfinite(r->verify_weights_error),
                "%s, %s: verify errors %g, %g, %g", name, r->mode, r->verify_error,
                r->verify_loss_error, r->verify_weights_error);
  ck_assert_msg(r->verify_tolerance > 0 && r->verify_tolerance <= 1e-3, "tolerance %g",
                r->verify_tolerance);
  ck_assert_msg(r->verify_error <= r->verify_tolerance, "%s, %s: verify error %g over %g", name,
                r->mode, r->verify_error, r->verify_tolerance);
}

START_TEST(test_workload_records) {
  const combo c = combo_at(_i, true);
  const cg_impl *impl = c.impl;
  cg_device_list list = {0};
  const cg_device_info *info = NULL;
  char name[400];
  if (c.device >= 0) {
    info = cg_test_device_at(&list, c.device);
  }
  combo_name(&c, &list, name, sizeof name);
  for (int k = 0; k < NRUN_CASES; ++k) {
    const char *backends[] = {c.backend->name, NULL}, *variants[] = {c.variant, NULL};
    cg_job job;
    cg_selection sel;
    case_job(&job, &sel, &run_cases[k]);
    sel.backends = backends;
    sel.variants = variants;
    /* every mode the implementation lists (the host backend runs once, whatever is asked) */
    cg_error err = {0};
    int expected = 1;
    /* named with --variant, a variant's mode it cannot run is a record too, unsupported */
    if (c.device >= 0) {
      for (int m = 0; m < CG_MAX_MODES; ++m) job.modes[m] = false;
      for (int m = 0; m < nmodes(impl); ++m) {
        const int at = mode_index(impl->modes[m]);
        ck_assert_msg(at >= 0, "%s: mode %s is not one of the workload's", name, impl->modes[m]);
        job.modes[at] = true;
      }
      expected = nmodes(impl);
    } else {
      ck_assert_int_eq(cg_job_select_modes(&job, "all", &err), CG_OK);
    }
    ck_assert_msg(cg_engine_validate(&job, &sel, info, &err) == CG_OK, "%s: %s", name, err.msg);
    cg_report report;
    cg_report_init(&report, 0, NULL);
    ck_assert_msg(cg_engine_run(&job, &sel, info, &report, NULL, NULL, &err) == CG_OK, "%s: %s",
                  name, err.msg);
    ck_assert_int_eq(report.count, expected);
    char what[512];
    snprintf(what, sizeof what, "%s (%s)", name, run_cases[k].why);
    for (int i = 0; i < report.count; ++i) {
      const cg_record *r = &report.records[i];
      const char *why = cg_impl_mode_unsupported(impl, c.variant, r->mode);
      if (why) {
        ck_assert_msg(r->status == CG_STATUS_UNSUPPORTED && strcmp(r->reason, why) == 0,
                      "%s, %s: status %s: %s", what, r->mode, cg_status_name(r->status),
                      r->reason);
      } else {
        expect_linear_record(r, &job, &sel, info, what);
      }
      ck_assert_str_eq(r->backend, c.backend->name);
      ck_assert_str_eq(r->variant, c.variant);
      /* the workload's order of modes, which the OpenCL implementations list in */
      ck_assert_str_eq(r->mode, c.device >= 0 ? impl->modes[i] : "host");
    }
    cg_report_free(&report);
  }
  cg_device_list_free(&list);
}
END_TEST

/* Records a run of every backend and variant plans in the given modes (NULL: every mode): a
 * host variant once, a device variant per mode it can run or whose absence is the backend's
 * (those are records, unsupported), not where the variant alone cannot run it. */
static int planned_records(const char *only_mode) {
  static const char *const modes[] = {"pageable", "pinned", "resident"};
  int n = 0;
  for (const cg_impl *const *i = cg_impl_all(); *i; ++i) {
    if (strcmp((*i)->workload, "linear") != 0) continue;
    for (const char *const *v = (*i)->variants; *v; ++v) {
      if (!(*i)->backend->needs_device) {
        ++n;
        continue;
      }
      for (int m = 0; m < 3; ++m)
        if ((!only_mode || strcmp(only_mode, modes[m]) == 0) &&
            !cg_impl_mode_unsupported(*i, *v, modes[m]))
          ++n;
    }
  }
  return n;
}

/* Every backend on one device, every mode, the host one first: the OpenCL records are verified
 * against the host backend's own results, and modes a backend lacks are `unsupported`. */
START_TEST(test_workload_all_backends) {
  cg_device_list list;
  const cg_device_info *info = cg_test_device_at(&list, _i);
  cg_job job;
  cg_selection sel;
  case_job(&job, &sel, &run_cases[0]);
  cg_error err = {0};
  ck_assert_int_eq(cg_job_select_modes(&job, "all", &err), CG_OK);
  ck_assert_msg(cg_engine_validate(&job, &sel, info, &err) == CG_OK, "%s", err.msg);
  cg_report report;
  cg_report_init(&report, 0, NULL);
  ck_assert_msg(cg_engine_run(&job, &sel, info, &report, NULL, NULL, &err) == CG_OK, "%s",
                err.msg);
  ck_assert_int_eq(report.count, planned_records(NULL));
  int ok = 0;
  for (int i = 0; i < report.count; ++i) {
    const cg_record *r = &report.records[i];
    const cg_backend *b = cg_backend_find(r->backend);
    ck_assert_ptr_nonnull(b);
    const bool listed = !b->needs_device || cg_impl_has_mode(linear_impl(b), r->mode);
    if (listed) {
      expect_linear_record(r, &job, &sel, info, r->backend);
      ++ok;
    } else {
      ck_assert_msg(r->status == CG_STATUS_UNSUPPORTED, "%s/%s %s: status %s", r->backend,
                    r->variant, r->mode, cg_status_name(r->status));
    }
  }
  ck_assert_int_ge(ok, 1);
  cg_report_free(&report);
  cg_device_list_free(&list);
}
END_TEST

/* Without a device the OpenCL records are skipped and the host ones still run. */
START_TEST(test_workload_without_device) {
  cg_job job;
  cg_selection sel;
  case_job(&job, &sel, &run_cases[0]);
  cg_report report;
  cg_report_init(&report, 0, NULL);
  cg_error err = {0};
  ck_assert_int_eq(cg_engine_validate(&job, &sel, NULL, &err), CG_OK);
  ck_assert_int_eq(cg_engine_run(&job, &sel, NULL, &report, NULL, NULL, &err), CG_OK);
  ck_assert_int_eq(report.count, planned_records("pageable"));
  for (int i = 0; i < report.count; ++i) {
    const cg_record *r = &report.records[i];
    const cg_backend *b = cg_backend_find(r->backend);
    ck_assert_ptr_nonnull(b);
    if (b->needs_device) {
      ck_assert_int_eq(r->status, CG_STATUS_SKIPPED);
      ck_assert_msg(strstr(r->reason, "no OpenCL device") != NULL, "reason: %s", r->reason);
    } else {
      expect_linear_record(r, &job, &sel, NULL, r->backend);
      ck_assert_str_eq(r->mode, "host");
    }
  }
  cg_report_free(&report);
}
END_TEST

/* A GROUP override reaches the pinned records through the selection, and they still verify. */
START_TEST(test_workload_group_override) {
  cg_device_list list;
  const cg_device_info *info = cg_test_device_at(&list, _i);
  cg_job job;
  cg_selection sel;
  case_job(&job, &sel, &run_cases[0]);
  cg_error err = {0};
  cg_kernel_overrides overrides = {0};
  ck_assert_msg(cg_kernel_overrides_parse(&overrides, "GROUP=3", &err) == CG_OK, "%s", err.msg);
  sel.overrides = &overrides;
  ck_assert_int_eq(cg_job_select_modes(&job, "pinned", &err), CG_OK);
  ck_assert_msg(cg_engine_validate(&job, &sel, info, &err) == CG_OK, "%s", err.msg);
  cg_report report;
  cg_report_init(&report, 0, NULL);
  ck_assert_msg(cg_engine_run(&job, &sel, info, &report, NULL, NULL, &err) == CG_OK, "%s",
                err.msg);
  int pinned = 0;
  for (int i = 0; i < report.count; ++i) {
    const cg_record *r = &report.records[i];
    const cg_backend *b = cg_backend_find(r->backend);
    if (!b->needs_device) continue;
    ck_assert_str_eq(r->mode, "pinned");
    ck_assert_msg(r->status == CG_STATUS_OK, "%s: %s", r->backend, r->reason);
    expect_kernel_config(&r->kernel, b, r->variant, r->mode, r->iters_per_run,
                         (pinned_expect){.group = 3}, r->backend);
    ++pinned;
  }
  ck_assert_int_eq(pinned, planned_records("pinned") - cg_test_variant_count("linear", false));
  cg_report_free(&report);
  cg_device_list_free(&list);
}
END_TEST

/* ---- through the implementations: every transfer mode gives pageable's results ---- */

/* Results of different transfer modes differ at most by the order of float sums inside a kernel:
 * the batches, their rows and the arithmetic are the same. */
#define TRANSFER_TOL 1e-5
/* The host reference (OpenBLAS) sums in yet another order, over 14 to 50 SGD steps. */
#define HOST_TOL 1e-4

typedef struct linear_data {
  cg_linear_shape s;
  int epochs;
  float *x, *w0, *b0;
  int *labels, *orders;
} linear_data;

static void make_data(linear_data *d, cg_linear_shape s, int epochs, uint64_t seed) {
  d->s = s;
  d->epochs = epochs;
  const size_t xs = (size_t)s.samples * s.features, ws = (size_t)s.classes * s.features;
  d->x = malloc(xs * sizeof *d->x);
  d->w0 = malloc(ws * sizeof *d->w0);
  d->b0 = malloc((size_t)s.classes * sizeof *d->b0);
  d->labels = malloc((size_t)s.samples * sizeof *d->labels);
  d->orders = cg_linear_orders(s.samples, epochs, seed ^ 0xabcdefull);
  ck_assert(d->x && d->w0 && d->b0 && d->labels && d->orders);
  cg_rng rng;
  cg_rng_seed(&rng, seed);
  cg_rng_fill_normal(&rng, d->x, xs);
  for (int i = 0; i < s.samples; ++i) d->labels[i] = (int)(cg_rng_next(&rng) % s.classes);
  const double bound = 1 / sqrt((double)s.features);
  for (size_t i = 0; i < ws; ++i) d->w0[i] = (float)((2 * cg_rng_uniform(&rng) - 1) * bound);
  for (int i = 0; i < s.classes; ++i) d->b0[i] = (float)((2 * cg_rng_uniform(&rng) - 1) * bound);
}

static void free_data(linear_data *d) {
  free(d->x), free(d->w0), free(d->b0), free(d->labels), free(d->orders);
  memset(d, 0, sizeof *d);
}

/* Train through the implementation: final w, b (poisoned before the download) and each epoch's
 * loss, with the kernel configuration and every run's result checked on the way. `group` is the
 * GROUP override in env, or 0; where it is given, env holds OVERRIDES_AGAIN. */
static void train(const cg_impl *impl, const cg_backend_env *env, const char *variant,
                  const char *mode, int group, float lr, const linear_data *d, float *w, float *b,
                  double *losses, bool profiling, const char *name) {
  const cg_linear_shape s = d->s;
  const int batches = (s.samples + s.batch - 1) / s.batch;
  const cg_linear_setup setup = {.shape = s, .lr = lr};
  void *state = NULL;
  cg_prepared prepared = {.compile_ms = -1, .compile_kind = NULL};
  cg_error err = {0};
  cg_rc rc = impl->prepare(env, variant, mode, &setup, &state, &prepared, &err);
  ck_assert_msg(rc == CG_OK, "%s, %s: prepare: rc %d: %s", name, mode, rc, err.msg);
  ck_assert_ptr_nonnull(prepared.compile_kind);
  const pinned_expect pe = {group, group > 0, group ? OVERRIDE_THREADS : 0,
                            group ? OVERRIDE_SLOTS : 0};
  expect_kernel_config(&prepared.config, impl->backend, variant, mode, batches, pe, name);
  const cg_linear_tensors data = {.x = d->x, .labels = d->labels, .w = d->w0, .b = d->b0};
  ck_assert_msg(impl->upload(state, &data, &err) == CG_OK, "%s: upload: %s", name, err.msg);
  for (int e = 0; e < d->epochs; ++e) {
    const cg_run run = {.index = e,
                        .iters = batches,
                        .kind = e == 0 ? CG_RUN_FIRST : CG_RUN_STEADY,
                        .arg = d->orders + (size_t)e * s.samples};
    ck_assert_msg(impl->enqueue(state, &run, &err) == CG_OK, "%s, %s, epoch %d: enqueue: %s",
                  name, mode, e, err.msg);
    cg_run_result out;
    cg_run_result_init(&out);
    ck_assert_msg(impl->finish(state, &out, &err) == CG_OK, "%s: finish: %s", name, err.msg);
    /* Events bound every epoch: a device time, or the driver's reason for none. */
    if (profiling)
      ck_assert_msg(isfinite(out.device_ms) ||
                        (out.device_why && !strstr(out.device_why, "no profiling events")),
                    "%s, %s, epoch %d: device time %g: %s", name, mode, e, out.device_ms,
                    out.device_why ? out.device_why : "(no reason)");
    ck_assert_msg(isnan(out.device_ms) || out.device_ms > 0, "%s: device time %g", name,
                  out.device_ms);
    ck_assert_msg(out.launches == -1 || out.launches >= 1, "%s: %d launches", name,
                  out.launches);
    losses[e] = out.loss;
    /* No usable stamps at all; or the span alone, outside the epoch timed command by command
     * (the second); or, in that epoch, consistent times: one batch's kernels within the
     * epoch's span, the hidden share a share. */
    const bool per_batch_none = isnan(out.batch_compute_ms) && isnan(out.batch_upload_ms) &&
                                isnan(out.hidden_share);
    const bool none = per_batch_none && isnan(out.device_ms);
    const bool span_only = per_batch_none && out.device_ms > 0 && e != 1;
    const bool consistent = out.batch_compute_ms > 0 && out.batch_upload_ms >= 0 &&
                            out.device_ms >= out.batch_compute_ms && out.hidden_share >= 0 &&
                            out.hidden_share <= 1 && e == 1;
    ck_assert_msg(none || span_only || consistent, "%s, %s, epoch %d: epoch times %g %g %g %g",
                  name, mode, e, out.batch_upload_ms, out.batch_compute_ms, out.device_ms,
                  out.hidden_share);
    /* the host's gather, timed in every epoch where the host gathers (pageable, pinned) */
    const bool gathers = strcmp(mode, "pageable") == 0 || strcmp(mode, "pinned") == 0;
    ck_assert_msg(gathers ? out.batch_gather_ms >= 0 && isfinite(out.batch_gather_ms)
                          : isnan(out.batch_gather_ms),
                  "%s, %s, epoch %d: host gather %g ms per batch", name, mode, e,
                  out.batch_gather_ms);
  }
  for (size_t i = 0; i < (size_t)s.classes * s.features; ++i) w[i] = NAN;
  for (int i = 0; i < s.classes; ++i) b[i] = NAN;
  cg_linear_tensors out = {.w = w, .b = b};
  ck_assert_msg(impl->download(state, &out, &err) == CG_OK, "%s: download: %s", name, err.msg);
  impl->release(state);
}

/* The host reference over the same epochs. */
static void host_reference(const linear_data *d, float lr, float *w, float *b, double *losses) {
  const cg_linear_shape s = d->s;
  const int rows = s.batch < s.samples ? s.batch : s.samples;
  const cg_linear_setup setup = {.shape = s, .lr = lr};
  float *xb = malloc(sizeof(float) * rows * s.features);
  float *logits = malloc(sizeof(float) * rows * s.classes);
  int *lb = malloc(sizeof(int) * rows);
  ck_assert(xb && logits && lb);
  memcpy(w, d->w0, sizeof(float) * s.classes * s.features);
  memcpy(b, d->b0, sizeof(float) * s.classes);
  for (int e = 0; e < d->epochs; ++e) {
    losses[e] = 0;
    for (int start = 0; start < s.samples; start += s.batch) {
      const int n = s.samples - start < s.batch ? s.samples - start : s.batch;
      losses[e] += cg_ref_linear_step(&setup, d->x, d->labels,
                                      d->orders + (size_t)e * s.samples + start, n, w, b, xb,
                                      logits, lb);
    }
  }
  free(xb), free(logits), free(lb);
}

static double loss_err(double got, double want) {
  return fabs(got - want) / (fabs(want) > 0 ? fabs(want) : 1.0);
}

START_TEST(test_transfers_agree) {
  const combo c = combo_at(_i, false);
  const cg_impl *impl = c.impl;
  cg_device_list list;
  void *dev = NULL;
  const char *no_time = NULL;
  cg_error err = {0};
  char name[400];
  const cg_device_info *info = cg_test_device_at(&list, c.device);
  ck_assert_msg(c.backend->open(info, &dev, &no_time, &err) == CG_OK, "%s", err.msg);
  combo_name(&c, &list, name, sizeof name);
  cg_kernel_overrides overrides = {0};
  char text[64];
  snprintf(text, sizeof text, "%s", OVERRIDES_AGAIN);
  ck_assert_msg(cg_kernel_overrides_parse(&overrides, text, &err) == CG_OK, "%s", err.msg);
  const cg_backend_env env = {.device = dev};
  const cg_backend_env env_group = {.device = dev, .overrides = &overrides};
  const bool profiling = info->profiling;
  ck_assert_msg(nmodes(impl) >= 1 && strcmp(impl->modes[0], "pageable") == 0,
                "%s: pageable is not its first transfer mode", name);
  /* the first mode the variant runs (pageable, or resident for epoch) is held against the host,
   * the others against it */
  int first = 0;
  while (first < nmodes(impl) && cg_impl_mode_unsupported(impl, c.variant, impl->modes[first]))
    ++first;
  ck_assert_msg(first < nmodes(impl), "%s: no mode", name);
  const char *base = impl->modes[first];
  /* 25 batches of 8, then 7 of 32 with a last one of 8: many batches in flight for the
   * pipelined modes (pinned: one group of every batch by default; with OVERRIDES_AGAIN groups
   * of 1 to 3 batches, many more than the staging buffers, each reused while others are on
   * their way). */
  const cg_linear_shape shapes[] = {{200, 37, 5, 8}, {200, 37, 5, 32}};
  const float lr = 0.05f;
  for (int k = 0; k < 2; ++k) {
    const cg_linear_shape s = shapes[k];
    const uint64_t seed = cg_test_seed();
    linear_data d;
    make_data(&d, s, 2, seed);
    const size_t ws = (size_t)s.classes * s.features;
    float *w_ref = malloc(ws * sizeof(float)), *b_ref = malloc(s.classes * sizeof(float));
    float *w_page = malloc(ws * sizeof(float)), *b_page = malloc(s.classes * sizeof(float));
    float *w = malloc(ws * sizeof(float)), *b = malloc(s.classes * sizeof(float));
    double loss_ref[2], loss_page[2], loss[2];
    ck_assert(w_ref && b_ref && w_page && b_page && w && b);
    host_reference(&d, lr, w_ref, b_ref, loss_ref);
    train(impl, &env, c.variant, base, 0, lr, &d, w_page, b_page, loss_page, profiling, name);
    /* pageable itself against the host */
    const double ew = cg_rel_error(w_page, w_ref, ws), eb = cg_rel_error(b_page, b_ref, s.classes);
    ck_assert_msg(ew <= HOST_TOL && eb <= HOST_TOL,
                  "%s, %s, batch %d: w off the host reference by %.3g, b by %.3g (seed %llu)",
                  name, base, s.batch, ew, eb, (unsigned long long)seed);
    for (int e = 0; e < 2; ++e)
      ck_assert_msg(loss_err(loss_page[e], loss_ref[e]) <= HOST_TOL,
                    "%s, %s, batch %d: epoch %d loss %.9g, host %.9g (seed %llu)", name, base,
                    s.batch, e, loss_page[e], loss_ref[e], (unsigned long long)seed);
    /* the model moved: the comparisons below mean something */
    ck_assert(cg_rel_error(w_ref, d.w0, ws) > 100 * TRANSFER_TOL);
    /* every other mode, then pinned again with the group overridden */
    for (int t = first + 1; t <= nmodes(impl); ++t) {
      const bool again = t == nmodes(impl);
      const char *mode = again ? "pinned" : impl->modes[t];
      if (cg_impl_mode_unsupported(impl, c.variant, mode)) continue;
      if (again && !cg_impl_has_mode(impl, "pinned")) break;
      char what[64];
      if (again)
        snprintf(what, sizeof what, "%s, %s", mode, OVERRIDES_AGAIN);
      else
        snprintf(what, sizeof what, "%s", mode);
      train(impl, again ? &env_group : &env, c.variant, mode, again ? OVERRIDE_GROUP : 0, lr, &d,
            w, b, loss, profiling, name);
      const double tw = cg_rel_error(w, w_page, ws), tb = cg_rel_error(b, b_page, s.classes);
      ck_assert_msg(tw <= TRANSFER_TOL && tb <= TRANSFER_TOL,
                    "%s, %s, batch %d: w off %s's by %.3g, b by %.3g (seed %llu)", name, what,
                    s.batch, base, tw, tb, (unsigned long long)seed);
      for (int e = 0; e < 2; ++e)
        ck_assert_msg(loss_err(loss[e], loss_page[e]) <= TRANSFER_TOL,
                      "%s, %s, batch %d: epoch %d loss %.9g, %s %.9g (seed %llu)", name, what,
                      s.batch, e, loss[e], base, loss_page[e], (unsigned long long)seed);
    }
    free(w_ref), free(b_ref), free(w_page), free(b_page), free(w), free(b);
    free_data(&d);
  }
  c.backend->close(dev);
  cg_device_list_free(&list);
}
END_TEST

/* Upload d's data to the prepared instance and train its two epochs (d's orders), each one run:
 * their losses, the last path a run gave (*path unchanged where none did) and its launches. */
static void two_epochs(const cg_impl *impl, void *state, const linear_data *d, double losses[2],
                       const char **path, int *launches) {
  cg_error err = {0};
  const cg_linear_shape s = d->s;
  const cg_linear_tensors data = {.x = d->x, .labels = d->labels, .w = d->w0, .b = d->b0};
  ck_assert_msg(impl->upload(state, &data, &err) == CG_OK, "upload: %s", err.msg);
  const int batches = (s.samples + s.batch - 1) / s.batch;
  for (int e = 0; e < 2; ++e) {
    const cg_run run = {.index = e, .iters = batches, .kind = CG_RUN_STEADY,
                        .arg = d->orders + (size_t)e * s.samples};
    ck_assert_msg(impl->enqueue(state, &run, &err) == CG_OK, "enqueue: %s", err.msg);
    cg_run_result out;
    cg_run_result_init(&out);
    ck_assert_msg(impl->finish(state, &out, &err) == CG_OK, "finish: %s", err.msg);
    losses[e] = out.loss;
    if (out.path) *path = out.path;
    *launches = out.launches;
  }
}

/* The host reference's weights and losses after d's two epochs at lr. */
typedef struct host_result {
  float *w, *b;
  double loss[2];
} host_result;

static void host_result_make(host_result *r, const linear_data *d, float lr) {
  const size_t ws = (size_t)d->s.classes * d->s.features;
  r->w = malloc(ws * sizeof(float));
  r->b = malloc((size_t)d->s.classes * sizeof(float));
  ck_assert(r->w && r->b);
  host_reference(d, lr, r->w, r->b, r->loss);
}

static void host_result_free(host_result *r) {
  free(r->w);
  free(r->b);
}

/* The instance's weights (downloaded, and the instance released) and its two epochs' losses
 * against the host's. */
static void expect_host_result(const cg_impl *impl, void *state, const host_result *r,
                               cg_linear_shape s, const double losses[2], const char *name,
                               uint64_t seed) {
  cg_error err = {0};
  const size_t ws = (size_t)s.classes * s.features;
  float *w = malloc(ws * sizeof(float)), *b = malloc((size_t)s.classes * sizeof(float));
  ck_assert(w && b);
  for (size_t i = 0; i < ws; ++i) w[i] = NAN;
  for (int i = 0; i < s.classes; ++i) b[i] = NAN;
  cg_linear_tensors got = {.w = w, .b = b};
  ck_assert_msg(impl->download(state, &got, &err) == CG_OK, "%s: download: %s", name, err.msg);
  impl->release(state);
  const double ew = cg_rel_error(w, r->w, ws), eb = cg_rel_error(b, r->b, s.classes);
  free(w);
  free(b);
  ck_assert_msg(ew <= HOST_TOL && eb <= HOST_TOL,
                "%s: w off the host reference by %.3g, b by %.3g (seed %llu)", name, ew, eb,
                (unsigned long long)seed);
  for (int e = 0; e < 2; ++e)
    ck_assert_msg(loss_err(losses[e], r->loss[e]) <= HOST_TOL,
                  "%s: epoch %d loss %.9g, host %.9g (seed %llu)", name, e, losses[e],
                  r->loss[e], (unsigned long long)seed);
}

/* The fused variant's persistent path in resident and pinned mode
 * (src/backends/cl/linear_persistent.c) against the host on every device: one work-group (its
 * barriers pass alone), a few (resident or not: the check decides), far too many for the check
 * (launches), and too many without the check (PERSIST=2: the launch fails at its barrier and
 * the epoch is redone with launches); both barriers (SYNC).
 * Batches of 8 over 37 features and 5 classes, a last batch of 3, groups with empty slices;
 * rows fetched a batch ahead or in their batch (PREFETCH), more of them than the work-items'
 * registers hold, partials padded past the groups. A bad PREFETCH or SYNC is refused. */
START_TEST(test_persistent) {
  cg_device_list list;
  const cg_device_info *info = cg_test_device_at(&list, _i);
  const cg_impl *impl = cg_impl_find(cg_backend_find("cl"), "linear");
  ck_assert_ptr_nonnull(impl);
  void *dev = NULL;
  const char *no_time = NULL;
  cg_error err = {0};
  ck_assert_msg(impl->backend->open(info, &dev, &no_time, &err) == CG_OK, "%s", err.msg);
  const struct {
    const char *params, *path;
    int launches_after; /* per batch once the first epoch has run: -1 for one per launch */
    const char *mode;   /* resident where not said */
  } cases[] = {
      {"PERSIST=1,PGROUPS=1", "persistent, one launch per epoch: 1 work-groups", -1, NULL},
      {"PERSIST=1,PGROUPS=1,PREFETCH=0", "persistent, one launch per epoch: 1 work-groups", -1,
       NULL},
      {"PERSIST=1,PGROUPS=2", NULL, 0, NULL},
      /* four work-items: a slice (19 features) wider than the group, rows beyond the
       * registers fetched ahead (loaded in their batch) */
      {"PERSIST=2,PGROUPS=2,WG_PERSIST=4", NULL, 0, NULL},
      /* the partials padded to 4 groups; the generation barrier */
      {"PERSIST=2,PGROUPS=2,PREFETCH=0,SYNC=0", NULL, 0, NULL},
      /* two groups' data path where they do run at once */
      {"PERSIST=2,PGROUPS=2", NULL, 0, NULL},
      {"PERSIST=1,PGROUPS=3", NULL, 0, NULL},
      {"PERSIST=1,PGROUPS=4096", "launches: 4096 work-groups", 2, NULL},
      {"PERSIST=2,PGROUPS=4096", "launches: a persistent launch found a work-group", 2, NULL},
      {"PERSIST=2,PGROUPS=4096,SPIN=64", "launches: a persistent launch found a work-group", 2,
       NULL},
      {"PERSIST=2,PGROUPS=4096,SPIN=64,SYNC=0", "launches: a persistent launch found a work-group",
       2, NULL},
      {"PERSIST=0", "launches: PERSIST=0", 2, NULL},
      /* pinned: a launch per upload group of 3 batches (the loss carried from one to the
       * next), the last group of one batch (of 3 rows); a failing one redone with launches
       * from the group that failed, the later launches doing nothing */
      {"PERSIST=1,PGROUPS=1,GROUP=3", "persistent, one launch per upload group: 1 work-groups",
       -1, "pinned"},
      {"PERSIST=2,PGROUPS=2,GROUP=3,PREFETCH=0", NULL, 0, "pinned"},
      {"PERSIST=2,PGROUPS=4096,SPIN=64,GROUP=3", "launches: a persistent launch found a work-group",
       2, "pinned"},
      {"PERSIST=0", "launches: PERSIST=0", 2, "pinned"},
  };
  /* a bad PREFETCH, SYNC or WG_PERSIST is refused, naming the value */
  const char *bad[] = {"PREFETCH=2", "SYNC=-1", "WG_PERSIST=0", "WG_PERSIST=999999"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
    cg_kernel_overrides ov = {0};
    char params[64];
    snprintf(params, sizeof params, "PERSIST=2,PGROUPS=1,%s", bad[i]);
    ck_assert_int_eq(cg_kernel_overrides_parse(&ov, params, &err), CG_OK);
    const cg_backend_env env = {.device = dev, .overrides = &ov};
    const cg_linear_setup setup = {.shape = {5, 3, 2, 2}, .lr = 0.1f};
    void *state = NULL;
    cg_prepared prepared = {0};
    ck_assert_int_eq(impl->prepare(&env, "fused", "resident", &setup, &state, &prepared, &err),
                     CG_BAD_INPUT);
    ck_assert_msg(strstr(err.msg, bad[i]), "%s not named in: %s", bad[i], err.msg);
    err = (cg_error){0};
  }
  const cg_linear_shape s = {203, 37, 5, 8};
  const float lr = 0.05f;
  const uint64_t seed = cg_test_seed();
  linear_data d;
  make_data(&d, s, 2, seed);
  host_result ref;
  host_result_make(&ref, &d, lr);
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
    /* PERSIST=2 on a GPU may well find 4096 groups resident: only where the check says no */
    if (strstr(cases[c].params, "4096") && (info->type & CL_DEVICE_TYPE_GPU)) continue;
    cg_kernel_overrides ov = {0};
    ck_assert_int_eq(cg_kernel_overrides_parse(&ov, cases[c].params, &err), CG_OK);
    const cg_backend_env env = {.device = dev, .overrides = &ov};
    const cg_linear_setup setup = {.shape = s, .lr = lr};
    void *state = NULL;
    cg_prepared prepared = {0};
    const char *mode = cases[c].mode ? cases[c].mode : "resident";
    /* named before it runs, so that a case that brings the process down is known */
    printf("%s, %s, %s ...\n", info->name, mode, cases[c].params);
    fflush(stdout);
    ck_assert_msg(impl->prepare(&env, "fused", mode, &setup, &state, &prepared, &err) == CG_OK,
                  "%s: %s", cases[c].params, err.msg);
    const char *path = prepared.config.path;
    double losses[2];
    int launches = 0;
    two_epochs(impl, state, &d, losses, &path, &launches);
    printf("%s, %s, %s: %s\n", info->name, mode, cases[c].params, path);
    if (cases[c].path)
      ck_assert_msg(strstr(path, cases[c].path), "%s, %s: path '%s'", info->name,
                    cases[c].params, path);
    if (cases[c].launches_after)
      ck_assert_int_eq(launches, cases[c].launches_after);
    else
      ck_assert_int_eq(launches, strncmp(path, "persistent", 10) == 0 ? -1 : 2);
    char name[400];
    snprintf(name, sizeof name, "%s, %s", info->name, cases[c].params);
    expect_host_result(impl, state, &ref, s, losses, name, seed);
  }
  host_result_free(&ref);
  free_data(&d);
  impl->backend->close(dev);
  cg_device_list_free(&list);
}
END_TEST

/* Variant epoch, one work-group over every batch, at a shape where a work-item of the 32 that
 * rusticl on llvmpipe runs would loop about 115000 times: refused, naming the loops, where the
 * driver cuts loops shorter (clgauge/loop_limit.h); elsewhere right. */
START_TEST(test_epoch_loop_limit) {
  const cg_impl *impl = linear_impl(cg_backend_find("cl"));
  cg_device_list list;
  const cg_device_info *info = cg_test_device_at(&list, _i);
  void *dev = NULL;
  const char *no_time = NULL;
  cg_error err = {0};
  ck_assert_msg(impl->backend->open(info, &dev, &no_time, &err) == CG_OK, "%s", err.msg);
  const cg_backend_env env = {.device = dev};
  uint64_t limit = 0;
  ck_assert_msg(cg_loop_limit((const cg_device *)dev, NULL, &limit, &err) == CG_OK, "%s",
                err.msg);
  const cg_linear_shape s = {5000, 100, 10, 32};
  const float lr = 0.05f;
  const uint64_t seed = cg_test_seed();
  linear_data d;
  make_data(&d, s, 2, seed);
  const cg_linear_setup setup = {.shape = s, .lr = lr};
  void *state = NULL;
  cg_prepared prepared = {0};
  const cg_rc rc = impl->prepare(&env, "epoch", "resident", &setup, &state, &prepared, &err);
  if (limit) {
    ck_assert_msg(rc == CG_UNSUPPORTED && strstr(err.msg, "loops after"), "%s: rc %d: %s",
                  info->name, rc, err.msg);
    ck_assert_ptr_null(state);
  } else {
    ck_assert_msg(rc == CG_OK, "%s: %s", info->name, err.msg);
    host_result ref;
    host_result_make(&ref, &d, lr);
    double losses[2];
    const char *path = NULL;
    int launches = 0;
    two_epochs(impl, state, &d, losses, &path, &launches);
    expect_host_result(impl, state, &ref, s, losses, info->name, seed);
    host_result_free(&ref);
  }
  free_data(&d);
  impl->backend->close(dev);
  cg_device_list_free(&list);
}
END_TEST

/* The host implementation runs the reference's own code: only OpenBLAS's choice of kernels (by
 * thread count) could make the sums differ. */
#define SAME_CODE_TOL 1e-6

/* The host implementation through the same calls: the reference's results, host mode only, no
 * kernels. */
START_TEST(test_host_impl) {
  const cg_impl *impl = linear_impl(cg_backend_find("cpu"));
  ck_assert_ptr_nonnull(impl);
  const cg_linear_shape s = {200, 37, 5, 32};
  const float lr = 0.05f;
  const uint64_t seed = cg_test_seed();
  linear_data d;
  make_data(&d, s, 2, seed);
  const size_t ws = (size_t)s.classes * s.features;
  float *w_ref = malloc(ws * sizeof(float)), *b_ref = malloc(s.classes * sizeof(float));
  float *w = malloc(ws * sizeof(float)), *b = malloc(s.classes * sizeof(float));
  double loss_ref[2], loss[2];
  ck_assert(w_ref && b_ref && w && b);
  host_reference(&d, lr, w_ref, b_ref, loss_ref);
  const cg_backend_env env = {0};
  train(impl, &env, "openblas", "host", 0, lr, &d, w, b, loss, false, "cpu/openblas");
  const double ew = cg_rel_error(w, w_ref, ws), eb = cg_rel_error(b, b_ref, s.classes);
  ck_assert_msg(ew <= SAME_CODE_TOL && eb <= SAME_CODE_TOL,
                "cpu/openblas: w off the reference by %.3g, b by %.3g (seed %llu)", ew, eb,
                (unsigned long long)seed);
  for (int e = 0; e < 2; ++e)
    ck_assert_msg(loss_err(loss[e], loss_ref[e]) <= SAME_CODE_TOL,
                  "cpu/openblas: epoch %d loss %.9g, reference %.9g (seed %llu)", e, loss[e],
                  loss_ref[e], (unsigned long long)seed);
  const cg_linear_setup setup = {.shape = s, .lr = lr};
  void *state = NULL;
  cg_prepared prepared = {0};
  cg_error err = {0};
  ck_assert_int_eq(impl->prepare(&env, "openblas", "pinned", &setup, &state, &prepared, &err),
                   CG_UNSUPPORTED);
  ck_assert_msg(strstr(err.msg, "pinned") != NULL, "mode not named: %s", err.msg);
  ck_assert_ptr_null(state);
  free(w_ref), free(b_ref), free(w), free(b);
  free_data(&d);
}
END_TEST

/* A GROUP override of 0 is refused, and so are device slots below two (no upload beside a
 * compute) or past CG_CL_LINEAR_MAX_SLOTS; a GROUP larger than the epoch runs with the epoch's
 * batches. */
START_TEST(test_group_override_limits) {
  const combo c = combo_at(_i, false);
  const cg_impl *impl = c.impl;
  if (!cg_impl_has_mode(impl, "pinned") || cg_impl_mode_unsupported(impl, c.variant, "pinned"))
    return;
  cg_device_list list;
  void *dev = NULL;
  const char *no_time = NULL;
  cg_error err = {0};
  char name[400];
  const cg_device_info *info = cg_test_device_at(&list, c.device);
  ck_assert_msg(c.backend->open(info, &dev, &no_time, &err) == CG_OK, "%s", err.msg);
  combo_name(&c, &list, name, sizeof name);
  const cg_linear_setup setup = {.shape = {200, 37, 5, 32}, .lr = 0.05f}; /* 7 batches */
  cg_backend_env env = {.device = dev};
  void *state = NULL;
  cg_prepared prepared = {0};
  const char *refused[] = {"GROUP=0", "SLOTS=1", "SLOTS=5"};
  for (size_t i = 0; i < sizeof refused / sizeof refused[0]; ++i) {
    cg_kernel_overrides bad = {0};
    ck_assert_int_eq(cg_kernel_overrides_parse(&bad, refused[i], &err), CG_OK);
    env.overrides = &bad;
    ck_assert_int_eq(impl->prepare(&env, c.variant, "pinned", &setup, &state, &prepared, &err),
                     CG_BAD_INPUT);
    ck_assert_msg(strstr(err.msg, refused[i]) != NULL, "%s: override not named: %s", name,
                  err.msg);
    ck_assert_ptr_null(state);
  }
  cg_kernel_overrides large = {0};
  ck_assert_int_eq(cg_kernel_overrides_parse(&large, "GROUP=100", &err), CG_OK);
  env.overrides = &large;
  ck_assert_msg(impl->prepare(&env, c.variant, "pinned", &setup, &state, &prepared, &err) ==
                    CG_OK,
                "%s: %s", name, err.msg);
  expect_kernel_config(&prepared.config, c.backend, c.variant, "pinned", 7,
                       (pinned_expect){.group = 100}, name);
  impl->release(state);
  /* the other modes have no groups: the override leaves them alone */
  ck_assert_msg(impl->prepare(&env, c.variant, "resident", &setup, &state, &prepared, &err) ==
                    CG_OK,
                "%s: %s", name, err.msg);
  expect_kernel_config(&prepared.config, c.backend, c.variant, "resident", 7, (pinned_expect){0},
                       name);
  impl->release(state);
  c.backend->close(dev);
  cg_device_list_free(&list);
}
END_TEST

/* ---- validation ---- */

/* The value refused where it is set, and where the engine checks a job whose value was put in
 * directly, with one line naming it. */
static void expect_bad_value(const char *param, double value, const char *named, cg_error *out) {
  cg_job job;
  cg_selection sel;
  case_job(&job, &sel, &run_cases[0]);
  cg_error err = {0};
  cg_rc rc = cg_params_set(&job.params, param, value, &err);
  ck_assert_msg(rc == CG_BAD_INPUT, "--%s %g: expected CG_BAD_INPUT naming '%s', got rc %d",
                param, value, named, rc);
  ck_assert_msg(strstr(err.msg, named) != NULL, "'%s' not named in: %s", named, err.msg);
  ck_assert_msg(strchr(err.msg, '\n') == NULL, "not one line: %s", err.msg);
  const int k = cg_params_index(&job.params, param);
  ck_assert_int_ge(k, 0);
  job.params.v[k] = value;
  err = (cg_error){0};
  rc = cg_engine_validate(&job, &sel, NULL, &err);
  ck_assert_msg(rc == CG_BAD_INPUT, "engine, --%s %g: expected CG_BAD_INPUT, got rc %d", param,
                value, rc);
  ck_assert_msg(strstr(err.msg, named) != NULL, "engine: '%s' not named in: %s", named, err.msg);
  ck_assert_msg(strchr(err.msg, '\n') == NULL, "not one line: %s", err.msg);
  if (out) *out = err;
}

/* The engine refuses the job with one line naming `named`. */
static void expect_bad_job(const cg_job *job, const cg_selection *sel, const cg_device_info *info,
                           const char *named, cg_error *out) {
  cg_error err = {0};
  cg_rc rc = cg_engine_validate(job, sel, info, &err);
  if (out) *out = err;
  ck_assert_msg(rc == CG_BAD_INPUT, "expected CG_BAD_INPUT naming '%s', got rc %d", named, rc);
  ck_assert_msg(strstr(err.msg, named) != NULL, "'%s' not named in: %s", named, err.msg);
  ck_assert_msg(strchr(err.msg, '\n') == NULL, "not one line: %s", err.msg);
}

static void expect_ok_value(const char *param, double value) {
  cg_job job;
  cg_selection sel;
  case_job(&job, &sel, &run_cases[0]);
  set_param(&job, param, value);
  cg_error err = {0};
  ck_assert_msg(cg_engine_validate(&job, &sel, NULL, &err) == CG_OK, "--%s %g: %s", param, value,
                err.msg);
}

START_TEST(test_validate_values) {
  cg_job job;
  cg_error err = {0};
  const cg_selection defaults_sel = {.seed = 42};
  cg_job_init(&job, &cg_workload_linear);
  ck_assert_msg(cg_engine_validate(&job, &defaults_sel, NULL, &err) == CG_OK, "defaults: %s",
                err.msg);
  /* The report's setup. */
  ck_assert_int_eq(param_int(&job, "samples"), 10000);
  ck_assert_int_eq(param_int(&job, "features"), 1000);
  ck_assert_int_eq(param_int(&job, "classes"), 10);
  ck_assert_int_eq(param_int(&job, "batch"), 32);
  ck_assert_int_eq(param_int(&job, "epochs"), 10);
  ck_assert_double_eq_tol(cg_params_get(&job.params, "lr"), 0.01, 1e-12);
  ck_assert_str_eq(cg_workload_linear.loss_unit, "epoch");
  const cg_mode_desc *m = cg_workload_linear.modes;
  ck_assert_ptr_nonnull(m);
  ck_assert_str_eq(m->option, "transfer");
  ck_assert_str_eq(m->host_mode, "host");
  ck_assert(mode_index("pageable") >= 0 && mode_index("pinned") >= 0 &&
            mode_index("resident") >= 0);
  for (int i = 0; m->names[i]; ++i)
    ck_assert_msg(job.modes[i] == (strcmp(m->names[i], "pageable") == 0), "mode %s %s",
                  m->names[i], job.modes[i] ? "selected" : "not selected");

  expect_bad_value("classes", 0, "--classes 0", NULL);
  expect_bad_value("classes", -2, "--classes -2", NULL);
  expect_bad_value("batch", 0, "--batch 0", NULL);
  expect_bad_value("samples", 0, "--samples 0", NULL);
  expect_bad_value("features", -1, "--features -1", NULL);
  expect_bad_value("epochs", 0, "--epochs 0", NULL);
  expect_bad_value("lr", -0.5, "--lr -0.5", NULL);
  cg_error e = {0};
  expect_bad_value("lr", NAN, "--lr", &e);
  ck_assert_msg(cg_test_contains_nocase(e.msg, "nan"), "NaN not named in: %s", e.msg);
  expect_ok_value("lr", 0);
  expect_ok_value("batch", 100000); /* larger than the dataset is fine */
  expect_ok_value("classes", 1);

  const char *foo[] = {"foo", NULL};
  cg_selection sel;
  case_job(&job, &sel, &run_cases[0]);
  sel.backends = foo;
  expect_bad_job(&job, &sel, NULL, "'foo'", NULL);
  case_job(&job, &sel, &run_cases[0]);
  sel.variants = foo;
  expect_bad_job(&job, &sel, NULL, "'foo'", NULL);
  /* Every backend has linear, and every implementation and variant is accepted on its own. */
  for (const cg_backend *const *b = cg_backend_all(); *b; ++b)
    ck_assert_msg(linear_impl(*b) != NULL, "%s: no linear implementation", (*b)->name);
  int impls = 0;
  for (const cg_impl *const *i = cg_impl_all(); *i; ++i) {
    const cg_impl *impl = *i;
    if (strcmp(impl->workload, "linear") != 0) continue;
    ++impls;
    const cg_backend *b = impl->backend;
    ck_assert_ptr_eq(linear_impl(b), impl);
    ck_assert_msg(impl->variants && impl->variants[0], "%s", b->name);
    ck_assert_msg(impl->prepare && impl->upload && impl->enqueue && impl->finish &&
                      impl->download && impl->release,
                  "%s: an entry is missing", b->name);
    if (b->needs_device) {
      ck_assert_msg(nmodes(impl) >= 1, "%s: %d transfer modes", b->name, nmodes(impl));
      for (int k = 0; k < nmodes(impl); ++k)
        ck_assert_msg(mode_index(impl->modes[k]) >= 0, "%s: mode %s", b->name, impl->modes[k]);
      /* pinned's GROUP, RAMP, THREADS and SLOTS; and the cl backend's epoch variant's
       * work-group, then the persistent path's PERSIST, PGROUPS, SPIN, WG_PERSIST, PREFETCH and
       * SYNC */
      const bool cl = strcmp(b->name, "cl") == 0;
      const char *const *kp = impl->kernel_params;
      int nkp = 0;
      while (kp && kp[nkp]) ++nkp;
      ck_assert_msg(kp && nkp == (cl ? 11 : 4) && strcmp(kp[0], "GROUP") == 0 &&
                        strcmp(kp[1], "RAMP") == 0 && strcmp(kp[2], "THREADS") == 0 &&
                        strcmp(kp[3], "SLOTS") == 0 && (!cl || strcmp(kp[4], "WG_EPOCH") == 0),
                    "%s: kernel parameters", b->name);
    } else {
      ck_assert_msg(nmodes(impl) == 1 && strcmp(impl->modes[0], m->host_mode) == 0,
                    "%s: modes of a host implementation", b->name);
      ck_assert_ptr_null(impl->kernel_params);
    }
    for (const char *const *v = impl->variants; *v; ++v) {
      const char *bs[] = {b->name, NULL}, *vs[] = {*v, NULL};
      case_job(&job, &sel, &run_cases[0]);
      sel.backends = bs;
      sel.variants = vs;
      ck_assert_msg(cg_engine_validate(&job, &sel, NULL, &err) == CG_OK, "%s/%s: %s", b->name,
                    *v, err.msg);
    }
  }
  ck_assert_int_eq(impls, 3);
}
END_TEST

START_TEST(test_select_modes) {
  cg_job job;
  cg_error err = {0};
  const char *names[] = {"pageable", "pinned", "resident"};
  for (int t = 0; t < 3; ++t) {
    cg_job_init(&job, &cg_workload_linear);
    ck_assert_int_eq(cg_job_select_modes(&job, names[t], &err), CG_OK);
    for (int u = 0; u < 3; ++u)
      ck_assert_int_eq(job.modes[mode_index(names[u])], u == t);
    ck_assert_str_eq(cg_transfer_name((cg_transfer)t), names[t]);
    ck_assert_int_eq(cg_transfer_from_name(names[t]), t);
  }
  ck_assert_str_eq(cg_transfer_name(CG_TRANSFER_HOST), "host");
  ck_assert_int_eq(cg_transfer_from_name("host"), CG_TRANSFER_HOST);
  ck_assert_int_eq(cg_transfer_from_name(NULL), CG_TRANSFER_HOST);
  ck_assert_int_eq(cg_transfer_from_name("foo"), CG_TRANSFER_HOST);
  cg_job_init(&job, &cg_workload_linear);
  ck_assert_int_eq(cg_job_select_modes(&job, "all", &err), CG_OK);
  for (int t = 0; t < 3; ++t) ck_assert(job.modes[mode_index(names[t])]);
  const char *bad[] = {"foo", "", "Pinned", "all,pinned", "host"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
    cg_job_init(&job, &cg_workload_linear);
    ck_assert_msg(cg_job_select_modes(&job, bad[i], &err) == CG_BAD_INPUT, "'%s' accepted",
                  bad[i]);
    char named[64];
    snprintf(named, sizeof named, "'%s'", bad[i]);
    ck_assert_msg(strstr(err.msg, "--transfer") && strstr(err.msg, named),
                  "option and value not named: %s", err.msg);
    ck_assert_msg(strchr(err.msg, '\n') == NULL, "not one line: %s", err.msg);
  }
}
END_TEST

START_TEST(test_validate_device_limits) {
  cg_device_list list;
  cg_test_devices(&list);
  for (int i = 0; i < list.count; ++i) {
    const cg_device_info *info = &list.items[i];
    cg_job job;
    cg_selection sel;
    cg_error err = {0};
    /* A resident dataset larger than one allocation; fine when it streams in batches. */
    case_job(&job, &sel, &run_cases[0]);
    const int samples = (int)(info->max_alloc / 4 / 1024) + 1;
    if (samples <= CG_LINEAR_MAX_DIM && 4.0 * samples * 1024 < 64e9) {
      set_param(&job, "features", 1024);
      set_param(&job, "samples", samples);
      ck_assert_int_eq(cg_job_select_modes(&job, "resident", &err), CG_OK);
      expect_bad_job(&job, &sel, info, "resident", &err);
      ck_assert_msg(strstr(err.msg, info->name) != NULL, "device not named: %s", err.msg);
      ck_assert_int_eq(cg_job_select_modes(&job, "pageable", &err), CG_OK);
      ck_assert_msg(cg_engine_validate(&job, &sel, info, &err) == CG_OK, "%s", err.msg);
    }
    /* A model (classes x features) larger than one allocation. */
    case_job(&job, &sel, &run_cases[0]);
    const int features = (int)(info->max_alloc / 4 / (1 << 16)) + 1;
    if (features <= CG_LINEAR_MAX_DIM) {
      set_param(&job, "classes", 1 << 16);
      set_param(&job, "features", features);
      char named[64];
      snprintf(named, sizeof named, "--features %d", features);
      expect_bad_job(&job, &sel, info, named, &err);
      ck_assert_msg(strstr(err.msg, "--classes 65536") != NULL, "classes not named: %s",
                    err.msg);
      /* Without a device only the host bounds it: its copies of the model (three) fit where
       * the device's allocation limit is well under a third of the host's memory; near it, a
       * refusal must name the host's memory. */
      const double copies = 3.0 * 4.0 * (1 << 16) * features;
      const cg_rc host_rc = cg_engine_validate(&job, &sel, NULL, &err);
      if (copies < 0.9 * (double)cg_host_memory())
        ck_assert_msg(host_rc == CG_OK, "no device: %s", err.msg);
      else
        ck_assert_msg(host_rc == CG_OK || strstr(err.msg, "the host has") != NULL,
                      "no device, refused for another reason than the host's memory: %s",
                      err.msg);
    }
    case_job(&job, &sel, &run_cases[0]);
    ck_assert_int_eq(cg_job_select_modes(&job, "all", &err), CG_OK);
    ck_assert_msg(cg_engine_validate(&job, &sel, info, &err) == CG_OK, "%s", err.msg);
  }
  cg_device_list_free(&list);
}
END_TEST

static int device_count(void) {
  int n = cg_test_device_count();
  return n > 0 ? n : 0;
}

/* The pinned group's default by batch size: CG_CL_LINEAR_PINNED_GROUP batches while they fit in
 * CG_CL_LINEAR_PINNED_GROUP_BYTES, halved until they do, one batch at the least. */
START_TEST(test_pinned_group_rule) {
  const size_t cap = CG_CL_LINEAR_PINNED_GROUP_BYTES, full = CG_CL_LINEAR_PINNED_GROUP;
  ck_assert_int_eq(cg_cl_linear_pinned_group(1), CG_CL_LINEAR_PINNED_GROUP);
  ck_assert_int_eq(cg_cl_linear_pinned_group(32 * 1001 * 4), CG_CL_LINEAR_PINNED_GROUP);
  ck_assert_int_eq(cg_cl_linear_pinned_group(cap / full), CG_CL_LINEAR_PINNED_GROUP);
  ck_assert_int_eq(cg_cl_linear_pinned_group(cap / full + 1), CG_CL_LINEAR_PINNED_GROUP / 2);
  /* a batch of 128 rows of 4096 features and its labels: 2.1 MB */
  ck_assert_int_eq(cg_cl_linear_pinned_group((size_t)128 * 4097 * 4), 16);
  ck_assert_int_eq(cg_cl_linear_pinned_group(cap / 16), 16);
  ck_assert_int_eq(cg_cl_linear_pinned_group(cap), 1);
  ck_assert_int_eq(cg_cl_linear_pinned_group(cap * 3), 1);
  for (size_t bytes = 1; bytes < cap * 4; bytes = bytes * 3 + 1) {
    const int g = cg_cl_linear_pinned_group(bytes);
    ck_assert_msg(g >= 1 && g <= CG_CL_LINEAR_PINNED_GROUP && (g & (g - 1)) == 0, "%zu: %d",
                  bytes, g);
    ck_assert_msg(g == 1 || bytes * (size_t)g <= cap, "%zu bytes: %d batches", bytes, g);
    ck_assert_msg(g == CG_CL_LINEAR_PINNED_GROUP || bytes * (size_t)g * 2 > cap, "%zu: %d", bytes,
                  g);
  }
}
END_TEST

Suite *cg_linear_suite(void) {
  Suite *s = suite_create("linear");
  TCase *tc = tcase_create("reference");
  tcase_set_timeout(tc, 30);
  tcase_add_test(tc, test_xent_ordinary);
  tcase_add_test(tc, test_xent_large_logits);
  tcase_add_test(tc, test_xent_no_overflow);
  tcase_add_test(tc, test_orders);
  tcase_add_test(tc, test_host_impl);
  tcase_add_test(tc, test_pinned_group_rule);
  suite_add_tcase(s, tc);

  tc = tcase_create("workload");
  tcase_set_timeout(tc, CG_TEST_OPENCL_TIMEOUT);
  tcase_add_loop_test(tc, test_workload_records, 0, combo_count(true));
  tcase_add_loop_test(tc, test_workload_all_backends, 0, device_count());
  tcase_add_loop_test(tc, test_workload_group_override, 0, device_count());
  tcase_add_test(tc, test_workload_without_device);
  suite_add_tcase(s, tc);

  tc = tcase_create("transfers");
  tcase_set_timeout(tc, CG_TEST_OPENCL_TIMEOUT);
  tcase_add_loop_test(tc, test_transfers_agree, 0, combo_count(false));
  tcase_add_loop_test(tc, test_group_override_limits, 0, combo_count(false));
  tcase_add_loop_test(tc, test_persistent, 0, device_count());
  tcase_add_loop_test(tc, test_epoch_loop_limit, 0, device_count());
  suite_add_tcase(s, tc);

  tc = tcase_create("validate");
  tcase_set_timeout(tc, CG_TEST_OPENCL_TIMEOUT);
  tcase_add_test(tc, test_validate_values);
  tcase_add_test(tc, test_select_modes);
  tcase_add_test(tc, test_validate_device_limits);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return cg_test_main(cg_linear_suite, true); }
