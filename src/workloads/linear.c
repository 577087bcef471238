/* The linear workload's descriptor: the dataset, the epoch orders, the transfer modes, each epoch
 * one run, verified against the host reference: every epoch's loss and the final weights and
 * bias. */
#include "clgauge/linear.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clgauge/random.h"
#include "clgauge/reference.h"
#include "clgauge/sizes.h"
#include "clgauge/workload.h"

/* Weights after hundreds of SGD steps differ between float orders of summation by far less. */
#define LINEAR_TOLERANCE 1e-3

enum { P_SAMPLES, P_FEATURES, P_CLASSES, P_BATCH, P_EPOCHS, P_LR, P_COUNT };

static const cg_param_desc params[P_COUNT] = {
    {"samples", CG_PARAM_INT, 10000, 1, CG_LINEAR_MAX_DIM, "S", "dataset rows", NULL},
    {"features", CG_PARAM_INT, 1000, 1, CG_LINEAR_MAX_DIM, "F", "features per row", NULL},
    {"classes", CG_PARAM_INT, 10, 1, 1 << 16, "C", "classes", NULL},
    {"batch", CG_PARAM_INT, 32, 1, CG_LINEAR_MAX_DIM, "B",
     "batch size; the last batch holds the remainder", NULL},
    {"epochs", CG_PARAM_INT, 10, 1, 1000000, "E", "epochs", NULL},
    {"lr", CG_PARAM_REAL, 0.01, 0, 1e6, "LR", "learning rate", NULL},
};

static const char *const transfer_names[] = {"pageable", "pinned", "resident", NULL};
static const cg_mode_desc modes = {
    "transfer", "MODE",
    "pageable (default): each batch gathered on the host and written from ordinary memory;\n"
    "pinned: pinned staging buffers gathered on host threads a group ahead, uploads\n"
    "overlapping compute; resident: the dataset uploaded once, batches gathered on the\n"
    "device; all: each of them",
    transfer_names, 0, "host"};

const char *cg_transfer_name(cg_transfer transfer) {
  return transfer >= CG_TRANSFER_PAGEABLE && transfer < CG_TRANSFER_HOST ? transfer_names[transfer]
                                                                         : "host";
}

cg_transfer cg_transfer_from_name(const char *name) {
  for (int t = 0; name && t < CG_TRANSFER_HOST; ++t)
    if (strcmp(name, transfer_names[t]) == 0) return (cg_transfer)t;
  return CG_TRANSFER_HOST;
}

static cg_linear_shape shape_of(const cg_params *p) {
  return (cg_linear_shape){(int)p->v[P_SAMPLES], (int)p->v[P_FEATURES], (int)p->v[P_CLASSES],
                           (int)p->v[P_BATCH]};
}

static double gib(double bytes) { return bytes / (1024.0 * 1024.0 * 1024.0); }

/* cl/linear.cl reaches rows and the model through 64-bit offsets, so only allocations bound the
 * device: the model, a batch of rows with their labels, and with --transfer resident the
 * dataset. The host holds the dataset and its labels, every epoch's shuffled order (epochs x
 * samples), three copies of the model (initial, the reference's, a backend's), the reference's
 * batch and logits, and a record's run samples. */
