/* The matmul workload: inputs, the phase-by-phase timing of each backend and variant, and
 * verification against the CPU reference. */
#include "clgauge/matmul.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clgauge/backend.h"
#include "clgauge/random.h"
#include "clgauge/reference.h"
#include "clgauge/clock.h"
#include "clgauge/events.h"
#include "clgauge/stats.h"
#include "workloads/common.h"

void cg_matmul_defaults(cg_matmul_config *cfg) {
  memset(cfg, 0, sizeof *cfg);
  cfg->m = cfg->n = cfg->k = 1000;
  cfg->loops = 10;
  cfg->runs = 10;
  cfg->warmup = 0;
  cfg->seed = 42;
}

static const char *const *matmul_variants(const cg_backend *b) {
  return b->matmul ? b->matmul->variants : NULL;
}

static bool any_opencl_backend(const cg_matmul_config *cfg) {
  for (const cg_backend *const *b = cg_backend_all(); *b; ++b)
    if ((*b)->uses_opencl && (*b)->matmul && cg_backend_selected(cfg->backends, *b)) return true;
  return false;
}

static double gib(double bytes) { return bytes / (1024.0 * 1024.0 * 1024.0); }

cg_rc cg_matmul_validate(const cg_matmul_config *cfg, const cg_device_info *device,
                         cg_error *err) {
  cg_rc rc = CG_OK;
  const struct {
    const char *opt;
    int value, min, max;
  } ranges[] = {{"--m", cfg->m, 1, CG_MATMUL_MAX_DIM},   {"--n", cfg->n, 1, CG_MATMUL_MAX_DIM},
                {"--k", cfg->k, 1, CG_MATMUL_MAX_DIM},   {"--loops", cfg->loops, 1, 1000000},
                {"--runs", cfg->runs, 1, 1000000},       {"--warmup", cfg->warmup, 0, 1000000}};
  for (size_t i = 0; i < sizeof ranges / sizeof ranges[0]; ++i)
    CG_CHECK(ranges[i].value >= ranges[i].min && ranges[i].value <= ranges[i].max, CG_BAD_INPUT,
             "%s %d: out of range (%d..%d)", ranges[i].opt, ranges[i].value, ranges[i].min,
             ranges[i].max);
  CG_TRY(cg_selection_check(cfg->backends, cfg->variants, matmul_variants, err));
  if (device && any_opencl_backend(cfg)) {
    const struct {
      const char *name;
      double bytes;
    } mats[] = {{"A", (double)cfg->m * cfg->k * 4}, {"B", (double)cfg->k * cfg->n * 4},
                {"C", (double)cfg->m * cfg->n * 4}};
    char size[80];
    if (cfg->m == cfg->n && cfg->n == cfg->k)
      snprintf(size, sizeof size, "--n %d", cfg->n);
    else
      snprintf(size, sizeof size, "--m %d --n %d --k %d", cfg->m, cfg->n, cfg->k);
    double total = 0;
    for (int i = 0; i < 3; ++i) {
      total += mats[i].bytes;
      CG_CHECK(mats[i].bytes <= (double)device->max_alloc, CG_BAD_INPUT,
               "%s: matrix %s needs %.3g GiB, device '%s' allows %.3g GiB per allocation", size,
               mats[i].name, gib(mats[i].bytes), device->name, gib((double)device->max_alloc));
    }
    CG_CHECK(total <= (double)device->global_mem, CG_BAD_INPUT,
             "%s: the matrices need %.3g GiB, device '%s' has %.3g GiB", size, gib(total),
             device->name, gib((double)device->global_mem));
  }
cleanup:
  return rc;
}

/* One record: open the device, prepare, upload, run, download, verify. Every failure lands in the
 * record; nothing here stops the other records. */
