/* clgauge tune's search: one kernel parameter at a time over its candidate values, the others at
 * the best setting so far, each candidate a full engine record verified against the reference. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "clgauge/backend.h"
#include "clgauge/clock.h"
#include "clgauge/tune.h"
#include "workloads/tune_run.h"

enum { MAX_PASSES = 3, MAX_TRIED = 256 };

/* A setting: one value per axis of the space; UNSET where the implementation's own choice is
 * asked for (before the defaults have run and said what they chose). */
#define UNSET (-2147483647 - 1)
typedef struct setting {
  int v[CG_MAX_TUNE_AXES];
} setting;

typedef struct search {
  const cg_job *job;
  cg_selection sel;
  const cg_device_info *device;
  const char *backend, *variant;
  const cg_tune_space *space;
  setting tried[MAX_TRIED];
  int ntried;
} search;

static void overrides_of(const search *s, const setting *st, cg_kernel_overrides *o) {
  memset(o, 0, sizeof *o);
  cg_error ignored = {0};
  for (int a = 0; a < s->space->naxes; ++a)
    if (st->v[a] != UNSET)
      cg_kernel_overrides_add(o, s->space->axes[a].name, st->v[a], CG_ORIGIN_OVERRIDE, &ignored);
}

static bool was_tried(const search *s, const setting *st) {
  for (int i = 0; i < s->ntried; ++i)
    if (memcmp(&s->tried[i], st, sizeof *st) == 0) return true;
  return false;
}

/* The setting with its shape-bound axes left to the implementation (cg_impl.shape_bound). */
static setting without_shape_bound(const cg_impl *impl, const cg_tune_space *space,
                                   const setting *st) {
  setting loose = *st;
  for (int a = 0; a < space->naxes; ++a)
    if (impl->shape_bound && cg_variant_index(impl->shape_bound, space->axes[a].name) >= 0)
      loose.v[a] = UNSET;
  return loose;
}

/* The implementation's own choice of the space's parameters in configuration `own` (those it
 * chose by itself, not a fallback to the device's limits), for the entry's `replaces`
 * (tuning.h). */
static void replaced_by(const cg_tune_space *space, const cg_kernel_config *own,
                        cg_kernel_overrides *out) {
  memset(out, 0, sizeof *out);
  cg_error ignored = {0};
  for (int a = 0; a < space->naxes; ++a)
    for (int k = 0; k < own->nparams; ++k)
      if (strcmp(own->params[k].name, space->axes[a].name) == 0 &&
          own->params[k].origin == CG_ORIGIN_DEFAULT)
        cg_kernel_overrides_add(out, own->params[k].name, own->params[k].value, CG_ORIGIN_TUNED,
                                &ignored);
}

double cg_tune_run_once(const cg_job *job, const cg_selection *sel, const cg_device_info *device,
                        const char *backend, const char *variant,
                        const cg_kernel_overrides *overrides, cg_kernel_config *ran, char *why,
                        size_t why_size) {
  cg_selection one = *sel;
  const char *backends[2] = {backend, NULL}, *variants[2] = {variant, NULL};
  one.backends = backends;
  one.variants = variants;
  one.overrides = overrides;
  one.tuning = NULL;
  one.scope = NULL;
  cg_report report;
  cg_report_init(&report, 0, NULL);
  cg_error err = {0};
  double ms = NAN;
  if (ran) memset(ran, 0, sizeof *ran);
  if (cg_engine_run(job, &one, device, &report, NULL, NULL, &err) != CG_OK) {
    snprintf(why, why_size, "%.400s", err.msg);
  } else {
    const cg_record *rec = NULL;
    for (int i = 0; i < report.count; ++i)
      if (strcmp(report.records[i].backend, backend) == 0 &&
          strcmp(report.records[i].variant, variant) == 0)
        rec = &report.records[i];
    if (!rec) {
      snprintf(why, why_size, "no record of %s/%s", backend, variant);
    } else if (rec->status != CG_STATUS_OK) {
      snprintf(why, why_size, "%s: %.400s", cg_status_name(rec->status), rec->reason);
    } else {
      ms = cg_per_iter(rec->steady_complete.median, rec->iters_per_run);
      if (!isfinite(ms)) snprintf(why, why_size, "no steady time");
      if (ran) *ran = rec->kernel;
    }
  }
  cg_report_free(&report);
  return ms;
}