static cg_rc validate(const cg_params *p, const bool *selected, const cg_device_info *device,
                      cg_error *err) {
  cg_rc rc = CG_OK;
  const cg_linear_shape s = shape_of(p);
  const int epochs = (int)p->v[P_EPOCHS];
  const uint64_t S = (uint64_t)s.samples, F = (uint64_t)s.features, C = (uint64_t)s.classes,
                 rows = (uint64_t)(s.batch < s.samples ? s.batch : s.samples);
  char data[64], order[64], model[64], batch[64];
  snprintf(data, sizeof data, "--samples %d --features %d", s.samples, s.features);
  snprintf(order, sizeof order, "--samples %d --epochs %d", s.samples, epochs);
  snprintf(model, sizeof model, "--classes %d --features %d", s.classes, s.features);
  snprintf(batch, sizeof batch, "--batch %d --features %d", s.batch, s.features);
  cg_size_check c;
  cg_size_check_init(&c, device, "the model, a batch and the dataset",
                     "--samples %d --features %d --classes %d --batch %d --epochs %d", s.samples,
                     s.features, s.classes, s.batch, epochs);
  CG_TRY(cg_size_array(&c, data, "the dataset", CG_ON_HOST, 4, S, F + 1, 1, err));
  CG_TRY(cg_size_array(&c, order, "the shuffled orders (epochs x samples)", CG_ON_HOST, 4,
                       (uint64_t)epochs, S, 1, err));
  CG_TRY(cg_size_array(&c, model, "the copies of the model", CG_ON_HOST, 4, C, F + 1, 3, err));
  CG_TRY(cg_size_array(&c, batch, "the reference's batch", CG_ON_HOST, 4, rows, F + C + 1, 1,
                       err));
  CG_TRY(cg_size_array(&c, order, "a record's run samples", CG_ON_HOST,
                       sizeof(cg_run_sample) + 5 * sizeof(double), (uint64_t)epochs, 1, 1, err));
  if (selected[CG_TRANSFER_RESIDENT])
    CG_TRY(cg_size_array(&c, data, "the dataset for --transfer resident", CG_ON_DEVICE, 4, S, F,
                         1, err));
  CG_TRY(cg_size_array(&c, model, "the model", CG_ON_DEVICE, 4, C, F, 1, err));
  CG_TRY(cg_size_array(&c, batch, "a batch", CG_ON_DEVICE, 4, rows, F + 1, 1, err));
  CG_TRY(cg_size_totals(&c, err));
cleanup:
  return rc;
}

int *cg_linear_orders(int samples, int epochs, uint64_t seed) {
  int *orders = malloc((size_t)samples * (size_t)epochs * sizeof *orders);
  if (!orders) return NULL;
  cg_rng rng;
  cg_rng_seed(&rng, seed);
  for (int e = 0; e < epochs; ++e) {
    int *o = orders + (size_t)e * samples;
    for (int i = 0; i < samples; ++i) o[i] = i;
    for (int i = samples - 1; i > 0; --i) {
      const int j = (int)(cg_rng_next(&rng) % (uint64_t)(i + 1));
      const int t = o[i];
      o[i] = o[j];
      o[j] = t;
    }
  }
  return orders;
}

struct cg_workload_data {
  cg_linear_setup setup;
  int epochs, batches;
  float *x, *w0, *b0; /* dataset and initial model */
  int *labels;
  int *orders;          /* epochs x samples */
  float *ref_w, *ref_b; /* reference final model */
  double *ref_losses;   /* reference loss per epoch */
  float *out_w, *out_b; /* a backend's final model */
  cg_linear_tensors inputs, outputs;
};

