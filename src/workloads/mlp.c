/* The mlp workload's descriptor: the training loop of the PyTorch report, its presets and
 * hidden-size sweep, the loss read back every print_every iterations (one run each), verified
 * against the host reference: the loss at every read-back and the final weights. */
#include "clgauge/mlp.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clgauge/random.h"
#include "clgauge/reference.h"
#include "clgauge/sizes.h"
#include "clgauge/workload.h"

/* Losses are float sums of N*O squares on the devices, double on the host; weights after many
 * tiny steps differ by reassociation only. */
#define MLP_TOLERANCE 1e-3

enum { P_BATCH, P_DIN, P_HIDDEN, P_DOUT, P_ITERS, P_LR, P_UPDATE_W3, P_PRINT_EVERY, P_COUNT };

static const cg_param_desc params[P_COUNT] = {
    {"batch", CG_PARAM_INT, 64, 1, CG_MLP_MAX_DIM, "N", "rows of x (they override the preset)",
     NULL},
    {"din", CG_PARAM_INT, 1024, 1, CG_MLP_MAX_DIM, "D", "input features", NULL},
    {"hidden", CG_PARAM_INT, 128, 1, CG_MLP_MAX_DIM, "H", "hidden units", NULL},
    {"dout", CG_PARAM_INT, 8, 1, CG_MLP_MAX_DIM, "O", "outputs", NULL},
    {"iters", CG_PARAM_INT, 10000, 1, 100000000, "I", "training iterations", NULL},
    {"lr", CG_PARAM_REAL, 1e-9, 0, 1e6, "LR", "learning rate", NULL},
    {"update_w3", CG_PARAM_FLAG, 0, 0, 1, NULL,
     "update w3 too, and zero its gradient after each update", NULL},
    {"print_every", CG_PARAM_INT, 1000, 1, 100000000, "P",
     "read the loss back every P iterations", NULL},
};

static const cg_param_value seed_values[] = {
    {"batch", 64}, {"din", 1024}, {"hidden", 128}, {"dout", 8}, {NULL, 0}};
static const cg_param_value big_values[] = {
    {"batch", 64}, {"din", 5000}, {"hidden", 5000}, {"dout", 8}, {NULL, 0}};
static const cg_preset presets[] = {
    {"seed", "64 x 1024 x 128 x 8, the default", seed_values},
    {"big", "64 x 5000 x 5000 x 8", big_values},
    {NULL, NULL, NULL},
};

static const char *const hidden_params[] = {"din", "hidden", NULL};
static const char *const batch_params[] = {"batch", NULL};
static const cg_param_value sweep_defaults[] = {{"iters", 1000}, {"print_every", 100}, {NULL, 0}};
static const cg_sweep_desc sweeps[] = {
    {"sweep-hidden", "hidden",
     "run at each size of LIST with din = hidden = size and report\n"
     "the size from which each OpenCL backend beats cpu; in a sweep\n"
     "--iters defaults to 1000 and --print-every to 100",
     hidden_params, sweep_defaults},
    {"sweep-batch", "batch",
     "run at each batch size (rows of x) of LIST and report the\n"
     "size from which each OpenCL backend beats cpu; --iters and\n"
     "--print-every default as in --sweep-hidden",
     batch_params, sweep_defaults},
    {NULL, NULL, NULL, NULL, NULL},
};

struct cg_workload_data {
  cg_mlp_setup setup;
  int iters, print_every, nchunks;
  cg_mlp_tensors init; /* x, t, w1, w2, w3 */
  cg_mlp_tensors ref;  /* reference final w1, w2, w3, g3 */
  cg_mlp_tensors out;  /* a backend's final weights */
  double *ref_losses;
};

static cg_mlp_shape shape_of(const cg_params *p) {
  return (cg_mlp_shape){(int)p->v[P_BATCH], (int)p->v[P_DIN], (int)p->v[P_HIDDEN],
                        (int)p->v[P_DOUT]};
}

static int chunk_count(const cg_params *p);

/* On the device x, w1, h1, w2, y and w3 (with w1's gradient, which doubles the largest tensor),
 * each an allocation, and every N x D, D x H, N x H, H x O, N x O and O x O array indexed with
 * int by cl/mlp.cl. On the host the workload's inputs, the reference's and a backend's weights, and
 * the host reference's model and gradients (cg_ref_mlp), plus a record's run samples. */
