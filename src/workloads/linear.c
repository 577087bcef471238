/* The linear workload: data, epoch orders, the per-epoch timing of each backend, variant and
 * transfer mode, the transfer split from profiling, and verification against the host reference. */
#include "clgauge/linear.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clgauge/random.h"
#include "clgauge/reference.h"
#include "clgauge/clock.h"
#include "clgauge/events.h"
#include "clgauge/stats.h"
#include "workloads/common.h"

/* Weights after hundreds of SGD steps differ between float orders of summation by far less. */
#define LINEAR_TOLERANCE 1e-3

void cg_linear_defaults(cg_linear_config *cfg) {
  memset(cfg, 0, sizeof *cfg);
  cfg->shape = (cg_linear_shape){10000, 1000, 10, 32};
  cfg->epochs = 10;
  cfg->lr = 0.01;
  cfg->transfers[CG_TRANSFER_PAGEABLE] = true;
  cfg->seed = 42;
}

cg_rc cg_linear_parse_transfer(cg_linear_config *cfg, const char *text, cg_error *err) {
  cg_rc rc = CG_OK;
  bool all = strcmp(text, "all") == 0;
  bool found = all;
  for (int t = 0; t < 3; ++t) {
    bool match = strcmp(text, cg_transfer_name((cg_transfer)t)) == 0;
    cfg->transfers[t] = all || match;
    found |= match;
  }
  CG_CHECK(found, CG_BAD_INPUT,
           "--transfer '%s': unknown mode (modes: pageable, pinned, resident, all)", text);
cleanup:
  return rc;
}

static const char *const *linear_variants(const cg_backend *b) {
  return b->linear ? b->linear->variants : NULL;
}

static double gib(double bytes) { return bytes / (1024.0 * 1024.0 * 1024.0); }

cg_rc cg_linear_validate(const cg_linear_config *cfg, const cg_device_info *device,
                         cg_error *err) {
  cg_rc rc = CG_OK;
  const cg_linear_shape s = cfg->shape;
  const struct {
    const char *opt;
    int value, min, max;
  } ranges[] = {{"--samples", s.samples, 1, CG_LINEAR_MAX_DIM},
                {"--features", s.features, 1, CG_LINEAR_MAX_DIM},
                {"--classes", s.classes, 1, 1 << 16},
                {"--batch", s.batch, 1, CG_LINEAR_MAX_DIM},
                {"--epochs", cfg->epochs, 1, 1000000}};
  for (size_t i = 0; i < sizeof ranges / sizeof ranges[0]; ++i)
    CG_CHECK(ranges[i].value >= ranges[i].min && ranges[i].value <= ranges[i].max, CG_BAD_INPUT,
             "%s %d: out of range (%d..%d)", ranges[i].opt, ranges[i].value, ranges[i].min,
             ranges[i].max);
  CG_CHECK(isfinite(cfg->lr) && cfg->lr >= 0, CG_BAD_INPUT,
           "--lr %g: must be a finite number >= 0", cfg->lr);
  CG_TRY(cg_selection_check(cfg->backends, cfg->variants, linear_variants, err));
  const double dataset = 4.0 * s.samples * (double)s.features;
  CG_CHECK(dataset < 64.0 * 1024 * 1024 * 1024, CG_BAD_INPUT,
           "--samples %d --features %d: the dataset would take %.3g GiB of host memory",
           s.samples, s.features, gib(dataset));
  if (device && cfg->transfers[CG_TRANSFER_RESIDENT]) {
    CG_CHECK(dataset <= (double)device->max_alloc, CG_BAD_INPUT,
             "--transfer resident: the dataset needs %.3g GiB, device '%s' allows %.3g GiB per "
             "allocation",
             gib(dataset), device->name, gib((double)device->max_alloc));
  }
  if (device) {
    const double batch_bytes = 4.0 * (s.batch < s.samples ? s.batch : s.samples) * s.features;
    const double model_bytes = 4.0 * s.classes * (double)s.features;
    CG_CHECK(batch_bytes <= (double)device->max_alloc && model_bytes <= (double)device->max_alloc,
             CG_BAD_INPUT,
             "--batch %d --features %d --classes %d: a batch needs %.3g GiB and the model %.3g "
             "GiB, device '%s' allows %.3g GiB per allocation",
             s.batch, s.features, s.classes, gib(batch_bytes), gib(model_bytes), device->name,
             gib((double)device->max_alloc));
  }
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
      int j = (int)(cg_rng_next(&rng) % (uint64_t)(i + 1));
      int t = o[i];
      o[i] = o[j];
      o[j] = t;
    }
  }
  return orders;
}