/* GCC 12's analyzer loses the frees of a loop over a local array of pointers and reports each
 * block as leaked at the closing brace: a false positive. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wanalyzer-malloc-leak"
static void destroy(cg_workload_data *d) {
  if (!d) return;
  void *all[] = {d->x, d->w0, d->b0, d->labels, d->orders, d->ref_w,
                 d->ref_b, d->ref_losses, d->out_w, d->out_b};
  for (size_t i = 0; i < sizeof all / sizeof all[0]; ++i) free(all[i]);
  free(d);
}
#pragma GCC diagnostic pop

static cg_rc create(const cg_params *p, uint64_t seed, cg_workload_data **out, cg_error *err) {
  cg_rc rc = CG_OK;
  cg_workload_data *d = calloc(1, sizeof *d);
  CG_CHECK(d, CG_ERROR, "out of host memory");
  const cg_linear_shape s = shape_of(p);
  d->setup = (cg_linear_setup){s, (float)p->v[P_LR]};
  d->epochs = (int)p->v[P_EPOCHS];
  d->batches = (s.samples + s.batch - 1) / s.batch;
  const size_t xs = (size_t)s.samples * s.features, ws = (size_t)s.classes * s.features;
  d->x = malloc(xs * sizeof *d->x);
  d->labels = malloc((size_t)s.samples * sizeof *d->labels);
  d->w0 = malloc(ws * sizeof *d->w0);
  d->b0 = malloc((size_t)s.classes * sizeof *d->b0);
  d->ref_w = malloc(ws * sizeof *d->ref_w);
  d->ref_b = malloc((size_t)s.classes * sizeof *d->ref_b);
  d->out_w = malloc(ws * sizeof *d->out_w);
  d->out_b = malloc((size_t)s.classes * sizeof *d->out_b);
  d->ref_losses = calloc((size_t)d->epochs, sizeof *d->ref_losses);
  d->orders = cg_linear_orders(s.samples, d->epochs, seed ^ 0x5eed5eedull);
  CG_CHECK(d->x && d->labels && d->w0 && d->b0 && d->ref_w && d->ref_b && d->out_w && d->out_b &&
               d->ref_losses && d->orders,
           CG_ERROR, "out of host memory for %d x %d samples (%.3g GiB)", s.samples, s.features,
           gib(4.0 * (double)xs));
  cg_rng rng;
  cg_rng_seed(&rng, seed);
  cg_rng_fill_normal(&rng, d->x, xs);
  for (int i = 0; i < s.samples; ++i)
    d->labels[i] = (int)(cg_rng_next(&rng) % (uint64_t)s.classes);
  /* PyTorch's Linear initialisation: uniform in +-1/sqrt(fan_in) */
  const double bound = 1.0 / sqrt((double)s.features);
  for (size_t i = 0; i < ws; ++i) d->w0[i] = (float)((2 * cg_rng_uniform(&rng) - 1) * bound);
  for (int i = 0; i < s.classes; ++i) d->b0[i] = (float)((2 * cg_rng_uniform(&rng) - 1) * bound);
  d->inputs = (cg_linear_tensors){d->x, d->labels, d->w0, d->b0};
  d->outputs = (cg_linear_tensors){NULL, NULL, d->out_w, d->out_b};
  *out = d;
  d = NULL;
cleanup:
  destroy(d);
  return rc;
}

static int batches_of(const cg_params *p) {
  return (int)((p->v[P_SAMPLES] + p->v[P_BATCH] - 1) / p->v[P_BATCH]);
}

/* per batch: logits 2*B*F*C, gradient of w 2*B*F*C (the small rest not counted) */
static double flops_per_iter(const cg_params *p) {
  return 4.0 * p->v[P_FEATURES] * p->v[P_CLASSES] * p->v[P_SAMPLES] / batches_of(p);
}

/* per batch: its rows read, w read and written */
static double bytes_per_iter(const cg_params *p) {
  return 4.0 * (p->v[P_SAMPLES] / batches_of(p) * p->v[P_FEATURES] +
                2.0 * p->v[P_CLASSES] * p->v[P_FEATURES]);
}

static int iters_per_run(const cg_params *p) { return batches_of(p); }
static int run_count(const cg_params *p) { return (int)p->v[P_EPOCHS]; }

static void run_at(const cg_workload_data *d, int e, cg_run *run) {
  *run = (cg_run){e, d->batches, e == 0 ? CG_RUN_FIRST : CG_RUN_STEADY,
                  d->orders + (size_t)e * d->setup.shape.samples};
}

static const void *problem(const cg_workload_data *d) { return &d->setup; }
static const void *inputs(const cg_workload_data *d) { return &d->inputs; }
static void *outputs(cg_workload_data *d) {
  const cg_linear_shape s = d->setup.shape;
  for (size_t i = 0; i < (size_t)s.classes * s.features; ++i) d->out_w[i] = NAN;
  for (int i = 0; i < s.classes; ++i) d->out_b[i] = NAN;
  return &d->outputs;
}