static cg_rc validate(const cg_params *p, const bool *modes, const cg_device_info *device,
                      cg_error *err) {
  cg_rc rc = CG_OK;
  const cg_mlp_shape s = shape_of(p);
  const uint64_t N = (uint64_t)s.batch, D = (uint64_t)s.din, H = (uint64_t)s.hidden,
                 O = (uint64_t)s.dout;
  cg_size_check c;
  cg_size_check_init(&c, device, "the tensors", "--batch %d --din %d --hidden %d --dout %d",
                     s.batch, s.din, s.hidden, s.dout);
  const unsigned dev = CG_ON_DEVICE | CG_INT_INDEXED;
  CG_TRY(cg_size_array(&c, NULL, "x", dev, 4, N, D, 1, err));
  CG_TRY(cg_size_array(&c, NULL, "w1", dev, 4, D, H, 1, err));
  CG_TRY(cg_size_array(&c, NULL, "h1", dev, 4, N, H, 1, err));
  CG_TRY(cg_size_array(&c, NULL, "w2", dev, 4, H, O, 1, err));
  CG_TRY(cg_size_array(&c, NULL, "w1's gradient", dev, 4, D, H, 1, err));
  CG_TRY(cg_size_array(&c, NULL, "y", dev, 4, N, O, 1, err));
  CG_TRY(cg_size_array(&c, NULL, "w3", dev, 4, O, O, 1, err));
  /* host: x and t twice (inputs, reference); w1, w2, w3 five times (inputs, the reference's
   * result, a backend's result, the reference model and its gradient); h1 and dz1; h2, y, dz2 */
  CG_TRY(cg_size_array(&c, NULL, "x", CG_ON_HOST, 4, N, D, 2, err));
  CG_TRY(cg_size_array(&c, NULL, "the copies of w1", CG_ON_HOST, 4, D, H, 5, err));
  CG_TRY(cg_size_array(&c, NULL, "h1 and its gradient", CG_ON_HOST, 4, N, H, 2, err));
  CG_TRY(cg_size_array(&c, NULL, "the copies of w2", CG_ON_HOST, 4, H, O, 5, err));
  CG_TRY(cg_size_array(&c, NULL, "the N x O arrays", CG_ON_HOST, 4, N, O, 5, err));
  CG_TRY(cg_size_array(&c, NULL, "the copies of w3", CG_ON_HOST, 4, O, O, 6, err));
  char iters[64];
  snprintf(iters, sizeof iters, "--iters %d --print-every %d", (int)p->v[P_ITERS],
           (int)p->v[P_PRINT_EVERY]);
  CG_TRY(cg_size_array(&c, iters, "a record's run samples", CG_ON_HOST,
                       sizeof(cg_run_sample) + 5 * sizeof(double), (uint64_t)chunk_count(p), 1, 1,
                       err));
  CG_TRY(cg_size_totals(&c, err));
cleanup:
  return rc;
}

/* GCC 12's analyzer loses the frees of a loop over a local array of pointers and reports each
 * block as leaked at the closing brace: a false positive. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wanalyzer-malloc-leak"
static void free_tensors(cg_mlp_tensors *t) {
  float *all[] = {t->x, t->t, t->w1, t->w2, t->w3, t->g3};
  for (int i = 0; i < 6; ++i) free(all[i]);
  memset(t, 0, sizeof *t);
}
#pragma GCC diagnostic pop

/* Allocate the weight tensors (and with inputs, x and t too). */
static bool alloc_tensors(cg_mlp_tensors *t, cg_mlp_shape s, bool inputs) {
  const size_t N = (size_t)s.batch, D = (size_t)s.din, H = (size_t)s.hidden, O = (size_t)s.dout;
  memset(t, 0, sizeof *t);
  t->w1 = malloc(D * H * sizeof(float));
  t->w2 = malloc(H * O * sizeof(float));
  t->w3 = malloc(O * O * sizeof(float));
  t->g3 = malloc(O * O * sizeof(float));
  if (inputs) {
    t->x = malloc(N * D * sizeof(float));
    t->t = malloc(N * O * sizeof(float));
  }
  const bool ok = t->w1 && t->w2 && t->w3 && t->g3 && (!inputs || (t->x && t->t));
  if (!ok) free_tensors(t);
  return ok;
}

