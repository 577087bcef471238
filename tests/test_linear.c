/* Check suite of the linear workload: the host softmax cross-entropy against a float64 reference
 * (large logits included), the epoch orders, every backend, variant and transfer mode on every
 * device through the workload, equal results across transfer modes through the ops, and
 * validation of the configuration. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clgauge/backend.h"
#include "clgauge/device.h"
#include "clgauge/linear.h"
#include "clgauge/random.h"
#include "clgauge/reference.h"
#include "clgauge/report.h"
#include "test_util.h"

/* ---- what each looped test runs: (device, backend, variant) ---- */

static const char *const *linear_variants(const cg_backend *b) {
  return b->linear ? b->linear->variants : NULL;
}

typedef cg_test_combo combo;
static int combo_count(bool with_host) { return cg_test_combo_count(linear_variants, with_host); }
static combo combo_at(int index, bool with_host) {
  return cg_test_combo_at(linear_variants, index, with_host);
}
#define combo_name cg_test_combo_name


static int ntransfers(const cg_linear_ops *ops) {
  int n = 0;
  while (ops->transfers[n] != CG_TRANSFER_HOST) ++n;
  return n;
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

/* ---- every backend, variant and transfer mode through the workload ---- */

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

static void case_config(cg_linear_config *cfg, const run_case *rc) {
  cg_linear_defaults(cfg);
  cfg->shape = (cg_linear_shape){rc->samples, rc->features, rc->classes, rc->batch};
  cfg->epochs = rc->epochs;
  cfg->lr = 0.05;
  cfg->seed = cg_test_seed();
}

/* Every record of a linear report ok, verified, with a loss per epoch. */
static void expect_linear_record(const cg_record *r, const cg_linear_config *cfg,
                                 const cg_device_info *info, const char *name) {
  const cg_linear_shape s = cfg->shape;
  ck_assert_msg(r->status == CG_STATUS_OK, "%s, %s transfer, %dx%dx%d batch %d: status %s: %s "
                "(seed %llu)", name, r->transfer, s.samples, s.features, s.classes, s.batch,
                cg_status_name(r->status), r->reason, (unsigned long long)cfg->seed);
  ck_assert_str_eq(r->workload, "linear");
  ck_assert_int_eq(r->nlosses, cfg->epochs);
  ck_assert_int_eq(r->loss_every, 1);
  ck_assert_str_eq(r->loss_unit, "epoch");
  for (int e = 0; e < r->nlosses; ++e) {
    ck_assert_msg(isfinite(r->losses[e]) && r->losses[e] >= 0, "%s: epoch %d loss %g", name, e,
                  r->losses[e]);
    if (s.classes == 1) ck_assert_msg(r->losses[e] == 0, "%s: one class, loss %g", name,
                                      r->losses[e]);
  }
  ck_assert_int_eq(r->nruns, cfg->epochs);
  ck_assert_int_eq(r->iters_per_run, (s.samples + s.batch - 1) / s.batch);
  ck_assert_double_eq(cg_record_param(r, "samples"), s.samples);
  ck_assert_double_eq(cg_record_param(r, "features"), s.features);
  ck_assert_double_eq(cg_record_param(r, "classes"), s.classes);
  ck_assert_double_eq(cg_record_param(r, "batch"), s.batch);
  ck_assert_double_eq(cg_record_param(r, "epochs"), cfg->epochs);
  ck_assert_msg(isfinite(r->upload_ms) && isfinite(r->download_ms) &&
                    isfinite(r->first.complete_ms),
                "%s: a phase of an ok record is not measured", name);
  if (r->host_backend) return;
  ck_assert_str_eq(r->device, info->name);
  ck_assert_msg(isfinite(r->verify_error) && isfinite(r->verify_loss_error) &&
                    isfinite(r->verify_weights_error),
                "%s, %s: verify errors %g, %g, %g", name, r->transfer, r->verify_error,
                r->verify_loss_error, r->verify_weights_error);
  ck_assert_msg(r->verify_tolerance > 0 && r->verify_tolerance <= 1e-3, "tolerance %g",
                r->verify_tolerance);
  ck_assert_msg(r->verify_error <= r->verify_tolerance, "%s, %s: verify error %g over %g", name,
                r->transfer, r->verify_error, r->verify_tolerance);
}

START_TEST(test_workload_records) {
  const combo c = combo_at(_i, true);
  cg_device_list list = {0};
  const cg_device_info *info = NULL;
  char name[400];
  if (c.device >= 0) {
    cg_test_devices(&list);
    info = &list.items[c.device];
  }
  combo_name(&c, &list, name, sizeof name);
  const cg_linear_ops *ops = c.backend->linear;
  for (int k = 0; k < NRUN_CASES; ++k) {
    const char *backends[] = {c.backend->name, NULL}, *variants[] = {c.variant, NULL};
    cg_linear_config cfg;
    case_config(&cfg, &run_cases[k]);
    cfg.backends = backends;
    cfg.variants = variants;
    /* every mode the backend lists (the host backend runs once, whatever is asked) */
    int expected = 1;
    if (c.device >= 0) {
      for (int t = 0; t < 3; ++t) cfg.transfers[t] = false;
      for (int t = 0; t < ntransfers(ops); ++t) cfg.transfers[ops->transfers[t]] = true;
      expected = ntransfers(ops);
    }
    cg_error err = {0};
    ck_assert_msg(cg_linear_validate(&cfg, info, &err) == CG_OK, "%s: %s", name, err.msg);
    cg_report report;
    cg_report_init(&report, 0, NULL);
    ck_assert_msg(cg_linear_run(&cfg, info, &report, NULL, NULL, &err) == CG_OK, "%s: %s", name,
                  err.msg);
    ck_assert_int_eq(report.count, expected);
    char what[512];
    snprintf(what, sizeof what, "%s (%s)", name, run_cases[k].why);
    for (int i = 0; i < report.count; ++i) {
      const cg_record *r = &report.records[i];
      expect_linear_record(r, &cfg, info, what);
      ck_assert_str_eq(r->backend, c.backend->name);
      ck_assert_str_eq(r->variant, c.variant);
      ck_assert_str_eq(r->transfer, c.device >= 0 ? cg_transfer_name(ops->transfers[i])
                                                  : cg_transfer_name(CG_TRANSFER_HOST));
    }
    cg_report_free(&report);
  }
  cg_device_list_free(&list);
}
END_TEST

/* Every backend on one device, every mode, the host one first: the OpenCL records are verified
 * against the host backend's own results, and modes a backend lacks are `unsupported`. */
START_TEST(test_workload_all_backends) {
  cg_device_list list;
  cg_test_devices(&list);
  ck_assert_int_lt(_i, list.count);
  const cg_device_info *info = &list.items[_i];
  cg_linear_config cfg;
  case_config(&cfg, &run_cases[0]);
  cg_error err = {0};
  ck_assert_int_eq(cg_linear_parse_transfer(&cfg, "all", &err), CG_OK);
  ck_assert_msg(cg_linear_validate(&cfg, info, &err) == CG_OK, "%s", err.msg);
  cg_report report;
  cg_report_init(&report, 0, NULL);
  ck_assert_msg(cg_linear_run(&cfg, info, &report, NULL, NULL, &err) == CG_OK, "%s", err.msg);
  ck_assert_int_eq(report.count, cg_test_variant_count(linear_variants, false) + 3 * cg_test_variant_count(linear_variants, true));
  int ok = 0;
  for (int i = 0; i < report.count; ++i) {
    const cg_record *r = &report.records[i];
    const cg_backend *b = cg_backend_find(r->backend);
    ck_assert_ptr_nonnull(b);
    bool listed = !b->uses_opencl;
    for (int t = 0; b->uses_opencl && t < ntransfers(b->linear); ++t)
      listed |= strcmp(r->transfer, cg_transfer_name(b->linear->transfers[t])) == 0;
    if (listed) {
      expect_linear_record(r, &cfg, info, r->backend);
      ++ok;
    } else {
      ck_assert_msg(r->status == CG_STATUS_UNSUPPORTED, "%s/%s %s: status %s", r->backend,
                    r->variant, r->transfer, cg_status_name(r->status));
    }
  }
  ck_assert_int_ge(ok, 1);
  cg_report_free(&report);
  cg_device_list_free(&list);
}
END_TEST

/* Without a device the OpenCL records are skipped and the host ones still run. */
START_TEST(test_workload_without_device) {
  cg_linear_config cfg;
  case_config(&cfg, &run_cases[0]);
  cg_report report;
  cg_report_init(&report, 0, NULL);
  cg_error err = {0};
  ck_assert_int_eq(cg_linear_validate(&cfg, NULL, &err), CG_OK);
  ck_assert_int_eq(cg_linear_run(&cfg, NULL, &report, NULL, NULL, &err), CG_OK);
  ck_assert_int_eq(report.count, cg_test_variant_count(linear_variants, false) + cg_test_variant_count(linear_variants, true));
  for (int i = 0; i < report.count; ++i) {
    const cg_record *r = &report.records[i];
    const cg_backend *b = cg_backend_find(r->backend);
    ck_assert_ptr_nonnull(b);
    if (b->uses_opencl) {
      ck_assert_int_eq(r->status, CG_STATUS_SKIPPED);
      ck_assert_msg(strstr(r->reason, "no OpenCL device") != NULL, "reason: %s", r->reason);
    } else {
      expect_linear_record(r, &cfg, NULL, r->backend);
      ck_assert_str_eq(r->transfer, "host");
    }
  }
  cg_report_free(&report);
}
END_TEST

/* ---- through the ops: every transfer mode gives pageable's results ---- */

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

/* Train through the ops: final w, b (poisoned before the download) and each epoch's loss. */
static void train(const cg_linear_ops *ops, const cg_backend_env *env, const char *variant,
                  cg_transfer transfer, float lr, const linear_data *d, float *w, float *b,
                  double *losses, bool profiling, const char *name) {
  const cg_linear_shape s = d->s;
  const cg_linear_setup setup = {.shape = s, .lr = lr, .transfer = transfer};
  void *state = NULL;
  cg_compile_info compile = {.ms = -1, .kind = NULL};
  cg_error err = {0};
  cg_rc rc = ops->prepare(env, variant, &setup, &state, &compile, &err);
  ck_assert_msg(rc == CG_OK, "%s, %s: prepare: rc %d: %s", name, cg_transfer_name(transfer), rc,
                err.msg);
  ck_assert_ptr_nonnull(compile.kind);
  const cg_linear_tensors data = {.x = d->x, .labels = d->labels, .w = d->w0, .b = d->b0};
  ck_assert_msg(ops->upload(state, &data, &err) == CG_OK, "%s: upload: %s", name, err.msg);
  for (int e = 0; e < d->epochs; ++e) {
    cg_device_span span = {0};
    int launches = -99;
    ck_assert_msg(ops->enqueue_epoch(state, d->orders + (size_t)e * s.samples, &span, &launches,
                                     &err) == CG_OK,
                  "%s, %s, epoch %d: enqueue_epoch: %s", name, cg_transfer_name(transfer), e,
                  err.msg);
    ck_assert_msg(ops->finish(state, &err) == CG_OK, "%s: finish: %s", name, err.msg);
    if (profiling) ck_assert_msg(span.begin && span.end, "%s: no events bound the epoch", name);
    ck_assert_msg(launches == -1 || launches >= 1, "%s: %d launches", name, launches);
    cg_device_span_release(&span);
    losses[e] = NAN;
    ck_assert_msg(ops->read_epoch_loss(state, &losses[e], &err) == CG_OK, "%s: read: %s", name,
                  err.msg);
    if (ops->epoch_times) {
      cg_linear_epoch_times times;
      memset(&times, 0xff, sizeof times); /* NaN or negative until written */
      ck_assert_msg(ops->epoch_times(state, &times, &err) == CG_OK, "%s: epoch_times: %s", name,
                    err.msg);
      /* No usable stamps at all; or the span alone, outside the epoch timed command by command
       * (the second); or, in that epoch, consistent times: one batch's kernels within the
       * epoch's span, the hidden share a share. */
      const bool per_batch_none = isnan(times.batch_compute_ms) &&
                                  isnan(times.batch_upload_ms) && isnan(times.hidden_share);
      const bool none = per_batch_none && isnan(times.span_ms);
      const bool span_only = per_batch_none && times.span_ms > 0 && e != 1;
      const bool consistent = times.batch_compute_ms > 0 && times.batch_upload_ms >= 0 &&
                              times.span_ms >= times.batch_compute_ms &&
                              times.hidden_share >= 0 && times.hidden_share <= 1 && e == 1;
      ck_assert_msg(none || span_only || consistent, "%s, %s, epoch %d: epoch times %g %g %g %g",
                    name, cg_transfer_name(transfer), e, times.batch_upload_ms,
                    times.batch_compute_ms, times.span_ms, times.hidden_share);
    }
  }
  for (size_t i = 0; i < (size_t)s.classes * s.features; ++i) w[i] = NAN;
  for (int i = 0; i < s.classes; ++i) b[i] = NAN;
  cg_linear_tensors out = {.w = w, .b = b};
  ck_assert_msg(ops->download(state, &out, &err) == CG_OK, "%s: download: %s", name, err.msg);
  ops->release(state);
}

/* The host reference over the same epochs. */
static void host_reference(const linear_data *d, float lr, float *w, float *b, double *losses) {
  const cg_linear_shape s = d->s;
  const int rows = s.batch < s.samples ? s.batch : s.samples;
  const cg_linear_setup setup = {.shape = s, .lr = lr, .transfer = CG_TRANSFER_HOST};
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
  const cg_linear_ops *ops = c.backend->linear;
  cg_device_list list;
  cg_device *dev = NULL;
  cg_error err = {0};
  char name[400];
  cg_test_devices(&list);
  ck_assert_msg(c.device < list.count, "device %d of %d", c.device, list.count);
  ck_assert_msg(cg_device_open(&list.items[c.device], &dev, &err) == CG_OK, "%s", err.msg);
  combo_name(&c, &list, name, sizeof name);
  const cg_backend_env env = {.device = dev};
  const bool profiling = list.items[c.device].profiling;
  ck_assert_msg(ntransfers(ops) >= 1 && ops->transfers[0] == CG_TRANSFER_PAGEABLE,
                "%s: pageable is not its first transfer mode", name);
  /* 25 batches of 8, then 7 of 32 with a last one of 8: many batches in flight for the
   * double-buffered modes (pinned: three full groups of batches and a group of one, then a
   * single partial group). */
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
    train(ops, &env, c.variant, CG_TRANSFER_PAGEABLE, lr, &d, w_page, b_page, loss_page,
          profiling, name);
    /* pageable itself against the host */
    const double ew = cg_rel_error(w_page, w_ref, ws), eb = cg_rel_error(b_page, b_ref, s.classes);
    ck_assert_msg(ew <= HOST_TOL && eb <= HOST_TOL,
                  "%s, pageable, batch %d: w off the host reference by %.3g, b by %.3g (seed "
                  "%llu)",
                  name, s.batch, ew, eb, (unsigned long long)seed);
    for (int e = 0; e < 2; ++e)
      ck_assert_msg(loss_err(loss_page[e], loss_ref[e]) <= HOST_TOL,
                    "%s, pageable, batch %d: epoch %d loss %.9g, host %.9g (seed %llu)", name,
                    s.batch, e, loss_page[e], loss_ref[e], (unsigned long long)seed);
    /* the model moved: the comparisons below mean something */
    ck_assert(cg_rel_error(w_ref, d.w0, ws) > 100 * TRANSFER_TOL);
    for (int t = 1; t < ntransfers(ops); ++t) {
      const cg_transfer mode = ops->transfers[t];
      train(ops, &env, c.variant, mode, lr, &d, w, b, loss, profiling, name);
      const double tw = cg_rel_error(w, w_page, ws), tb = cg_rel_error(b, b_page, s.classes);
      ck_assert_msg(tw <= TRANSFER_TOL && tb <= TRANSFER_TOL,
                    "%s, %s, batch %d: w off pageable's by %.3g, b by %.3g (seed %llu)", name,
                    cg_transfer_name(mode), s.batch, tw, tb, (unsigned long long)seed);
      for (int e = 0; e < 2; ++e)
        ck_assert_msg(loss_err(loss[e], loss_page[e]) <= TRANSFER_TOL,
                      "%s, %s, batch %d: epoch %d loss %.9g, pageable %.9g (seed %llu)", name,
                      cg_transfer_name(mode), s.batch, e, loss[e], loss_page[e],
                      (unsigned long long)seed);
    }
    free(w_ref), free(b_ref), free(w_page), free(b_page), free(w), free(b);
    free_data(&d);
  }
  cg_device_close(dev);
  cg_device_list_free(&list);
}
END_TEST

