/* The matmul workload's descriptor: C = A*B in fp32, `loops` products per run, verified against
 * OpenBLAS on the same inputs. */
#include "clgauge/matmul.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clgauge/random.h"
#include "clgauge/reference.h"
#include "clgauge/sizes.h"
#include "clgauge/workload.h"

enum { P_M, P_N, P_K, P_LOOPS, P_RUNS, P_WARMUP, P_COUNT };

static const char *const n_sets[] = {"m", "k", NULL};
static const cg_param_desc params[P_COUNT] = {
    {"m", CG_PARAM_INT, 1000, 1, CG_MATMUL_MAX_DIM, "M", "rows of A and C (set after --n)", NULL},
    {"n", CG_PARAM_INT, 1000, 1, CG_MATMUL_MAX_DIM, "N", "square size: m = n = k = N", n_sets},
    {"k", CG_PARAM_INT, 1000, 1, CG_MATMUL_MAX_DIM, "K", "columns of A, rows of B (set after --n)",
     NULL},
    {"loops", CG_PARAM_INT, 10, 1, 1000000, "L", "products per run", NULL},
    {"runs", CG_PARAM_INT, 10, 1, 1000000, "R", "timed runs; run 0 is 'first', runs 1.. 'steady'",
     NULL},
    {"warmup", CG_PARAM_INT, 0, 0, 1000000, "W",
     "untimed runs between run 0 and the steady runs", NULL},
};

struct cg_workload_data {
  cg_matmul_shape shape;
  int loops, runs, warmup;
  float *a, *b, *ref, *out;
  cg_matmul_inputs inputs;
  cg_matmul_outputs outputs;
};

static cg_matmul_shape shape_of(const cg_params *p) {
  return (cg_matmul_shape){(int)p->v[P_M], (int)p->v[P_N], (int)p->v[P_K]};
}

static double gib(double bytes) { return bytes / (1024.0 * 1024.0 * 1024.0); }

/* A, B and C on the device, indexed with int by cl/matmul.cl (row * K + k and the like reach
 * each matrix's element count); on the host A, B, the reference C and a backend's C. */
static cg_rc validate(const cg_params *p, const bool *modes, const cg_device_info *device,
                      cg_error *err) {
  cg_rc rc = CG_OK;
  const cg_matmul_shape s = shape_of(p);
  cg_size_check c;
  if (s.m == s.n && s.n == s.k)
    cg_size_check_init(&c, device, "the matrices", "--n %d", s.n);
  else
    cg_size_check_init(&c, device, "the matrices", "--m %d --n %d --k %d", s.m, s.n, s.k);
  const unsigned both = CG_ON_HOST | CG_ON_DEVICE | CG_INT_INDEXED;
  CG_TRY(cg_size_array(&c, NULL, "matrix A", both, 4, (uint64_t)s.m, (uint64_t)s.k, 1, err));
  CG_TRY(cg_size_array(&c, NULL, "matrix B", both, 4, (uint64_t)s.k, (uint64_t)s.n, 1, err));
  CG_TRY(cg_size_array(&c, NULL, "matrix C", both, 4, (uint64_t)s.m, (uint64_t)s.n, 2, err));
  CG_TRY(cg_size_totals(&c, err));
cleanup:
  return rc;
}

static void destroy(cg_workload_data *d) {
  if (!d) return;
  free(d->a);
  free(d->b);
  free(d->ref);
  free(d->out);
  free(d);
}