static void destroy(cg_workload_data *d) {
  if (!d) return;
  free(d->ref_losses);
  free_tensors(&d->init);
  free_tensors(&d->ref);
  free_tensors(&d->out);
  free(d);
}

static int chunk_count(const cg_params *p) {
  return (int)((p->v[P_ITERS] + p->v[P_PRINT_EVERY] - 1) / p->v[P_PRINT_EVERY]);
}

static cg_rc create(const cg_params *p, uint64_t seed, cg_workload_data **out, cg_error *err) {
  cg_rc rc = CG_OK;
  cg_workload_data *d = calloc(1, sizeof *d);
  CG_CHECK(d, CG_ERROR, "out of host memory");
  const cg_mlp_shape s = shape_of(p);
  d->setup = (cg_mlp_setup){s, (float)p->v[P_LR], p->v[P_UPDATE_W3] != 0};
  d->iters = (int)p->v[P_ITERS];
  d->print_every = (int)p->v[P_PRINT_EVERY];
  d->nchunks = chunk_count(p);
  d->ref_losses = calloc((size_t)d->nchunks, sizeof *d->ref_losses);
  CG_CHECK(d->ref_losses && alloc_tensors(&d->init, s, true) && alloc_tensors(&d->ref, s, false) &&
               alloc_tensors(&d->out, s, false),
           CG_ERROR, "out of host memory for the %dx%dx%dx%d model", s.batch, s.din, s.hidden,
           s.dout);
  cg_rng rng;
  cg_rng_seed(&rng, seed);
  cg_rng_fill_normal(&rng, d->init.x, (size_t)s.batch * s.din);
  cg_rng_fill_normal(&rng, d->init.t, (size_t)s.batch * s.dout);
  cg_rng_fill_normal(&rng, d->init.w1, (size_t)s.din * s.hidden);
  cg_rng_fill_normal(&rng, d->init.w2, (size_t)s.hidden * s.dout);
  cg_rng_fill_normal(&rng, d->init.w3, (size_t)s.dout * s.dout);
  *out = d;
  d = NULL;
cleanup:
  destroy(d);
  return rc;
}

/* Floating-point operations of one iteration: the eight products (forward three, backward five). */
static double flops_per_iter(const cg_params *p) {
  const double N = p->v[P_BATCH], D = p->v[P_DIN], H = p->v[P_HIDDEN], O = p->v[P_DOUT];
  return 2 * N * (D * H + H * O + O * O) /* forward */
         + 2 * N * (O * O + O * O)       /* g3, dy w3^T */
         + 2 * N * (H * O + H * O)       /* g2, dz2 w2^T */
         + 2 * N * D * H;                /* g1 */
}

/* Minimum bytes of one iteration: x and t read, w1 and w2 read and written, w3 read. */
static double bytes_per_iter(const cg_params *p) {
  const double N = p->v[P_BATCH], D = p->v[P_DIN], H = p->v[P_HIDDEN], O = p->v[P_DOUT];
  return 4 * (N * D + N * O + 2 * D * H + 2 * H * O + O * O);
}

static int iters_per_run(const cg_params *p) {
  return (int)(p->v[P_PRINT_EVERY] < p->v[P_ITERS] ? p->v[P_PRINT_EVERY] : p->v[P_ITERS]);
}

static int run_count(const cg_params *p) { return chunk_count(p); }

/* One run per printed loss, as the report's loop reads the loss back every print_every
 * iterations; a shorter last run is listed but left out of the steady statistics. */
static void run_at(const cg_workload_data *d, int c, cg_run *run) {
  const int left = d->iters - c * d->print_every;
  const int iters = left < d->print_every ? left : d->print_every;
  const cg_run_kind kind =
      c == 0 ? CG_RUN_FIRST : iters == d->print_every ? CG_RUN_STEADY : CG_RUN_LISTED;
  *run = (cg_run){c, iters, kind, NULL};
}