/* ---- validation ---- */

static void expect_bad_err(const cg_linear_config *cfg, const cg_device_info *info,
                           const char *named, cg_error *out) {
  cg_error err = {0};
  cg_rc rc = cg_linear_validate(cfg, info, &err);
  if (out) *out = err;
  ck_assert_msg(rc == CG_BAD_INPUT, "expected CG_BAD_INPUT naming '%s', got rc %d", named, rc);
  ck_assert_msg(strstr(err.msg, named) != NULL, "'%s' not named in: %s", named, err.msg);
  ck_assert_msg(strchr(err.msg, '\n') == NULL, "not one line: %s", err.msg);
}

static void expect_bad(const cg_linear_config *cfg, const cg_device_info *info,
                       const char *named) {
  expect_bad_err(cfg, info, named, NULL);
}

static void small_config(cg_linear_config *cfg) {
  case_config(cfg, &run_cases[0]);
}

START_TEST(test_validate_values) {
  cg_linear_config cfg;
  cg_error err = {0};
  cg_linear_defaults(&cfg);
  ck_assert_msg(cg_linear_validate(&cfg, NULL, &err) == CG_OK, "defaults: %s", err.msg);
  /* The report's setup. */
  ck_assert_int_eq(cfg.shape.samples, 10000);
  ck_assert_int_eq(cfg.shape.features, 1000);
  ck_assert_int_eq(cfg.shape.classes, 10);
  ck_assert_int_eq(cfg.shape.batch, 32);
  ck_assert_int_eq(cfg.epochs, 10);
  ck_assert_double_eq(cfg.lr, 0.01);
  ck_assert(cfg.transfers[CG_TRANSFER_PAGEABLE] && !cfg.transfers[CG_TRANSFER_PINNED] &&
            !cfg.transfers[CG_TRANSFER_RESIDENT]);

  small_config(&cfg), cfg.shape.classes = 0, expect_bad(&cfg, NULL, "--classes 0");
  small_config(&cfg), cfg.shape.classes = -2, expect_bad(&cfg, NULL, "--classes -2");
  small_config(&cfg), cfg.shape.batch = 0, expect_bad(&cfg, NULL, "--batch 0");
  small_config(&cfg), cfg.shape.samples = 0, expect_bad(&cfg, NULL, "--samples 0");
  small_config(&cfg), cfg.shape.features = -1, expect_bad(&cfg, NULL, "--features -1");
  small_config(&cfg), cfg.epochs = 0, expect_bad(&cfg, NULL, "--epochs 0");
  small_config(&cfg), cfg.lr = -0.5, expect_bad(&cfg, NULL, "--lr -0.5");
  cg_error e = {0};
  small_config(&cfg), cfg.lr = NAN, expect_bad_err(&cfg, NULL, "--lr", &e);
  ck_assert_msg(cg_test_contains_nocase(e.msg, "nan"), "NaN not named in: %s", e.msg);
  small_config(&cfg), cfg.lr = 0;
  ck_assert_msg(cg_linear_validate(&cfg, NULL, &err) == CG_OK, "lr 0: %s", err.msg);
  small_config(&cfg), cfg.shape.batch = 100000; /* larger than the dataset is fine */
  ck_assert_msg(cg_linear_validate(&cfg, NULL, &err) == CG_OK, "%s", err.msg);
  small_config(&cfg), cfg.shape.classes = 1;
  ck_assert_msg(cg_linear_validate(&cfg, NULL, &err) == CG_OK, "%s", err.msg);

  const char *foo[] = {"foo", NULL};
  small_config(&cfg), cfg.backends = foo, expect_bad(&cfg, NULL, "'foo'");
  small_config(&cfg), cfg.variants = foo, expect_bad(&cfg, NULL, "'foo'");
  /* Every backend and variant with linear ops is accepted on its own. */
  for (const cg_backend *const *b = cg_backend_all(); *b; ++b) {
    if (!(*b)->linear) continue;
    const cg_linear_ops *ops = (*b)->linear;
    ck_assert_msg(ops->variants && ops->variants[0] && ops->transfers, "%s", (*b)->name);
    ck_assert_msg(ops->prepare && ops->upload && ops->enqueue_epoch && ops->finish &&
                      ops->read_epoch_loss && ops->download && ops->release,
                  "%s: an op is missing", (*b)->name);
    ck_assert_msg((*b)->uses_opencl ? ntransfers(ops) >= 1 : ntransfers(ops) == 0,
                  "%s: %d transfer modes", (*b)->name, ntransfers(ops));
    for (const char *const *v = ops->variants; *v; ++v) {
      const char *bs[] = {(*b)->name, NULL}, *vs[] = {*v, NULL};
      small_config(&cfg), cfg.backends = bs, cfg.variants = vs;
      ck_assert_msg(cg_linear_validate(&cfg, NULL, &err) == CG_OK, "%s/%s: %s", (*b)->name, *v,
                    err.msg);
    }
  }
}
END_TEST