/* The host reference over the first `runs` epochs (one run each). */
static cg_rc reference(cg_workload_data *d, int runs, cg_error *err) {
  cg_rc rc = CG_OK;
  const cg_linear_shape s = d->setup.shape;
  const int rows = s.batch < s.samples ? s.batch : s.samples;
  float *xb = malloc((size_t)rows * s.features * sizeof *xb);
  float *logits = malloc((size_t)rows * s.classes * sizeof *logits);
  int *lb = malloc((size_t)rows * sizeof *lb);
  CG_CHECK(xb && logits && lb, CG_ERROR, "out of host memory for the reference");
  memcpy(d->ref_w, d->w0, (size_t)s.classes * s.features * sizeof(float));
  memcpy(d->ref_b, d->b0, (size_t)s.classes * sizeof(float));
  for (int e = 0; e < runs && e < d->epochs; ++e) {
    const int *order = d->orders + (size_t)e * s.samples;
    double loss = 0;
    for (int start = 0; start < s.samples; start += s.batch) {
      const int n = s.samples - start < s.batch ? s.samples - start : s.batch;
      loss += cg_ref_linear_step(&d->setup, d->x, d->labels, order + start, n, d->ref_w,
                                 d->ref_b, xb, logits, lb);
    }
    d->ref_losses[e] = loss;
  }
cleanup:
  free(xb);
  free(logits);
  free(lb);
  return rc;
}

static void adopt_reference(cg_workload_data *d, const cg_record *rec) {
  const cg_linear_shape s = d->setup.shape;
  memcpy(d->ref_w, d->out_w, (size_t)s.classes * s.features * sizeof(float));
  memcpy(d->ref_b, d->out_b, (size_t)s.classes * sizeof(float));
  memcpy(d->ref_losses, rec->losses, (size_t)rec->nlosses * sizeof *rec->losses);
}

static void verify(const cg_workload_data *d, cg_record *rec) {
  const cg_linear_shape s = d->setup.shape;
  rec->verify_loss_error = cg_loss_error(rec->losses, d->ref_losses, rec->nlosses);
  const double ew = cg_rel_error(d->out_w, d->ref_w, (size_t)s.classes * s.features);
  const double eb = cg_rel_error(d->out_b, d->ref_b, (size_t)s.classes);
  rec->verify_weights_error = ew > eb || isnan(ew) ? ew : eb;
  rec->verify_error =
      rec->verify_loss_error > rec->verify_weights_error || isnan(rec->verify_loss_error)
          ? rec->verify_loss_error
          : rec->verify_weights_error;
  cg_verify_verdict(rec, LINEAR_TOLERANCE);
}

static const char *const batch_params[] = {"batch", NULL};
static const cg_sweep_desc sweeps[] = {
    {"sweep-batch", "batch",
     "run at each batch size of LIST and report the size from\n"
     "which each OpenCL backend beats cpu (per batch, and counting\n"
     "context, compile and transfers too)",
     batch_params, NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

const cg_workload cg_workload_linear = {
    .name = "linear",
    .summary = "per-batch training of a linear classifier, with transfer strategies",
    .help = "Per-batch training of a linear classifier (softmax cross-entropy, SGD), as in the\n"
            "PyTorch DataLoader report, with the epoch order reshuffled each epoch (the same for\n"
            "every backend) and the epoch's summed loss read back each epoch. Each epoch is one\n"
            "run: epoch 0 is 'first', the others 'steady'. Verified against the host reference:\n"
            "every epoch's loss and the final weights and bias (after the epochs that ran, when\n"
            "--budget-s cut them).\n",
    .params = params,
    .nparams = P_COUNT,
    .modes = &modes,
    .sweeps = sweeps,
    .loss_unit = "epoch",
    CG_WORKLOAD_FUNCTIONS,
};