static const void *problem(const cg_workload_data *d) { return &d->setup; }
static const void *inputs(const cg_workload_data *d) { return &d->init; }
static void *outputs(cg_workload_data *d) {
  const cg_mlp_shape s = d->setup.shape;
  const size_t D = (size_t)s.din, H = (size_t)s.hidden, O = (size_t)s.dout;
  float *const arrays[] = {d->out.w1, d->out.w2, d->out.w3, d->out.g3};
  const size_t sizes[] = {D * H, H * O, O * O, O * O};
  for (int a = 0; a < 4; ++a)
    for (size_t i = 0; i < sizes[a]; ++i) arrays[a][i] = NAN;
  return &d->out;
}

/* The host reference over the first `runs` runs (one per read-back). */
static cg_rc reference(cg_workload_data *d, int runs, cg_error *err) {
  cg_rc rc = CG_OK;
  cg_ref_mlp ref;
  CG_CHECK(cg_ref_mlp_init(&ref, &d->setup, &d->init), CG_ERROR, "out of host memory");
  const long long upto = (long long)runs * d->print_every;
  const int iters = upto < d->iters ? (int)upto : d->iters;
  for (int i = 0; i < iters; ++i) {
    const double loss = cg_ref_mlp_step(&ref);
    if (i % d->print_every == 0) d->ref_losses[i / d->print_every] = loss;
  }
  cg_ref_mlp_read(&ref, &d->ref);
  cg_ref_mlp_free(&ref);
cleanup:
  return rc;
}

static void copy_tensors(cg_mlp_tensors *to, const cg_mlp_tensors *from, cg_mlp_shape s) {
  const size_t D = (size_t)s.din, H = (size_t)s.hidden, O = (size_t)s.dout;
  memcpy(to->w1, from->w1, D * H * sizeof(float));
  memcpy(to->w2, from->w2, H * O * sizeof(float));
  memcpy(to->w3, from->w3, O * O * sizeof(float));
  memcpy(to->g3, from->g3, O * O * sizeof(float));
}

static void adopt_reference(cg_workload_data *d, const cg_record *rec) {
  copy_tensors(&d->ref, &d->out, d->setup.shape);
  memcpy(d->ref_losses, rec->losses, (size_t)rec->nlosses * sizeof *d->ref_losses);
}

static void verify(const cg_workload_data *d, cg_record *rec) {
  const cg_mlp_shape s = d->setup.shape;
  const size_t D = (size_t)s.din, H = (size_t)s.hidden, O = (size_t)s.dout;
  rec->verify_loss_error = cg_loss_error(rec->losses, d->ref_losses, rec->nlosses);
  const double errs[] = {cg_rel_error(d->out.w1, d->ref.w1, D * H),
                         cg_rel_error(d->out.w2, d->ref.w2, H * O),
                         cg_rel_error(d->out.w3, d->ref.w3, O * O),
                         cg_rel_error(d->out.g3, d->ref.g3, O * O)};
  rec->verify_weights_error = 0;
  for (int i = 0; i < 4; ++i)
    if (!(errs[i] <= rec->verify_weights_error)) rec->verify_weights_error = errs[i];
  rec->verify_error = rec->verify_loss_error > rec->verify_weights_error
                          ? rec->verify_loss_error
                          : rec->verify_weights_error;
  if (isnan(rec->verify_loss_error) || isnan(rec->verify_weights_error)) rec->verify_error = NAN;
  cg_verify_verdict(rec, MLP_TOLERANCE);
}

const cg_workload cg_workload_mlp = {
    .name = "mlp",
    .summary = "the small training loop (default 64x1024x128x8, 10000 iterations)",
    .help = "The small training loop of the PyTorch report: y = relu(relu(x w1) w2) w3, loss =\n"
            "sum((y - t)^2), SGD on w1 and w2 (w3's gradient accumulates, w3 stays), the loss\n"
            "read back every --print-every iterations. Each read-back closes one run: run 0 is\n"
            "'first', the others 'steady'. Every backend is verified against the host\n"
            "reference: the loss at every printed iteration and the final w1, w2, w3 and w3's\n"
            "gradient (after the runs that ran, when --budget-s cut them).\n",
    .params = params,
    .nparams = P_COUNT,
    .presets = presets,
    .sweeps = sweeps,
    .loss_unit = "iteration",
    CG_WORKLOAD_FUNCTIONS,
};