START_TEST(test_parse_transfer) {
  cg_linear_config cfg;
  cg_error err = {0};
  const char *names[] = {"pageable", "pinned", "resident"};
  for (int t = 0; t < 3; ++t) {
    cg_linear_defaults(&cfg);
    ck_assert_int_eq(cg_linear_parse_transfer(&cfg, names[t], &err), CG_OK);
    for (int u = 0; u < 3; ++u) ck_assert_int_eq(cfg.transfers[u], u == t);
    ck_assert_str_eq(cg_transfer_name((cg_transfer)t), names[t]);
  }
  ck_assert_str_eq(cg_transfer_name(CG_TRANSFER_HOST), "host");
  cg_linear_defaults(&cfg);
  ck_assert_int_eq(cg_linear_parse_transfer(&cfg, "all", &err), CG_OK);
  ck_assert(cfg.transfers[0] && cfg.transfers[1] && cfg.transfers[2]);
  const char *bad[] = {"foo", "", "Pinned", "all,pinned", "host"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
    cg_linear_defaults(&cfg);
    ck_assert_msg(cg_linear_parse_transfer(&cfg, bad[i], &err) == CG_BAD_INPUT, "'%s' accepted",
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
    cg_linear_config cfg;
    cg_error err = {0};
    /* A resident dataset larger than one allocation; fine when it streams in batches. */
    small_config(&cfg);
    cfg.shape.features = 1024;
    cfg.shape.samples = (int)(info->max_alloc / 4 / 1024) + 1;
    if (cfg.shape.samples <= CG_LINEAR_MAX_DIM && 4.0 * cfg.shape.samples * 1024 < 64e9) {
      ck_assert_int_eq(cg_linear_parse_transfer(&cfg, "resident", &err), CG_OK);
      expect_bad_err(&cfg, info, "resident", &err);
      ck_assert_msg(strstr(err.msg, info->name) != NULL, "device not named: %s", err.msg);
      ck_assert_int_eq(cg_linear_parse_transfer(&cfg, "pageable", &err), CG_OK);
      ck_assert_msg(cg_linear_validate(&cfg, info, &err) == CG_OK, "%s", err.msg);
    }
    /* A model (classes x features) larger than one allocation. */
    small_config(&cfg);
    cfg.shape.classes = 1 << 16;
    cfg.shape.features = (int)(info->max_alloc / 4 / (1 << 16)) + 1;
    if (cfg.shape.features <= CG_LINEAR_MAX_DIM) {
      char named[64];
      snprintf(named, sizeof named, "--features %d", cfg.shape.features);
      expect_bad_err(&cfg, info, named, &err);
      ck_assert_msg(strstr(err.msg, "--classes 65536") != NULL, "classes not named: %s",
                    err.msg);
      ck_assert_msg(cg_linear_validate(&cfg, NULL, &err) == CG_OK, "no device: %s", err.msg);
    }
    small_config(&cfg);
    ck_assert_int_eq(cg_linear_parse_transfer(&cfg, "all", &err), CG_OK);
    ck_assert_msg(cg_linear_validate(&cfg, info, &err) == CG_OK, "%s", err.msg);
  }
  cg_device_list_free(&list);
}
END_TEST

static int device_count(void) {
  int n = cg_test_device_count();
  return n > 0 ? n : 0;
}

Suite *cg_linear_suite(void) {
  Suite *s = suite_create("linear");
  TCase *tc = tcase_create("reference");
  tcase_set_timeout(tc, 30);
  tcase_add_test(tc, test_xent_ordinary);
  tcase_add_test(tc, test_xent_large_logits);
  tcase_add_test(tc, test_xent_no_overflow);
  tcase_add_test(tc, test_orders);
  suite_add_tcase(s, tc);

  tc = tcase_create("workload");
  tcase_set_timeout(tc, CG_TEST_OPENCL_TIMEOUT);
  tcase_add_loop_test(tc, test_workload_records, 0, combo_count(true));
  tcase_add_loop_test(tc, test_workload_all_backends, 0, device_count());
  tcase_add_test(tc, test_workload_without_device);
  suite_add_tcase(s, tc);

  tc = tcase_create("transfers");
  tcase_set_timeout(tc, CG_TEST_OPENCL_TIMEOUT);
  tcase_add_loop_test(tc, test_transfers_agree, 0, combo_count(false));
  suite_add_tcase(s, tc);

  tc = tcase_create("validate");
  tcase_set_timeout(tc, CG_TEST_OPENCL_TIMEOUT);
  tcase_add_test(tc, test_validate_values);
  tcase_add_test(tc, test_parse_transfer);
  tcase_add_test(tc, test_validate_device_limits);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return cg_test_main(cg_linear_suite, true); }
