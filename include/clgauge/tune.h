/* clgauge tune's search of a hand-written kernel's build-time parameters on the device at hand;
 * its result goes to the tuning file (tuning.h). */
#ifndef CLGAUGE_TUNE_H
#define CLGAUGE_TUNE_H

#include "clgauge/engine.h"
#include "clgauge/tuning.h"
#include "clgauge/xgemm_tuner.h"

/* Called after each candidate setting: its index (0: the defaults), how many the search has
 * planned so far, the setting, its steady time per iteration (NAN when it failed, with why), and
 * the best so far. */
typedef void (*cg_tune_progress_fn)(void *ctx, const char *variant, int index, int planned,
                                    const cg_kernel_overrides *setting, double ms,
                                    const char *why, double best_ms);

/* Search the tune space of one variant of the job's OpenCL backend on the device: the defaults
 * first, then one parameter at a time over its candidate values with the others at the best so
 * far, pass after pass until a pass finds nothing better or budget_s seconds have gone (checked
 * between candidates); then the best and the defaults once more, the best kept only if it still
 * beats them (each setting's figure is the faster of its two). Each candidate is a full engine
 * record, verified against the reference: one that fails, does not verify, or does not fit the
 * device is skipped. On success *out holds the best (CG_UNSUPPORTED when no candidate ran),
 * less a shape-bound parameter (cg_impl.shape_bound) where the implementation chooses its value
 * by itself with the rest of the best setting. sel's backends and variants are ignored. */
cg_rc cg_tune_variant(const cg_job *job, const cg_selection *sel, const cg_device_info *device,
                      const char *backend, const char *variant, double budget_s,
                      cg_tune_progress_fn progress, void *ctx, cg_tuning_entry *out,
                      cg_error *err);

/* Tune CLBlast's GEMM for the matmul job on the device with CLBlast's own tuner (*tuner gives the
 * program, fraction, budget and folder; the device's indexes and the job's shape are filled in
 * here), then run the job's clblast record untuned and with the tuner's best, each a full record
 * verified against the reference, and keep the best only if it beats the untuned one (an entry
 * without parameters otherwise). The untuned record runs first: CLBlast keeps an override for the
 * rest of the process. Progress: index 0 the untuned record, 1 the tuned one. */
cg_rc cg_tune_clblast(const cg_job *job, const cg_selection *sel, const cg_device_info *device,
                      const cg_xgemm_tuner_job *tuner, cg_tune_progress_fn progress, void *ctx,
                      cg_tuning_entry *out, cg_error *err);

#endif
