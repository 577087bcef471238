/* clgauge tune --backend clblast: CLBlast's xgemm tuner for the job's shape, its best setting
 * checked by two full records (untuned, then tuned) against the reference. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "clgauge/backend.h"
#include "clgauge/tune.h"
#include "workloads/tune_run.h"

static const char backend[] = "clblast", variant[] = "sgemm";

cg_rc cg_tune_clblast(const cg_job *job, const cg_selection *sel, const cg_device_info *device,
                      const cg_xgemm_tuner_job *tuner, cg_tune_progress_fn progress, void *ctx,
                      cg_tuning_entry *out, cg_error *err) {
  cg_rc rc = CG_OK;
  const cg_params *p = &job->params;
  CG_CHECK(strcmp(job->workload->name, "matmul") == 0, CG_BAD_INPUT,
           "CLBlast's tuner tunes its GEMM, which clgauge's clblast backend runs on its own in "
           "matmul only, not in %s",
           job->workload->name);
  CG_CHECK(device, CG_UNSUPPORTED, "no OpenCL device to tune on");
  char why[512] = "";
  const double default_ms =
      cg_tune_run_once(job, sel, device, backend, variant, NULL, NULL, why, sizeof why);
  if (progress) progress(ctx, variant, 0, 2, NULL, default_ms, why, default_ms);

  cg_xgemm_tuner_job run = *tuner;
  run.platform = device->platform_index;
  run.device = device->device_index;
  run.m = (long)cg_params_get(p, "m");
  run.n = (long)cg_params_get(p, "n");
  run.k = (long)cg_params_get(p, "k");
  cg_xgemm_best best;
  CG_TRY(cg_xgemm_tuner_run(&run, &best, err));

  cg_kernel_overrides setting = {0};
  for (int i = 0; i < CG_XGEMM_NPARAMS; ++i)
    CG_TRY(cg_kernel_overrides_add(&setting, cg_xgemm_params[i], best.values[i],
                                   CG_ORIGIN_OVERRIDE, err));
  why[0] = '\0';
  const double tuned_ms =
      cg_tune_run_once(job, sel, device, backend, variant, &setting, NULL, why, sizeof why);
  const bool better = isfinite(tuned_ms) && !(tuned_ms >= default_ms);
  if (progress)
    progress(ctx, variant, 1, 2, &setting, tuned_ms, why, better ? tuned_ms : default_ms);
  CG_CHECK(isfinite(tuned_ms) || isfinite(default_ms), CG_UNSUPPORTED,
           "neither the untuned nor the tuned CLBlast ran (the last: %s)", why);

  cg_tune_entry_key(job, device, backend, variant, out);
  if (better) {
    out->params = setting;
    for (int i = 0; i < out->params.count; ++i) out->params.items[i].origin = CG_ORIGIN_TUNED;
  }
  out->best_ms = better ? tuned_ms : default_ms;
  out->default_ms = default_ms;
  out->candidates = best.results + 1; /* the tuner's, and CLBlast's own choice */
cleanup:
  return rc;
}