static cg_rc create(const cg_params *p, uint64_t seed, cg_workload_data **out, cg_error *err) {
  cg_rc rc = CG_OK;
  cg_workload_data *d = calloc(1, sizeof *d);
  CG_CHECK(d, CG_ERROR, "out of host memory");
  d->shape = shape_of(p);
  d->loops = (int)p->v[P_LOOPS];
  d->runs = (int)p->v[P_RUNS];
  d->warmup = (int)p->v[P_WARMUP];
  const cg_matmul_shape s = d->shape;
  const size_t na = (size_t)s.m * s.k, nb = (size_t)s.k * s.n, nc = (size_t)s.m * s.n;
  d->a = malloc(na * sizeof *d->a);
  d->b = malloc(nb * sizeof *d->b);
  d->ref = malloc(nc * sizeof *d->ref);
  d->out = malloc(nc * sizeof *d->out);
  CG_CHECK(d->a && d->b && d->ref && d->out, CG_ERROR,
           "out of host memory for %dx%dx%d matrices (%.3g GiB)", s.m, s.n, s.k,
           gib((double)(na + nb + 2 * nc) * 4));
  cg_rng rng;
  cg_rng_seed(&rng, seed);
  cg_rng_fill_normal(&rng, d->a, na);
  cg_rng_fill_normal(&rng, d->b, nb);
  d->inputs = (cg_matmul_inputs){d->a, d->b};
  d->outputs = (cg_matmul_outputs){d->out};
  *out = d;
  d = NULL;
cleanup:
  destroy(d);
  return rc;
}

static double flops_per_iter(const cg_params *p) {
  return 2.0 * p->v[P_M] * p->v[P_N] * p->v[P_K];
}
static double bytes_per_iter(const cg_params *p) {
  return 4.0 * (p->v[P_M] * p->v[P_K] + p->v[P_K] * p->v[P_N] + p->v[P_M] * p->v[P_N]);
}
static int iters_per_run(const cg_params *p) { return (int)p->v[P_LOOPS]; }
static int run_count(const cg_params *p) { return (int)(p->v[P_RUNS] + p->v[P_WARMUP]); }

/* run 0, then the untimed warm-up runs, then the steady runs */
static void run_at(const cg_workload_data *d, int r, cg_run *run) {
  const cg_run_kind kind = r == 0 ? CG_RUN_FIRST : r <= d->warmup ? CG_RUN_UNTIMED : CG_RUN_STEADY;
  *run = (cg_run){r, d->loops, kind, NULL};
}

static const void *problem(const cg_workload_data *d) { return &d->shape; }
static const void *inputs(const cg_workload_data *d) { return &d->inputs; }
static void *outputs(cg_workload_data *d) {
  for (size_t i = 0; i < (size_t)d->shape.m * d->shape.n; ++i) d->out[i] = NAN;
  return &d->outputs;
}

/* Every run computes the same C from the same A and B: any number of runs has one reference. */
static cg_rc reference(cg_workload_data *d, int runs, cg_error *err) {
  (void)runs;
  cg_ref_sgemm(d->shape.m, d->shape.n, d->shape.k, d->a, d->b, d->ref);
  return CG_OK;
}

static void adopt_reference(cg_workload_data *d, const cg_record *rec) {
  memcpy(d->ref, d->out, (size_t)d->shape.m * d->shape.n * sizeof *d->ref);
}

static void verify(const cg_workload_data *d, cg_record *rec) {
  rec->verify_error = cg_rel_error(d->out, d->ref, (size_t)d->shape.m * d->shape.n);
  cg_verify_verdict(rec, cg_matmul_tolerance(d->shape.k));
}

static const char *const square_params[] = {"m", "n", "k", NULL};
static const cg_sweep_desc sweeps[] = {
    {"sweep-n", "n",
     "run at each square size of LIST (m = n = k = size) and report\n"
     "the size from which each OpenCL backend beats cpu",
     square_params, NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

const cg_workload cg_workload_matmul = {
    .name = "matmul",
    .summary = "C = A*B (default n=1000, 10 products per run, 10 runs)",
    .help = "C = A*B in fp32 on every backend, phase by phase: init (context), compile, upload,\n"
            "first run (run 0), steady runs, download, and the error against OpenBLAS. Defaults\n"
            "reproduce the TensorFlow eager report: n=1000, 10 products per run, 10 runs.\n",
    .params = params,
    .nparams = P_COUNT,
    .sweeps = sweeps,
    CG_WORKLOAD_FUNCTIONS,
};
