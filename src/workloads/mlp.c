/* The mlp workload: inputs, presets, the chunked training loop of each backend with its phases,
 * verification against the host reference, and the crossover along a size sweep. */
#include "clgauge/mlp.h"

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

/* Losses are float sums of N*O squares on the devices, double on the host; weights after many
 * tiny steps differ by reassociation only. */
#define MLP_TOLERANCE 1e-3

void cg_mlp_defaults(cg_mlp_config *cfg) {
  memset(cfg, 0, sizeof *cfg);
  cfg->shape = (cg_mlp_shape){64, 1024, 128, 8};
  cfg->iters = 10000;
  cfg->lr = 1e-9;
  cfg->print_every = 1000;
  cfg->seed = 42;
}

cg_rc cg_mlp_preset(cg_mlp_config *cfg, const char *name, cg_error *err) {
  cg_rc rc = CG_OK;
  if (strcmp(name, "seed") == 0)
    cfg->shape = (cg_mlp_shape){64, 1024, 128, 8};
  else if (strcmp(name, "big") == 0)
    cfg->shape = (cg_mlp_shape){64, 5000, 5000, 8};
  else
    CG_CHECK(0, CG_BAD_INPUT, "--preset '%s': unknown preset (presets: seed, big)", name);
cleanup:
  return rc;
}

static const char *const *mlp_variants(const cg_backend *b) {
  return b->mlp ? b->mlp->variants : NULL;
}

static double gib(double bytes) { return bytes / (1024.0 * 1024.0 * 1024.0); }

cg_rc cg_mlp_validate(const cg_mlp_config *cfg, const cg_device_info *device, cg_error *err) {
  cg_rc rc = CG_OK;
  const cg_mlp_shape s = cfg->shape;
  const struct {
    const char *opt;
    int value, min, max;
  } ranges[] = {{"--batch", s.batch, 1, CG_MLP_MAX_DIM},
                {"--din", s.din, 1, CG_MLP_MAX_DIM},
                {"--hidden", s.hidden, 1, CG_MLP_MAX_DIM},
                {"--dout", s.dout, 1, CG_MLP_MAX_DIM},
                {"--iters", cfg->iters, 1, 100000000},
                {"--print-every", cfg->print_every, 1, 100000000}};
  for (size_t i = 0; i < sizeof ranges / sizeof ranges[0]; ++i)
    CG_CHECK(ranges[i].value >= ranges[i].min && ranges[i].value <= ranges[i].max, CG_BAD_INPUT,
             "%s %d: out of range (%d..%d)", ranges[i].opt, ranges[i].value, ranges[i].min,
             ranges[i].max);
  CG_CHECK(isfinite(cfg->lr) && cfg->lr >= 0, CG_BAD_INPUT,
           "--lr %g: must be a finite number >= 0", cfg->lr);
  CG_TRY(cg_selection_check(cfg->backends, cfg->variants, mlp_variants, err));
  bool opencl = false;
  for (const cg_backend *const *b = cg_backend_all(); *b; ++b)
    opencl |= (*b)->uses_opencl && (*b)->mlp && cg_backend_selected(cfg->backends, *b);
  if (device && opencl) {
    const double N = s.batch, D = s.din, H = s.hidden, O = s.dout;
    const struct {
      const char *name;
      double elems;
    } tensors[] = {{"x", N * D}, {"w1", D * H}, {"h1", N * H}, {"w2", H * O}};
    double total = 0;
    for (size_t i = 0; i < sizeof tensors / sizeof tensors[0]; ++i) {
      double bytes = 4 * tensors[i].elems;
      total += bytes;
      CG_CHECK(bytes <= (double)device->max_alloc, CG_BAD_INPUT,
               "--batch %d --din %d --hidden %d --dout %d: %s needs %.3g GiB, device '%s' "
               "allows %.3g GiB per allocation",
               s.batch, s.din, s.hidden, s.dout, tensors[i].name, gib(bytes), device->name,
               gib((double)device->max_alloc));
    }
    /* w1's gradient doubles the largest tensor; the rest are small */
    total += 4 * D * H;
    CG_CHECK(total <= (double)device->global_mem, CG_BAD_INPUT,
             "--batch %d --din %d --hidden %d --dout %d: the tensors need %.3g GiB, device '%s' "
             "has %.3g GiB",
             s.batch,
             s.din, s.hidden, s.dout, gib(total), device->name, gib((double)device->global_mem));
  }
cleanup:
  return rc;
}

/* The inputs and initial weights of one run, seeded, the same for every backend. */
typedef struct mlp_data {
  cg_mlp_tensors init;  /* x, t, w1, w2, w3 */
  cg_mlp_tensors ref;   /* reference final w1, w2, w3, g3 */
  cg_mlp_tensors out;   /* a backend's final weights */
  double *ref_losses;
  int nchunks;
  bool have_ref;
} mlp_data;