typedef struct linear_data {
  float *x, *w0, *b0;     /* dataset and initial model */
  int *labels;
  int *orders;            /* epochs x samples */
  float *ref_w, *ref_b;   /* reference final model */
  double *ref_losses;     /* reference loss per epoch */
  float *out_w, *out_b;   /* a backend's final model */
  bool have_ref;
} linear_data;

static void free_data(linear_data *d) {
  void *all[] = {d->x, d->w0, d->b0, d->labels, d->orders, d->ref_w,
                 d->ref_b, d->ref_losses, d->out_w, d->out_b};
  for (size_t i = 0; i < sizeof all / sizeof all[0]; ++i) free(all[i]);
  memset(d, 0, sizeof *d);
}

static cg_rc compute_reference(const cg_linear_config *cfg, linear_data *d, cg_error *err) {
  cg_rc rc = CG_OK;
  const cg_linear_shape s = cfg->shape;
  const int rows = s.batch < s.samples ? s.batch : s.samples;
  const cg_linear_setup setup = {s, (float)cfg->lr, CG_TRANSFER_HOST};
  float *xb = malloc((size_t)rows * s.features * sizeof *xb);
  float *logits = malloc((size_t)rows * s.classes * sizeof *logits);
  int *lb = malloc((size_t)rows * sizeof *lb);
  CG_CHECK(xb && logits && lb, CG_ERROR, "out of host memory for the reference");
  memcpy(d->ref_w, d->w0, (size_t)s.classes * s.features * sizeof(float));
  memcpy(d->ref_b, d->b0, (size_t)s.classes * sizeof(float));
  for (int e = 0; e < cfg->epochs; ++e) {
    const int *order = d->orders + (size_t)e * s.samples;
    double loss = 0;
    for (int start = 0; start < s.samples; start += s.batch) {
      const int n = s.samples - start < s.batch ? s.samples - start : s.batch;
      loss += cg_ref_linear_step(&setup, d->x, d->labels, order + start, n, d->ref_w, d->ref_b,
                                 xb, logits, lb);
    }
    d->ref_losses[e] = loss;
  }
  d->have_ref = true;
cleanup:
  free(xb);
  free(logits);
  free(lb);
  return rc;
}