static void run_record(const cg_matmul_config *cfg, const cg_backend *backend,
                       const char *variant, const cg_device_info *info, const float *A,
                       const float *B, const float *ref, float *out, cg_record *rec, const progress_hook *hook) {
  cg_error error = {0}, *err = &error;
  cg_rc rc = CG_OK;
  cg_device *dev = NULL;
  void *state = NULL;
  run_timer timer = {0};
  const cg_matmul_ops *ops = backend->matmul;
  const cg_matmul_shape shape = {cfg->m, cfg->n, cfg->k};

  CG_TRY(run_timer_open(&timer, rec, cfg->runs, backend, info, hook, &dev, err));
  cg_backend_env env = {dev, cfg->programs};
  cg_compile_info compile = {NAN, "none"};
  CG_TRY(ops->prepare(&env, variant, shape, &state, &compile, err));
  record_compile(rec, &compile, info);

  uint64_t t0 = cg_now_ns();
  CG_TRY(ops->upload(state, A, B, err));
  rec->upload_ms = cg_ns_to_ms(cg_now_ns() - t0);

  /* run 0, then the untimed warm-up runs, then the steady runs */
  for (int r = 0; r < cfg->runs + cfg->warmup; ++r) {
    const int kind = r == 0 ? RUN_FIRST : r <= cfg->warmup ? RUN_UNTIMED : RUN_STEADY;
    if (r == 1 + cfg->warmup) run_timer_steady_begin(&timer);
    cg_device_span span = {0};
    run_timer_begin(&timer);
    rc = ops->enqueue(state, cfg->loops, &span, &rec->launches_per_iter, err);
    run_timer_enqueued(&timer);
    if (rc == CG_OK) rc = ops->finish(state, err);
    run_timer_end(&timer, rc == CG_OK ? kind : RUN_UNTIMED, cfg->loops, &span);
    if (rc != CG_OK) goto cleanup;
  }
  run_timer_close(&timer);

  size_t elems = (size_t)cfg->m * (size_t)cfg->n;
  for (size_t i = 0; i < elems; ++i) out[i] = NAN;
  t0 = cg_now_ns();
  CG_TRY(ops->download(state, out, err));
  rec->download_ms = cg_ns_to_ms(cg_now_ns() - t0);
  rec->verify_error = cg_rel_error(out, ref, elems);
  rec->verify_tolerance = cg_matmul_tolerance(cfg->k);
  if (!(rec->verify_error <= rec->verify_tolerance))
    cg_record_set_status(rec, CG_STATUS_ERROR,
                         "wrong result: relative error %.3g exceeds the tolerance %.3g",
                         rec->verify_error, rec->verify_tolerance);

cleanup:
  fail_record(rec, rc, &error);
  if (timer.rec) run_timer_close(&timer);
  if (state) ops->release(state);
  cg_device_close(dev);
}

cg_rc cg_matmul_run(const cg_matmul_config *cfg, const cg_device_info *device, cg_report *report,
                    cg_progress_fn progress, void *progress_ctx, cg_error *err) {
  cg_rc rc = CG_OK;
  float *A = NULL, *B = NULL, *ref = NULL, *out = NULL;
  const size_t na = (size_t)cfg->m * cfg->k, nb = (size_t)cfg->k * cfg->n,
               nc = (size_t)cfg->m * cfg->n;
  A = malloc(na * sizeof *A);
  B = malloc(nb * sizeof *B);
  ref = malloc(nc * sizeof *ref);
  out = malloc(nc * sizeof *out);
  CG_CHECK(A && B && ref && out, CG_ERROR, "out of host memory for %dx%dx%d matrices (%.3g GiB)",
           cfg->m, cfg->n, cfg->k, gib((double)(na + nb + 2 * nc) * 4));
  cg_rng rng;
  cg_rng_seed(&rng, cfg->seed);
  cg_rng_fill_normal(&rng, A, na);
  cg_rng_fill_normal(&rng, B, nb);
  cg_ref_sgemm(cfg->m, cfg->n, cfg->k, A, B, ref);

  record_plan plan[CG_MAX_RECORDS];
  const int total = plan_records(matmul_variants, cfg->backends, cfg->variants, plan,
                                 CG_MAX_RECORDS);
  for (int i = 0; i < total; ++i) {
    cg_record *rec = start_record(report, "matmul", &plan[i], device);
    CG_CHECK(rec, CG_ERROR, "out of memory");
    cg_record_add_param(rec, "m", cfg->m);
    cg_record_add_param(rec, "n", cfg->n);
    cg_record_add_param(rec, "k", cfg->k);
    cg_record_add_param(rec, "loops", cfg->loops);
    cg_record_add_param(rec, "runs", cfg->runs);
    cg_record_add_param(rec, "warmup", cfg->warmup);
    cg_record_add_param(rec, "seed", (double)cfg->seed);
    rec->flops_per_iter = 2.0 * cfg->m * cfg->n * (double)cfg->k;
    rec->bytes_per_iter = 4.0 * ((double)na + nb + nc);
    rec->iters_per_run = cfg->loops;
    const progress_hook hook = {progress, progress_ctx, i, total};
    if (progress) progress(progress_ctx, i, total, rec);
    if (rec->status == CG_STATUS_OK)
      run_record(cfg, plan[i].backend, plan[i].variant, device, A, B, ref, out, rec, &hook);
  }
cleanup:
  free(A);
  free(B);
  free(ref);
  free(out);
  return rc;
}