static void free_tensors(cg_mlp_tensors *t) {
  float *all[] = {t->x, t->t, t->w1, t->w2, t->w3, t->g3};
  for (int i = 0; i < 6; ++i) free(all[i]);
  memset(t, 0, sizeof *t);
}

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
  bool ok = t->w1 && t->w2 && t->w3 && t->g3 && (!inputs || (t->x && t->t));
  if (!ok) free_tensors(t);
  return ok;
}

static int chunk_count(const cg_mlp_config *cfg) {
  return (cfg->iters + cfg->print_every - 1) / cfg->print_every;
}

/* The host reference over the whole run, for when no host backend ran first. */
static cg_rc compute_reference(const cg_mlp_config *cfg, mlp_data *d, cg_error *err) {
  cg_rc rc = CG_OK;
  cg_ref_mlp ref;
  cg_mlp_setup setup = {cfg->shape, (float)cfg->lr, cfg->update_w3};
  CG_CHECK(cg_ref_mlp_init(&ref, &setup, &d->init), CG_ERROR, "out of host memory");
  for (int i = 0; i < cfg->iters; ++i) {
    double loss = cg_ref_mlp_step(&ref);
    if (i % cfg->print_every == 0) d->ref_losses[i / cfg->print_every] = loss;
  }
  cg_ref_mlp_read(&ref, &d->ref);
  cg_ref_mlp_free(&ref);
  d->have_ref = true;
cleanup:
  return rc;
}

static double max_loss_error(const double *got, const double *want, int n) {
  double worst = 0;
  for (int i = 0; i < n; ++i) {
    double e = fabs(got[i] - want[i]) / (fabs(want[i]) > 0 ? fabs(want[i]) : 1.0);
    if (!(e <= worst)) worst = e; /* NaN sticks */
  }
  return worst;
}