static void verify(const cg_linear_config *cfg, const linear_data *d, cg_record *rec) {
  const cg_linear_shape s = cfg->shape;
  double worst = 0;
  for (int e = 0; e < rec->nlosses; ++e) {
    double err = fabs(rec->losses[e] - d->ref_losses[e]) /
                 (fabs(d->ref_losses[e]) > 0 ? fabs(d->ref_losses[e]) : 1.0);
    if (!(err <= worst)) worst = err;
  }
  rec->verify_loss_error = worst;
  double ew = cg_rel_error(d->out_w, d->ref_w, (size_t)s.classes * s.features);
  double eb = cg_rel_error(d->out_b, d->ref_b, (size_t)s.classes);
  rec->verify_weights_error = ew > eb || isnan(ew) ? ew : eb;
  rec->verify_error = rec->verify_loss_error > rec->verify_weights_error ||
                              isnan(rec->verify_loss_error)
                          ? rec->verify_loss_error
                          : rec->verify_weights_error;
  rec->verify_tolerance = LINEAR_TOLERANCE;
  if (!(rec->verify_error <= rec->verify_tolerance))
    cg_record_set_status(rec, CG_STATUS_ERROR,
                         "wrong result: relative error %.3g (losses %.3g, weights %.3g) exceeds "
                         "the tolerance %.3g",
                         rec->verify_error, rec->verify_loss_error, rec->verify_weights_error,
                         rec->verify_tolerance);
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Median over the steady epochs of the per-batch upload and compute device times, and of the
 * share of the upload time during which a kernel ran. */
static void transfer_split(cg_record *rec, const double *hidden_share) {
  double *up = malloc(3 * (size_t)(rec->nruns + 1) * sizeof *up);
  if (!up) return;
  double *comp = up + rec->nruns + 1, *hidden = comp + rec->nruns + 1;
  int n = 0;
  for (int i = 1; i < rec->nruns; ++i) {
    const cg_run_sample *r = &rec->runs[i];
    if (!isfinite(r->batch_upload_ms) || !isfinite(r->batch_compute_ms) ||
        !isfinite(hidden_share[i]))
      continue;
    up[n] = r->batch_upload_ms;
    comp[n] = r->batch_compute_ms;
    hidden[n] = hidden_share[i];
    n++;
  }
  if (n > 0) {
    qsort(up, (size_t)n, sizeof *up, cmp_double);
    qsort(comp, (size_t)n, sizeof *comp, cmp_double);
    qsort(hidden, (size_t)n, sizeof *hidden, cmp_double);
    rec->batch_upload_ms = up[n / 2];
    rec->batch_compute_ms = comp[n / 2];
    rec->upload_hidden = hidden[n / 2];
  }
  free(up);
}

static void run_record(const cg_linear_config *cfg, const cg_backend *backend,
                       const char *variant, cg_transfer transfer, const cg_device_info *info,
                       linear_data *d, cg_record *rec, const progress_hook *hook) {
  cg_error error = {0}, *err = &error;
  cg_rc rc = CG_OK;
  cg_device *dev = NULL;
  void *state = NULL;
  run_timer timer = {0};
  const cg_linear_ops *ops = backend->linear;
  const cg_linear_shape s = cfg->shape;
  const cg_linear_setup setup = {s, (float)cfg->lr, transfer};
  const int batches = (s.samples + s.batch - 1) / s.batch;
  double *hidden = calloc((size_t)cfg->epochs, sizeof *hidden);

  rec->losses = calloc((size_t)cfg->epochs, sizeof *rec->losses);
  CG_CHECK(rec->losses && hidden, CG_ERROR, "out of memory");
  rec->loss_every = 1;
  rec->loss_unit = "epoch";
  if (backend->uses_opencl && !d->have_ref) CG_TRY(compute_reference(cfg, d, err));

  CG_TRY(run_timer_open(&timer, rec, cfg->epochs, backend, info, hook, &dev, err));
  cg_backend_env env = {dev, cfg->programs};
  cg_compile_info compile = {NAN, "none"};
  CG_TRY(ops->prepare(&env, variant, &setup, &state, &compile, err));
  record_compile(rec, &compile, info);

  cg_linear_tensors data = {d->x, d->labels, d->w0, d->b0};
  uint64_t t0 = cg_now_ns();
  CG_TRY(ops->upload(state, &data, err));
  rec->upload_ms = cg_ns_to_ms(cg_now_ns() - t0);

  for (int e = 0; e < cfg->epochs; ++e) {
    const int kind = e == 0 ? RUN_FIRST : RUN_STEADY;
    if (e == 1) run_timer_steady_begin(&timer);
    cg_device_span span = {0};
    double loss = NAN;
    cg_linear_epoch_times times = {NAN, NAN, NAN, NAN};
    run_timer_begin(&timer);
    rc = ops->enqueue_epoch(state, d->orders + (size_t)e * s.samples, &span,
                            &rec->launches_per_iter, err);
    run_timer_enqueued(&timer);
    if (rc == CG_OK) rc = ops->finish(state, err);
    if (rc == CG_OK) rc = ops->read_epoch_loss(state, &loss, err);
    if (rc == CG_OK && ops->epoch_times) rc = ops->epoch_times(state, &times, err);
    run_timer_end(&timer, rc == CG_OK ? kind : RUN_UNTIMED, batches, &span);
    if (rc != CG_OK) goto cleanup;
    rec->losses[rec->nlosses++] = loss;
    rec->runs[rec->nruns - 1].batch_upload_ms = times.batch_upload_ms;
    rec->runs[rec->nruns - 1].batch_compute_ms = times.batch_compute_ms;
    hidden[rec->nruns - 1] = times.hidden_share;
  }
  run_timer_close(&timer);
  transfer_split(rec, hidden);

  cg_linear_tensors out = {NULL, NULL, d->out_w, d->out_b};
  t0 = cg_now_ns();
  CG_TRY(ops->download(state, &out, err));
  rec->download_ms = cg_ns_to_ms(cg_now_ns() - t0);
  if (!d->have_ref && !backend->uses_opencl) {
    /* The host backend runs the reference code itself: its results are the reference. */
    memcpy(d->ref_w, d->out_w, (size_t)s.classes * s.features * sizeof(float));
    memcpy(d->ref_b, d->out_b, (size_t)s.classes * sizeof(float));
    memcpy(d->ref_losses, rec->losses, (size_t)cfg->epochs * sizeof *rec->losses);
    d->have_ref = true;
  } else {
    verify(cfg, d, rec);
  }

cleanup:
  fail_record(rec, rc, &error);
  if (timer.rec) run_timer_close(&timer);
  if (state) ops->release(state);
  cg_device_close(dev);
  free(hidden);
}

static bool supports(const cg_linear_ops *ops, cg_transfer t) {
  for (int i = 0; ops->transfers[i] != CG_TRANSFER_HOST; ++i)
    if (ops->transfers[i] == t) return true;
  return false;
}

cg_rc cg_linear_run(const cg_linear_config *cfg, const cg_device_info *device, cg_report *report,
                    cg_progress_fn progress, void *progress_ctx, cg_error *err) {
  cg_rc rc = CG_OK;
  linear_data d = {0};
  const cg_linear_shape s = cfg->shape;
  const size_t xs = (size_t)s.samples * s.features, ws = (size_t)s.classes * s.features;
  d.x = malloc(xs * sizeof *d.x);
  d.labels = malloc((size_t)s.samples * sizeof *d.labels);
  d.w0 = malloc(ws * sizeof *d.w0);
  d.b0 = malloc((size_t)s.classes * sizeof *d.b0);
  d.ref_w = malloc(ws * sizeof *d.ref_w);
  d.ref_b = malloc((size_t)s.classes * sizeof *d.ref_b);
  d.out_w = malloc(ws * sizeof *d.out_w);
  d.out_b = malloc((size_t)s.classes * sizeof *d.out_b);
  d.ref_losses = calloc((size_t)cfg->epochs, sizeof *d.ref_losses);
  d.orders = cg_linear_orders(s.samples, cfg->epochs, cfg->seed ^ 0x5eed5eedull);
  CG_CHECK(d.x && d.labels && d.w0 && d.b0 && d.ref_w && d.ref_b && d.out_w && d.out_b &&
               d.ref_losses && d.orders,
           CG_ERROR, "out of host memory for %d x %d samples (%.3g GiB)", s.samples, s.features,
           gib(4.0 * (double)xs));
  cg_rng rng;
  cg_rng_seed(&rng, cfg->seed);
  cg_rng_fill_normal(&rng, d.x, xs);
  for (int i = 0; i < s.samples; ++i) d.labels[i] = (int)(cg_rng_next(&rng) % (uint64_t)s.classes);
  /* PyTorch's Linear initialisation: uniform in +-1/sqrt(fan_in) */
  const double bound = 1.0 / sqrt((double)s.features);
  for (size_t i = 0; i < ws; ++i) d.w0[i] = (float)((2 * cg_rng_uniform(&rng) - 1) * bound);
  for (int i = 0; i < s.classes; ++i) d.b0[i] = (float)((2 * cg_rng_uniform(&rng) - 1) * bound);

  /* One record per backend and variant, times each selected transfer mode on OpenCL. */
  record_plan pairs[CG_MAX_RECORDS];
  const int npairs =
      plan_records(linear_variants, cfg->backends, cfg->variants, pairs, CG_MAX_RECORDS);
  int total = 0;
  for (int i = 0; i < npairs; ++i)
    for (int t = 0; t < 3; ++t) total += pairs[i].backend->uses_opencl ? cfg->transfers[t] : !t;
  int index = 0;
  for (int i = 0; i < npairs; ++i) {
    const cg_backend *backend = pairs[i].backend;
    for (int t = 0; t < 3; ++t) {
      if (backend->uses_opencl ? !cfg->transfers[t] : t != 0) continue;
      const cg_transfer transfer = backend->uses_opencl ? (cg_transfer)t : CG_TRANSFER_HOST;
      cg_record *rec = start_record(report, "linear", &pairs[i], device);
      CG_CHECK(rec, CG_ERROR, "out of memory");
      snprintf(rec->transfer, sizeof rec->transfer, "%s", cg_transfer_name(transfer));
      cg_record_add_param(rec, "samples", s.samples);
      cg_record_add_param(rec, "features", s.features);
      cg_record_add_param(rec, "classes", s.classes);
      cg_record_add_param(rec, "batch", s.batch);
      cg_record_add_param(rec, "epochs", cfg->epochs);
      cg_record_add_param(rec, "lr", cfg->lr);
      cg_record_add_param(rec, "seed", (double)cfg->seed);
      const int batches = (s.samples + s.batch - 1) / s.batch;
      /* per batch: logits 2*B*F*C, gradient of w 2*B*F*C (the small rest not counted) */
      rec->flops_per_iter = 4.0 * s.features * (double)s.classes * s.samples / batches;
      /* per batch: its rows read, w read and written */
      rec->bytes_per_iter =
          4.0 * ((double)s.samples / batches * s.features + 2.0 * s.classes * s.features);
      rec->iters_per_run = batches;
      const progress_hook hook = {progress, progress_ctx, index, total};
      if (progress) progress(progress_ctx, index++, total, rec);
      if (rec->status != CG_STATUS_OK) continue;
      if (backend->uses_opencl && !supports(backend->linear, transfer)) {
        cg_record_set_status(rec, CG_STATUS_UNSUPPORTED, "backend %s has no %s transfer mode",
                             backend->name, cg_transfer_name(transfer));
        continue;
      }
      run_record(cfg, backend, pairs[i].variant, transfer, device, &d, rec, &hook);
    }
  }
cleanup:
  free_data(&d);
  return rc;
}