void cg_tune_entry_key(const cg_job *job, const cg_device_info *device, const char *backend,
                       const char *variant, cg_tuning_entry *out) {
  const cg_workload *w = job->workload;
  memset(out, 0, sizeof *out);
  snprintf(out->device, sizeof out->device, "%s", device->name);
  snprintf(out->platform, sizeof out->platform, "%s", device->platform);
  snprintf(out->driver, sizeof out->driver, "%s", device->driver_version);
  snprintf(out->workload, sizeof out->workload, "%s", w->name);
  snprintf(out->backend, sizeof out->backend, "%s", backend);
  snprintf(out->variant, sizeof out->variant, "%s", variant);
  out->size_class = cg_size_class(w->flops_per_iter(&job->params));
  size_t used = 0;
  for (int i = 0; i < job->params.count && used < sizeof out->shape; ++i)
    used += (size_t)snprintf(out->shape + used, sizeof out->shape - used, "%s%s=%g",
                             used ? "," : "", job->params.desc[i].name, job->params.v[i]);
  const time_t now = time(NULL);
  struct tm tm;
  gmtime_r(&now, &tm);
  strftime(out->date, sizeof out->date, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/* Run the job with the setting: its steady time per iteration, or NAN with why. `chosen` gets
 * the values the kernel ran with (the implementation's choices where the setting leaves one
 * UNSET; a fallback's smaller value where the device made it smaller), and *ran (may be NULL)
 * its whole configuration. */
static double measure(search *s, const setting *st, setting *chosen, cg_kernel_config *ran,
                      char *why, size_t why_size) {
  cg_kernel_overrides o;
  overrides_of(s, st, &o);
  cg_kernel_config own;
  if (!ran) ran = &own;
  *chosen = *st;
  const double ms = cg_tune_run_once(s->job, &s->sel, s->device, s->backend, s->variant, &o, ran,
                                     why, why_size);
  for (int a = 0; a < s->space->naxes; ++a)
    for (int k = 0; k < ran->nparams; ++k)
      if (strcmp(ran->params[k].name, s->space->axes[a].name) == 0)
        chosen->v[a] = ran->params[k].value;
  if (s->ntried < MAX_TRIED) s->tried[s->ntried++] = *st;
  if (s->ntried < MAX_TRIED && memcmp(chosen, st, sizeof *st) != 0)
    s->tried[s->ntried++] = *chosen;
  return ms;
}

cg_rc cg_tune_variant(const cg_job *job, const cg_selection *sel, const cg_device_info *device,
                      const char *backend, const char *variant, double budget_s,
                      cg_tune_progress_fn progress, void *ctx, cg_tuning_entry *out,
                      cg_error *err) {
  cg_rc rc = CG_OK;
  search *s = NULL;
  const cg_workload *w = job->workload;
  const cg_backend *b = cg_backend_find(backend);
  const cg_impl *impl = b ? cg_impl_find(b, w->name) : NULL;
  const cg_tune_space *space = impl ? cg_impl_tune_space(impl, variant) : NULL;
  CG_CHECK(space && space->naxes > 0, CG_UNSUPPORTED, "%s/%s of %s has nothing to tune", backend,
           variant, w->name);
  CG_CHECK(device, CG_UNSUPPORTED, "no OpenCL device to tune on");
  s = calloc(1, sizeof *s);
  CG_CHECK(s, CG_ERROR, "out of memory");
  cg_job one = *job;
  /* Each candidate's steady runs within a share of the search's time (run 0 and two steady runs
   * always run), so that a slow device still tries several settings. */
  one.budget_s = budget_s / 20 > 0.25 ? budget_s / 20 : 0.25;
  if (job->budget_s > 0 && job->budget_s < one.budget_s) one.budget_s = job->budget_s;
  if (space->mode) {
    CG_CHECK(w->modes, CG_ERROR, "tune space of %s/%s names a mode, %s has none", backend,
             variant, w->name);
    for (int m = 0; m < CG_MAX_MODES && w->modes->names[m]; ++m)
      one.modes[m] = strcmp(w->modes->names[m], space->mode) == 0;
  }
  s->job = &one;
  s->sel = *sel;
  s->device = device;
  s->backend = backend;
  s->variant = variant;
  s->space = space;

  const uint64_t t0 = cg_now_ns();
  int planned = 1;
  for (int a = 0; a < space->naxes; ++a) planned += space->axes[a].count;
  setting best, chosen;
  for (int a = 0; a < CG_MAX_TUNE_AXES; ++a) best.v[a] = UNSET;
  char why[512] = "";
  cg_kernel_config own; /* what the implementation chose by itself at this shape */
  double best_ms = measure(s, &best, &chosen, &own, why, sizeof why);
  double default_ms = best_ms;
  int index = 0;
  if (progress) progress(ctx, variant, index, planned, NULL, best_ms, why, best_ms);
  if (isfinite(best_ms)) best = chosen;
  const setting defaults = best; /* what the implementation chose by itself */
  int candidates = 1;
  for (int pass = 0; pass < MAX_PASSES; ++pass) {
    bool improved = false;
    for (int a = 0; a < space->naxes; ++a) {
      for (int k = 0; k < space->axes[a].count; ++k) {
        setting cand = best;
        cand.v[a] = space->axes[a].values[k];
        if (was_tried(s, &cand)) continue;
        if (cg_ns_to_ms(cg_now_ns() - t0) / 1000.0 >= budget_s) goto done;
        why[0] = '\0';
        const double ms = measure(s, &cand, &chosen, NULL, why, sizeof why);
        ++candidates;
        ++index;
        /* Run as the best itself: the implementation could not take the value at this shape
         * (SPLITS where the blocks fill their waves or k holds fewer slices), and the axis's
         * later values, larger, fall back alike. Nor is it a new figure for the best. */
        const bool ran_as_best = isfinite(ms) && memcmp(&chosen, &best, sizeof best) == 0;
        if (!ran_as_best && isfinite(ms) && (!isfinite(best_ms) || ms < best_ms)) {
          best_ms = ms;
          best = chosen;
          improved = true;
        }
        if (progress) {
          cg_kernel_overrides o;
          overrides_of(s, &cand, &o);
          progress(ctx, variant, index, planned, &o, ms, why, best_ms);
        }
        if (ran_as_best) {
          planned -= space->axes[a].count - 1 - k; /* the values left out */
          break;
        }
      }
    }
    if (!improved) break;
    planned = index + 1;
    for (int a = 0; a < space->naxes; ++a) planned += space->axes[a].count - 1;
  }
done:
  CG_CHECK(isfinite(best_ms), CG_UNSUPPORTED, "no setting of %s/%s ran (the last: %s)", backend,
           variant, why);
  /* The entry's setting: the best, less the shape-bound axes where the implementation picks
   * their values by itself (cg_impl.shape_bound). */
  const setting loose = without_shape_bound(impl, space, &best);
  setting kept = best;
  if (memcmp(&best, &defaults, sizeof best) == 0) {
    kept = loose; /* the defaults' own choice: with the rest of their values it is chosen again */
  } else if (isfinite(default_ms)) {
    /* A winner by a noisy margin is confirmed: the defaults and the best run once more, each
     * keeping its faster figure, and the best stands only if it still beats the defaults. The
     * best runs first without its shape-bound values, which stay out of the entry where the
     * implementation chose them by itself; it runs again with them where it did not. */
    setting again;
    const double d2 = measure(s, &defaults, &again, NULL, why, sizeof why);
    double b2 = measure(s, &loose, &again, NULL, why, sizeof why);
    candidates += 2;
    if (memcmp(&again, &best, sizeof best) == 0) {
      kept = loose;
    } else {
      b2 = measure(s, &best, &again, NULL, why, sizeof why);
      ++candidates;
    }
    if (isfinite(d2) && d2 < default_ms) default_ms = d2;
    if (isfinite(b2) && b2 < best_ms) best_ms = b2;
    if (!(best_ms < default_ms)) {
      best_ms = default_ms;
      kept = without_shape_bound(impl, space, &defaults);
    }
  }
  cg_tune_entry_key(job, device, backend, variant, out);
  cg_kernel_overrides o;
  overrides_of(s, &kept, &o);
  for (int i = 0; i < o.count; ++i) o.items[i].origin = CG_ORIGIN_TUNED;
  out->params = o;
  /* only where the engine can tell the implementation's choices apart (cg_impl.own_choice): else
   * a size class keeps one entry, the last tuned */
  if (impl->own_choice) replaced_by(space, &own, &out->replaces);
  out->best_ms = best_ms;
  out->default_ms = default_ms;
  out->candidates = candidates;
cleanup:
  free(s);
  return rc;
}