static void verify(const cg_mlp_config *cfg, const mlp_data *d, cg_record *rec) {
  const cg_mlp_shape s = cfg->shape;
  const size_t D = (size_t)s.din, H = (size_t)s.hidden, O = (size_t)s.dout;
  rec->verify_loss_error = max_loss_error(rec->losses, d->ref_losses, rec->nlosses);
  double errs[] = {cg_rel_error(d->out.w1, d->ref.w1, D * H),
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
  rec->verify_tolerance = MLP_TOLERANCE;
  if (!(rec->verify_error <= rec->verify_tolerance))
    cg_record_set_status(rec, CG_STATUS_ERROR,
                         "wrong result: relative error %.3g (losses %.3g, weights %.3g) exceeds "
                         "the tolerance %.3g",
                         rec->verify_error, rec->verify_loss_error, rec->verify_weights_error,
                         rec->verify_tolerance);
}

/* Add one sampled iteration's launches to the record's split (summed; divided by the number of
 * samples at the end). A sample whose launches differ from the first one's is left out. */
static void add_split(cg_record *rec, int n, const cg_kernel_time *sample, int *runs) {
  if (n <= 0 || (rec->nsplit && n != rec->nsplit)) return;
  if (!rec->nsplit) {
    for (int k = 0; k < n; ++k) rec->split[k] = (cg_kernel_time){sample[k].name, 0};
    rec->nsplit = n;
  }
  for (int k = 0; k < n; ++k) rec->split[k].ms += sample[k].ms;
  (*runs)++;
}

static void run_record(const cg_mlp_config *cfg, const cg_backend *backend, const char *variant,
                       const cg_device_info *info, mlp_data *d, cg_record *rec, const progress_hook *hook) {
  cg_error error = {0}, *err = &error;
  cg_rc rc = CG_OK;
  cg_device *dev = NULL;
  void *state = NULL;
  run_timer timer = {0};
  const cg_mlp_ops *ops = backend->mlp;
  const cg_mlp_setup setup = {cfg->shape, (float)cfg->lr, cfg->update_w3};
  const int nchunks = chunk_count(cfg);
  cg_kernel_time sample[CG_MAX_SPLIT];
  int nsplit_runs = 0;

  rec->losses = calloc((size_t)nchunks, sizeof *rec->losses);
  CG_CHECK(rec->losses, CG_ERROR, "out of memory");
  rec->loss_every = cfg->print_every;
  if (backend->uses_opencl && !d->have_ref) CG_TRY(compute_reference(cfg, d, err));

  CG_TRY(run_timer_open(&timer, rec, nchunks, backend, info, hook, &dev, err));
  cg_backend_env env = {dev, cfg->programs};
  cg_compile_info compile = {NAN, "none"};
  CG_TRY(ops->prepare(&env, variant, &setup, &state, &compile, err));
  record_compile(rec, &compile, info);

  uint64_t t0 = cg_now_ns();
  CG_TRY(ops->upload(state, &d->init, err));
  rec->upload_ms = cg_ns_to_ms(cg_now_ns() - t0);

  /* One run per printed loss, as the report's loop reads the loss back every print_every
   * iterations; a shorter last run is listed but left out of the steady statistics. */
  for (int c = 0; c < nchunks; ++c) {
    const int iters = cfg->iters - c * cfg->print_every < cfg->print_every
                          ? cfg->iters - c * cfg->print_every
                          : cfg->print_every;
    const int kind = c == 0 ? RUN_FIRST : iters == cfg->print_every ? RUN_STEADY : RUN_LISTED;
    if (c == 1) run_timer_steady_begin(&timer);
    cg_device_span span = {0};
    double loss = NAN;
    run_timer_begin(&timer);
    rc = ops->enqueue(state, iters, &span, &rec->launches_per_iter, err);
    run_timer_enqueued(&timer);
    if (rc == CG_OK) rc = ops->finish(state, err);
    if (rc == CG_OK) rc = ops->read_loss(state, &loss, err);
    run_timer_end(&timer, rc == CG_OK ? kind : RUN_UNTIMED, iters, &span);
    if (rc != CG_OK) goto cleanup;
    rec->losses[rec->nlosses++] = loss;
    if (kind == RUN_STEADY && ops->kernel_split) add_split(rec, ops->kernel_split(state, sample,
                                                                                    CG_MAX_SPLIT),
                                                           sample, &nsplit_runs);
  }
  run_timer_close(&timer);
  for (int k = 0; k < rec->nsplit; ++k) rec->split[k].ms /= nsplit_runs;

  t0 = cg_now_ns();
  CG_TRY(ops->download(state, &d->out, err));
  rec->download_ms = cg_ns_to_ms(cg_now_ns() - t0);
  if (!d->have_ref && !backend->uses_opencl) {
    /* The host backend runs the reference code itself: its results are the reference. */
    const size_t D = (size_t)cfg->shape.din, H = (size_t)cfg->shape.hidden,
                 O = (size_t)cfg->shape.dout;
    memcpy(d->ref.w1, d->out.w1, D * H * sizeof(float));
    memcpy(d->ref.w2, d->out.w2, H * O * sizeof(float));
    memcpy(d->ref.w3, d->out.w3, O * O * sizeof(float));
    memcpy(d->ref.g3, d->out.g3, O * O * sizeof(float));
    memcpy(d->ref_losses, rec->losses, (size_t)nchunks * sizeof *rec->losses);
    d->have_ref = true;
  } else {
    verify(cfg, d, rec);
  }

cleanup:
  fail_record(rec, rc, &error);
  if (timer.rec) run_timer_close(&timer);
  if (state) ops->release(state);
  cg_device_close(dev);
}

/* Floating-point operations of one iteration: the eight products (forward three, backward five). */
static double mlp_flops(cg_mlp_shape s) {
  const double N = s.batch, D = s.din, H = s.hidden, O = s.dout;
  return 2 * N * (D * H + H * O + O * O)     /* forward */
         + 2 * N * (O * O + O * O)           /* g3, dy w3^T */
         + 2 * N * (H * O + H * O)           /* g2, dz2 w2^T */
         + 2 * N * D * H;                    /* g1 */
}

/* Minimum bytes of one iteration: x and t read, w1 and w2 read and written, w3 read. */
static double mlp_bytes(cg_mlp_shape s) {
  const double N = s.batch, D = s.din, H = s.hidden, O = s.dout;
  return 4 * (N * D + N * O + 2 * D * H + 2 * H * O + O * O);
}

cg_rc cg_mlp_run(const cg_mlp_config *cfg, const cg_device_info *device, cg_report *report,
                 cg_progress_fn progress, void *progress_ctx, cg_error *err) {
  cg_rc rc = CG_OK;
  mlp_data d = {0};
  const cg_mlp_shape s = cfg->shape;
  d.nchunks = chunk_count(cfg);
  d.ref_losses = calloc((size_t)d.nchunks, sizeof *d.ref_losses);
  CG_CHECK(d.ref_losses && alloc_tensors(&d.init, s, true) && alloc_tensors(&d.ref, s, false) &&
               alloc_tensors(&d.out, s, false),
           CG_ERROR, "out of host memory for the %dx%dx%dx%d model", s.batch, s.din, s.hidden,
           s.dout);
  cg_rng rng;
  cg_rng_seed(&rng, cfg->seed);
  cg_rng_fill_normal(&rng, d.init.x, (size_t)s.batch * s.din);
  cg_rng_fill_normal(&rng, d.init.t, (size_t)s.batch * s.dout);
  cg_rng_fill_normal(&rng, d.init.w1, (size_t)s.din * s.hidden);
  cg_rng_fill_normal(&rng, d.init.w2, (size_t)s.hidden * s.dout);
  cg_rng_fill_normal(&rng, d.init.w3, (size_t)s.dout * s.dout);

  record_plan plan[CG_MAX_RECORDS];
  const int total =
      plan_records(mlp_variants, cfg->backends, cfg->variants, plan, CG_MAX_RECORDS);
  for (int i = 0; i < total; ++i) {
    cg_record *rec = start_record(report, "mlp", &plan[i], device);
    CG_CHECK(rec, CG_ERROR, "out of memory");
    cg_record_add_param(rec, "batch", s.batch);
    cg_record_add_param(rec, "din", s.din);
    cg_record_add_param(rec, "hidden", s.hidden);
    cg_record_add_param(rec, "dout", s.dout);
    cg_record_add_param(rec, "iters", cfg->iters);
    cg_record_add_param(rec, "lr", cfg->lr);
    cg_record_add_param(rec, "update_w3", cfg->update_w3);
    cg_record_add_param(rec, "print_every", cfg->print_every);
    cg_record_add_param(rec, "seed", (double)cfg->seed);
    rec->flops_per_iter = mlp_flops(s);
    rec->bytes_per_iter = mlp_bytes(s);
    rec->iters_per_run = cfg->print_every < cfg->iters ? cfg->print_every : cfg->iters;
    const progress_hook hook = {progress, progress_ctx, i, total};
    if (progress) progress(progress_ctx, i, total, rec);
    if (rec->status == CG_STATUS_OK)
      run_record(cfg, plan[i].backend, plan[i].variant, device, &d, rec, &hook);
  }
cleanup:
  free(d.ref_losses);
  free_tensors(&d.init);
  free_tensors(&d.ref);
  free_tensors(&d.out);
  return rc;
}

/* ---- crossover along a sweep ---- */

static double steady_per_iter(const cg_record *r) {
  return r->steady_complete.median / r->iters_per_run;
}

/* Everything the record's process paid: init, compile, upload and every run. */
static double total_ms(const cg_record *r) {
  double t = (isfinite(r->init_ms) ? r->init_ms : 0) + (isfinite(r->compile_ms) ? r->compile_ms : 0) +
             (isfinite(r->upload_ms) ? r->upload_ms : 0);
  for (int i = 0; i < r->nruns; ++i) t += r->runs[i].complete_ms;
  return t;
}

int cg_mlp_crossovers(const cg_report *report, cg_mlp_crossover *out, int max) {
  int count = 0;
  for (int i = 0; i < report->count; ++i) {
    const cg_record *r = &report->records[i];
    if (strcmp(r->workload, "mlp") != 0 || r->host_backend) continue;
    bool seen = false;
    for (int c = 0; c < count; ++c)
      seen |= strcmp(out[c].backend, r->backend) == 0 && strcmp(out[c].variant, r->variant) == 0;
    if (seen || count == max) continue;
    cg_mlp_crossover *x = &out[count++];
    snprintf(x->backend, sizeof x->backend, "%s", r->backend);
    snprintf(x->variant, sizeof x->variant, "%s", r->variant);
    x->loop_size = x->total_size = 0;
    /* Walk the sweep in order; a size where the host is faster (or either failed) resets. */
    for (int j = 0; j < report->count; ++j) {
      const cg_record *g = &report->records[j];
      if (strcmp(g->workload, "mlp") != 0 || strcmp(g->backend, r->backend) != 0 ||
          strcmp(g->variant, r->variant) != 0)
        continue;
      const cg_record *h = NULL;
      for (int k = 0; k < report->count; ++k) {
        const cg_record *c = &report->records[k];
        if (c->host_backend && strcmp(c->workload, "mlp") == 0 &&
            cg_record_param(c, "hidden") == cg_record_param(g, "hidden") &&
            cg_record_param(c, "din") == cg_record_param(g, "din"))
          h = c;
      }
      int size = (int)cg_record_param(g, "hidden");
      bool ok = h && g->status == CG_STATUS_OK && h->status == CG_STATUS_OK;
      bool wins_loop = ok && steady_per_iter(g) < steady_per_iter(h);
      bool wins_total = ok && total_ms(g) < total_ms(h);
      if (!wins_loop) x->loop_size = 0;
      else if (!x->loop_size) x->loop_size = size;
      if (!wins_total) x->total_size = 0;
      else if (!x->total_size) x->total_size = size;
    }
  }
  return count;
}
