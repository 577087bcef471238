/* The saxpy workload's descriptor: y = a*x + y over n floats in fp32, `loops` in-place updates of
 * the same y per run, verified against the same updates on the host. Memory-bound: each update
 * reads x and y and writes y, 12 bytes for 2 FLOPs per element. */
#include "clgauge/saxpy.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clgauge/random.h"
#include "clgauge/reference.h"
#include "clgauge/sizes.h"
#include "clgauge/workload.h"

enum { P_N, P_A, P_LOOPS, P_RUNS, P_WARMUP, P_COUNT };

static const cg_param_desc params[P_COUNT] = {
    {"n", CG_PARAM_INT, 1 << 24, 1, CG_SAXPY_MAX_N, "N", "floats in x and in y", NULL},
    {"a", CG_PARAM_REAL, 2, -1e6, 1e6, "A", "the scalar of y = a*x + y", NULL},
    {"loops", CG_PARAM_INT, 10, 1, 1000000, "L", "updates of y per run (one launch each)", NULL},
    {"runs", CG_PARAM_INT, 10, 1, 1000000, "R", "timed runs; run 0 is 'first', runs 1.. 'steady'",
     NULL},
    {"warmup", CG_PARAM_INT, 0, 0, 1000000, "W",
     "untimed runs between run 0 and the steady runs", NULL},
};

struct cg_workload_data {
  cg_saxpy_problem problem;
  int loops, runs, warmup;
  int ref_runs; /* the runs the reference covers (run_count, or fewer for a record cut short) */
  float *x, *y0, *ref, *out;
  cg_saxpy_inputs inputs;
  cg_saxpy_outputs outputs;
};

static double gib(double bytes) { return bytes / (1024.0 * 1024.0 * 1024.0); }

/* Every run of a record updates the same y: the downloaded y has had all that ran. */
static double updates(const cg_workload_data *d) { return (double)d->ref_runs * d->loops; }

/* x and y on the device, each an allocation (cl/saxpy.cl indexes them with size_t and uint,
 * which n's range keeps within); on the host x, y, the reference's y and a backend's y. */
static cg_rc validate(const cg_params *p, const bool *modes, const cg_device_info *device,
                      cg_error *err) {
  cg_rc rc = CG_OK;
  const uint64_t n = (uint64_t)p->v[P_N];
  cg_size_check c;
  cg_size_check_init(&c, device, "the vectors", "--n %llu", (unsigned long long)n);
  CG_TRY(cg_size_array(&c, NULL, "each of x and y", CG_ON_DEVICE, 4, n, 1, 1, err));
  CG_TRY(cg_size_array(&c, NULL, "y", CG_ON_DEVICE, 4, n, 1, 1, err));
  CG_TRY(cg_size_array(&c, NULL, "x, y, the reference's y and a backend's", CG_ON_HOST, 4, n, 1,
                       4, err));
  CG_TRY(cg_size_totals(&c, err));
cleanup:
  return rc;
}

static void destroy(cg_workload_data *d) {
  if (!d) return;
  free(d->x);
  free(d->y0);
  free(d->ref);
  free(d->out);
  free(d);
}

static cg_rc create(const cg_params *p, uint64_t seed, cg_workload_data **out, cg_error *err) {
  cg_rc rc = CG_OK;
  cg_workload_data *d = calloc(1, sizeof *d);
  CG_CHECK(d, CG_ERROR, "out of host memory");
  d->problem = (cg_saxpy_problem){(int)p->v[P_N], (float)p->v[P_A]};
  d->loops = (int)p->v[P_LOOPS];
  d->runs = (int)p->v[P_RUNS];
  d->warmup = (int)p->v[P_WARMUP];
  d->ref_runs = d->runs + d->warmup;
  const size_t n = (size_t)d->problem.n;
  d->x = malloc(n * sizeof *d->x);
  d->y0 = malloc(n * sizeof *d->y0);
  d->ref = malloc(n * sizeof *d->ref);
  d->out = malloc(n * sizeof *d->out);
  CG_CHECK(d->x && d->y0 && d->ref && d->out, CG_ERROR,
           "out of host memory for vectors of %zu floats (%.3g GiB)", n, gib(16.0 * (double)n));
  cg_rng rng;
  cg_rng_seed(&rng, seed);
  cg_rng_fill_normal(&rng, d->x, n);
  cg_rng_fill_normal(&rng, d->y0, n);
  d->inputs = (cg_saxpy_inputs){d->x, d->y0};
  d->outputs = (cg_saxpy_outputs){d->out};
  *out = d;
  d = NULL;
cleanup:
  destroy(d);
  return rc;
}

static double flops_per_iter(const cg_params *p) { return 2.0 * p->v[P_N]; }
/* x and y read, y written */
static double bytes_per_iter(const cg_params *p) { return 12.0 * p->v[P_N]; }
static int iters_per_run(const cg_params *p) { return (int)p->v[P_LOOPS]; }
static int run_count(const cg_params *p) { return (int)(p->v[P_RUNS] + p->v[P_WARMUP]); }

/* run 0, then the untimed warm-up runs, then the steady runs */
static void run_at(const cg_workload_data *d, int r, cg_run *run) {
  const cg_run_kind kind = r == 0 ? CG_RUN_FIRST : r <= d->warmup ? CG_RUN_UNTIMED : CG_RUN_STEADY;
  *run = (cg_run){r, d->loops, kind, NULL};
}

static const void *problem(const cg_workload_data *d) { return &d->problem; }
static const void *inputs(const cg_workload_data *d) { return &d->inputs; }
static void *outputs(cg_workload_data *d) {
  for (size_t i = 0; i < (size_t)d->problem.n; ++i) d->out[i] = NAN;
  return &d->outputs;
}

/* The runs' updates in the same order on the host, from the same starting y. */
static cg_rc reference(cg_workload_data *d, int runs, cg_error *err) {
  memcpy(d->ref, d->y0, (size_t)d->problem.n * sizeof *d->ref);
  d->ref_runs = runs;
  const long long total = (long long)runs * d->loops;
  for (long long t = 0; t < total; ++t) cg_ref_saxpy(d->problem.n, d->problem.a, d->x, d->ref);
  return CG_OK;
}

static void adopt_reference(cg_workload_data *d, const cg_record *rec) {
  memcpy(d->ref, d->out, (size_t)d->problem.n * sizeof *d->ref);
  d->ref_runs = rec->nruns + d->warmup; /* the warm-ups always run */
}

/* The tolerance bounds the rounding of both sides after that many updates (cg_saxpy_tolerance
 * derives it), so it grows with the updates of the record. */
static void verify(const cg_workload_data *d, cg_record *rec) {
  const size_t n = (size_t)d->problem.n;
  rec->verify_error = cg_rel_error(d->out, d->ref, n);
  cg_verify_verdict(rec, cg_saxpy_tolerance(n, d->problem.a, d->x, d->y0, d->ref, updates(d)));
}

const cg_workload cg_workload_saxpy = {
    .name = "saxpy",
    .summary = "y = a*x + y (default n=2^24, 10 updates per run, 10 runs): bandwidth",
    .help = "y = a*x + y over n floats in fp32, updated in place on every backend, phase by\n"
            "phase: init (context), compile, upload, first run (run 0), steady runs, download,\n"
            "and the error against the same updates on the host. Memory-bound: 12 bytes moved\n"
            "for 2 FLOPs per element, so GB/s is the figure to read. Every run updates the same\n"
            "y, `loops` launches each.\n",
    .params = params,
    .nparams = P_COUNT,
    CG_WORKLOAD_FUNCTIONS,
};
