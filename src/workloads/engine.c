/* The engine: plans a job's records (backend x variant x mode), and runs each through its
 * implementation phase by phase, timing init, compile, upload, every run, download, and
 * verifying against the reference. */
#include "clgauge/engine.h"
#include "clgauge/tuning.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clgauge/clock.h"
#include "clgauge/stats.h"

/* ---- jobs ---- */

void cg_job_init(cg_job *job, const cg_workload *workload) {
  memset(job, 0, sizeof *job);
  job->workload = workload;
  cg_params_init(&job->params, workload->params, workload->nparams);
  if (workload->modes) job->modes[workload->modes->dflt] = true;
  job->sweep_value = NAN;
}

cg_rc cg_job_preset(cg_job *job, const char *name, cg_error *err) {
  cg_rc rc = CG_OK;
  const cg_preset *presets = job->workload->presets;
  for (int i = 0; presets && presets[i].name; ++i) {
    if (strcmp(presets[i].name, name) != 0) continue;
    for (const cg_param_value *v = presets[i].values; v->name; ++v)
      CG_TRY(cg_params_set(&job->params, v->name, v->value, err));
    goto cleanup;
  }
  char names[256] = "";
  for (int i = 0; presets && presets[i].name; ++i)
    snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", i ? ", " : "",
             presets[i].name);
  CG_CHECK(0, CG_BAD_INPUT, "--preset '%s': unknown preset (presets: %s)", name,
           names[0] ? names : "none");
cleanup:
  return rc;
}

cg_rc cg_job_select_modes(cg_job *job, const char *text, cg_error *err) {
  cg_rc rc = CG_OK;
  const cg_mode_desc *m = job->workload->modes;
  CG_CHECK(m, CG_BAD_INPUT, "workload %s has no modes", job->workload->name);
  const bool all = strcmp(text, "all") == 0;
  bool found = all;
  char names[256] = "";
  for (int i = 0; m->names[i]; ++i) {
    const bool match = strcmp(text, m->names[i]) == 0;
    job->modes[i] = all || match;
    found |= match;
    snprintf(names + strlen(names), sizeof names - strlen(names), "%s, ", m->names[i]);
  }
  CG_CHECK(found, CG_BAD_INPUT, "--%s '%s': unknown mode (modes: %sall)", m->option, text,
           names);
cleanup:
  return rc;
}

cg_rc cg_job_sweep_point(const cg_job *base, const cg_sweep_desc *sw, int size, cg_job *out,
                         cg_error *err) {
  cg_rc rc = CG_OK;
  *out = *base;
  CG_CHECK(sw, CG_BAD_INPUT, "workload %s: no such sweep", base->workload->name);
  for (int i = 0; sw->params[i]; ++i) CG_TRY(cg_params_set(&out->params, sw->params[i], size, err));
  for (const cg_param_value *d = sw->defaults; d && d->name; ++d) {
    const int k = cg_params_index(&out->params, d->name);
    if (k >= 0 && !base->params.given[k]) out->params.v[k] = d->value;
  }
  snprintf(out->group, sizeof out->group, "%s %d", sw->label, size);
  out->sweep_value = size;
  out->sweep = sw;
cleanup:
  return rc;
}

/* ---- planning ---- */

/* One record a job asks for. */
typedef struct record_plan {
  const cg_impl *impl;
  const char *variant;
  const char *mode; /* NULL for workloads without modes */
  const cg_target *target; /* NULL for a host backend */
} record_plan;

static bool named(const char *const *list, const char *name) {
  for (; list && *list; ++list)
    if (strcmp(*list, name) == 0) return true;
  return false;
}

/* The records of the job on one target (NULL: the host backends' records), appended to plan
 * (NULL: count only) from n; returns the new count. */
static int plan_target(const cg_job *job, const cg_selection *sel, const cg_target *target,
                       record_plan *plan, int n) {
  const cg_workload *w = job->workload;
  for (const cg_impl *const *i = cg_impl_all(); *i; ++i) {
    const cg_impl *impl = *i;
    if (strcmp(impl->workload, w->name) != 0 ||
        !cg_backend_selected(sel->backends, impl->backend) ||
        impl->backend->needs_device != (target != NULL))
      continue;
    for (int v = 0; impl->variants[v]; ++v) {
      if (!cg_variant_selected(sel->variants, impl->variants, impl->variants[v])) continue;
      if (!w->modes) {
        if (plan) plan[n] = (record_plan){impl, impl->variants[v], NULL, target};
        n++;
      } else if (!impl->backend->needs_device) {
        if (plan) plan[n] = (record_plan){impl, impl->variants[v], w->modes->host_mode, target};
        n++;
      } else {
        for (int m = 0; w->modes->names[m]; ++m)
          if (job->modes[m] &&
              (!cg_impl_mode_unsupported(impl, impl->variants[v], w->modes->names[m]) ||
               named(sel->variants, impl->variants[v]))) {
            if (plan) plan[n] = (record_plan){impl, impl->variants[v], w->modes->names[m], target};
            n++;
          }
      }
    }
  }
  return n;
}

/* The records of the job in report order: the host backends once (the reference first, as
 * cg_impl_all lists it), then the device backends on each target. */
static int plan_records(const cg_job *job, const cg_selection *sel, const cg_target *targets,
                        int ntargets, record_plan *plan) {
  int n = plan_target(job, sel, NULL, plan, 0);
  for (int t = 0; t < ntargets; ++t) n = plan_target(job, sel, &targets[t], plan, n);
  return n;
}

static bool any_device_backend(const cg_job *job, const cg_selection *sel) {
  for (const cg_impl *const *i = cg_impl_all(); *i; ++i)
    if (strcmp((*i)->workload, job->workload->name) == 0 && (*i)->backend->needs_device &&
        cg_backend_selected(sel->backends, (*i)->backend))
      return true;
  return false;
}

cg_rc cg_engine_validate(const cg_job *job, const cg_selection *sel, const cg_device_info *device,
                         cg_error *err) {
  cg_rc rc = CG_OK;
  const cg_workload *w = job->workload;
  const char *const own[] = {w->name, NULL};
  CG_TRY(cg_params_check(&job->params, err));
  CG_TRY(cg_selection_check(sel->backends, sel->variants, sel->scope ? sel->scope : own, err));
  if (w->validate)
    CG_TRY(w->validate(&job->params, job->modes, any_device_backend(job, sel) ? device : NULL,
                       err));
cleanup:
  return rc;
}

/* ---- the records ---- */

static cg_record *start_record(cg_report *report, const cg_job *job, const cg_selection *sel,
                               const record_plan *plan) {
  const cg_device_info *device = plan->target ? plan->target->info : NULL;
  const cg_workload *w = job->workload;
  const cg_backend *b = plan->impl->backend;
  cg_record *rec = cg_report_add(report);
  if (!rec) return NULL;
  snprintf(rec->workload, sizeof rec->workload, "%s", w->name);
  snprintf(rec->backend, sizeof rec->backend, "%s", b->name);
  snprintf(rec->variant, sizeof rec->variant, "%s", plan->variant);
  snprintf(rec->mode, sizeof rec->mode, "%s", plan->mode ? plan->mode : "");
  snprintf(rec->group, sizeof rec->group, "%s", job->group);
  rec->sweep_value = job->sweep_value;
  rec->reference = b->is_reference;
  rec->host_backend = !b->needs_device;
  if (rec->host_backend) {
    snprintf(rec->device, sizeof rec->device, "host CPU");
    rec->device_type = "CPU";
  } else if (device) {
    cg_record_set_device(rec, device);
  } else if (plan->target && plan->target->platform) {
    snprintf(rec->platform, sizeof rec->platform, "%s", plan->target->platform);
    cg_record_set_status(rec, CG_STATUS_SKIPPED, "platform %s lists no device",
                         plan->target->platform);
  } else {
    cg_record_set_status(rec, CG_STATUS_SKIPPED, "no OpenCL device");
  }
  rec->budget_s = job->budget_s;
  for (int i = 0; i < job->params.count; ++i)
    cg_record_add_param(rec, job->params.desc[i].name, job->params.v[i]);
  cg_record_add_param(rec, "seed", (double)sel->seed);
  rec->flops_per_iter = w->flops_per_iter(&job->params);
  rec->bytes_per_iter = w->bytes_per_iter(&job->params);
  rec->iters_per_run = w->iters_per_run(&job->params);
  if (w->loss_unit) rec->loss_unit = w->loss_unit;
  return rec;
}

static void fail_record(cg_record *rec, cg_rc rc, const cg_error *err) {
  if (rc != CG_OK)
    cg_record_set_status(rec, rc == CG_UNSUPPORTED ? CG_STATUS_UNSUPPORTED : CG_STATUS_ERROR, "%s",
                         err->msg);
}

/* The samples of one record's runs, and where progress goes. */
typedef struct run_timer {
  cg_progress_fn progress;
  void *progress_ctx;
  int index, total;
  cg_record *rec;
  int cap;
  double *complete, *enqueue, *device, *hidden; /* steady samples; hidden: per listed run */
  int nsteady, nsplit_runs;
  bool device_time;
  uint64_t steady_cpu0, steady_wall0;
  uint64_t s0, s1; /* the run in flight */
} run_timer;

static bool run_timer_alloc(run_timer *t, cg_record *rec, int timed_runs) {
  t->rec = rec;
  t->cap = timed_runs;
  t->device_time = true;
  rec->planned_runs = timed_runs;
  const size_t n = (size_t)(timed_runs > 0 ? timed_runs : 1);
  rec->runs = calloc(n, sizeof *rec->runs);
  t->complete = calloc(4 * n, sizeof *t->complete);
  t->enqueue = t->complete ? t->complete + n : NULL;
  t->device = t->complete ? t->complete + 2 * n : NULL;
  t->hidden = t->complete ? t->complete + 3 * n : NULL;
  return rec->runs && t->complete;
}

static void no_device_time(run_timer *t, const char *why) {
  t->device_time = false;
  snprintf(t->rec->device_time_why, sizeof t->rec->device_time_why, "%s", why);
}

/* Add one steady run's split to the record's (summed, divided by the runs at the end). A sample
 * whose commands differ in number from the first one's is left out. */
static void add_split(run_timer *t, const cg_run_result *res) {
  cg_record *rec = t->rec;
  if (res->nsplit <= 0 || (rec->nsplit && res->nsplit != rec->nsplit)) return;
  if (!rec->nsplit) {
    for (int k = 0; k < res->nsplit; ++k) rec->split[k] = (cg_kernel_time){res->split[k].name, 0};
    rec->nsplit = res->nsplit;
  }
  for (int k = 0; k < res->nsplit; ++k) rec->split[k].ms += res->split[k].ms;
  t->nsplit_runs++;
}

/* After a run: its sample, loss, split and batch times into the record. */
static void run_timer_end(run_timer *t, cg_run_kind kind, int iters, const cg_run_result *res,
                          bool has_loss) {
  const uint64_t s2 = cg_now_ns();
  cg_record *rec = t->rec;
  double dev_ms = NAN;
  if (t->device_time) {
    if (res->device_why)
      no_device_time(t, res->device_why);
    else
      dev_ms = res->device_ms;
  }
  if (kind == CG_RUN_UNTIMED || rec->nruns == t->cap) return;
  const cg_run_sample sample = {cg_ns_to_ms(t->s1 - t->s0), cg_ns_to_ms(s2 - t->s0), dev_ms, iters,
                                res->batch_upload_ms, res->batch_compute_ms,
                                res->batch_gather_ms};
  t->hidden[rec->nruns] = res->hidden_share;
  rec->runs[rec->nruns++] = sample;
  rec->launches_per_iter = res->launches;
  rec->launches_at_least = res->launches_at_least;
  if (res->path)
    snprintf(rec->kernel.path, sizeof rec->kernel.path, "%s", res->path);
  if (has_loss) rec->losses[rec->nlosses++] = res->loss;
  if (t->progress) t->progress(t->progress_ctx, t->index, t->total, rec);
  if (kind == CG_RUN_FIRST) rec->first = sample;
  if (kind != CG_RUN_STEADY) return;
  add_split(t, res);
  t->complete[t->nsteady] = sample.complete_ms;
  t->enqueue[t->nsteady] = sample.enqueue_ms;
  t->device[t->nsteady] = sample.device_ms;
  t->nsteady++;
}

static int cmp_double(const void *a, const void *b) {
  const double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Median over the steady runs that have them of the per-iteration upload and compute device
 * times and of the hidden upload share, and of the host's gather time. */
static void transfer_split(run_timer *t) {
  cg_record *rec = t->rec;
  const size_t cap = (size_t)rec->nruns + 1;
  double *up = malloc(3 * cap * sizeof *up);
  if (!up) return;
  double *comp = up + cap, *hidden = comp + cap;
  int n = 0;
  for (int i = 1; i < rec->nruns; ++i) {
    const cg_run_sample *r = &rec->runs[i];
    if (!isfinite(r->batch_upload_ms) || !isfinite(r->batch_compute_ms) || !isfinite(t->hidden[i]))
      continue;
    up[n] = r->batch_upload_ms;
    comp[n] = r->batch_compute_ms;
    hidden[n] = t->hidden[i];
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
  /* the host's gather, timed in every run (no profiling needed) */
  n = 0;
  for (int i = 1; i < rec->nruns; ++i)
    if (isfinite(rec->runs[i].batch_gather_ms)) up[n++] = rec->runs[i].batch_gather_ms;
  if (n > 0) {
    qsort(up, (size_t)n, sizeof *up, cmp_double);
    rec->batch_gather_ms = up[n / 2];
  }
  free(up);
}

/* The steady statistics, the host CPU share, the mean split and the transfer split. */
static void run_timer_close(run_timer *t) {
  cg_record *rec = t->rec;
  if (t->nsteady > 0) {
    rec->host_cpu_ms = cg_ns_to_ms(cg_cpu_ns() - t->steady_cpu0);
    rec->host_wall_ms = cg_ns_to_ms(cg_now_ns() - t->steady_wall0);
  }
  cg_stats_compute(t->complete, t->nsteady, &rec->steady_complete);
  cg_stats_compute(t->enqueue, t->nsteady, &rec->steady_enqueue);
  if (t->device_time) {
    cg_stats_compute(t->device, t->nsteady, &rec->steady_device);
  } else {
    for (int i = 0; i < rec->nruns; ++i) rec->runs[i].device_ms = NAN;
    rec->first.device_ms = NAN;
  }
  for (int k = 0; k < rec->nsplit && t->nsplit_runs > 0; ++k) rec->split[k].ms /= t->nsplit_runs;
  transfer_split(t);
  free(t->complete);
  memset(t, 0, sizeof *t);
}

/* What the records of one job share. */
typedef struct job_state {
  const cg_job *job;
  const cg_selection *sel;
  cg_workload_data *data;
  bool have_ref;
  int ref_runs; /* the runs the reference covers */
} job_state;

/* Whether the budget stops a record's steady runs after this one: it has had two at least, and
 * they have taken longer than the budget. */
static bool budget_spent(const job_state *js, const run_timer *t) {
  return js->job->budget_s > 0 && t->nsteady >= 2 &&
         cg_ns_to_ms(cg_now_ns() - t->steady_wall0) > 1e3 * js->job->budget_s;
}

/* The overrides a record's implementation sees: the command line's, and where the tuning file
 * has an entry for this device, workload, backend, variant and size class that replaced the
 * implementation's own choice at this shape (cg_impl.own_choice), its settings for the
 * parameters the command line leaves alone (origin tuned). Where the class's entries replaced
 * other choices only, the defaults run and `note` (for the record's compile warning) says so. */
static const cg_kernel_overrides *record_overrides(const job_state *js, const record_plan *plan,
                                                   cg_kernel_overrides *merged, char *note,
                                                   size_t note_size) {
  const cg_kernel_overrides *given = js->sel->overrides;
  const cg_workload *w = js->job->workload;
  const cg_impl *impl = plan->impl;
  note[0] = '\0';
  if (!js->sel->tuning || !plan->target || impl->backend->is_reference) return given;
  cg_kernel_overrides own = {0};
  if (impl->own_choice)
    impl->own_choice(plan->target->info, plan->variant, w->problem(js->data), &own);
  const int size_class = cg_size_class(w->flops_per_iter(&js->job->params));
  const cg_tuning_entry *e =
      cg_tuning_find(js->sel->tuning, plan->target->info, w->name, impl->backend->name,
                     plan->variant, size_class, &own);
  const cg_tuning_entry *other =
      e ? NULL
        : cg_tuning_find(js->sel->tuning, plan->target->info, w->name, impl->backend->name,
                         plan->variant, size_class, NULL);
  if (other) {
    char differs[200];
    cg_tuning_replaces_agree(&other->replaces, &own, differs, sizeof differs);
    snprintf(note, note_size,
             "the tuning file's setting for this size class was tuned where the default had %s "
             "(at %.80s): the defaults ran",
             differs, other->shape);
  }
  if (!e) return given;
  if (given)
    *merged = *given;
  else
    memset(merged, 0, sizeof *merged);
  for (int i = 0; i < e->params.count; ++i) {
    const char *name = e->params.items[i].name;
    cg_origin origin = CG_ORIGIN_DEFAULT;
    cg_kernel_override(given, name, 0, &origin);
    const bool taken = cg_variant_index(plan->impl->kernel_params, name) >= 0;
    cg_error ignored = {0};
    if (taken && origin != CG_ORIGIN_OVERRIDE)
      cg_kernel_overrides_add(merged, name, e->params.items[i].value, CG_ORIGIN_TUNED, &ignored);
  }
  return merged;
}

/* One record: open the device, prepare, upload, run, download, verify. Every failure lands in the
 * record; nothing here stops the other records. */
static void run_record(job_state *js, const record_plan *plan, cg_record *rec, run_timer *t) {
  cg_error error = {0}, *err = &error;
  cg_rc rc = CG_OK;
  const cg_workload *w = js->job->workload;
  const cg_params *p = &js->job->params;
  const cg_impl *impl = plan->impl;
  const cg_backend *backend = impl->backend;
  const cg_device_info *info = plan->target ? plan->target->info : NULL;
  void *device = NULL, *state = NULL;

  const int nruns = w->run_count(p);
  int timed = 0;
  for (int r = 0; r < nruns; ++r) {
    cg_run run;
    w->run_at(js->data, r, &run);
    timed += run.kind != CG_RUN_UNTIMED;
  }
  CG_CHECK(run_timer_alloc(t, rec, timed), CG_ERROR, "out of memory");
  if (w->loss_unit) {
    rec->losses = calloc((size_t)(timed > 0 ? timed : 1), sizeof *rec->losses);
    CG_CHECK(rec->losses, CG_ERROR, "out of memory");
    rec->loss_every = strcmp(w->loss_unit, "epoch") == 0 ? 1 : rec->iters_per_run;
  }
  if (!backend->is_reference && !js->have_ref) {
    const uint64_t r0 = cg_now_ns();
    CG_TRY(w->reference(js->data, nruns, err));
    rec->reference_ms = cg_ns_to_ms(cg_now_ns() - r0);
    js->have_ref = true;
    js->ref_runs = nruns;
  }

  if (backend->open) {
    const char *why = NULL;
    const uint64_t t0 = cg_now_ns();
    CG_TRY(backend->open(info, &device, &why, err));
    /* a device opened ahead on another thread: its time before this call ran beside the work
     * above (the inputs, the reference), counted in init and said to have overlapped */
    rec->init_overlap_ms = backend->open_overlap_ms ? backend->open_overlap_ms(device) : 0;
    rec->init_ms = cg_ns_to_ms(cg_now_ns() - t0) + rec->init_overlap_ms;
    if (why) no_device_time(t, why);
  } else {
    no_device_time(t, "runs on the host");
  }
  cg_kernel_overrides merged;
  cg_backend_env env = {.device = device,
                        .kernel_dir = js->sel->kernel_dir,
                        .binary_cache = js->sel->binary_cache,
                        .warning = rec->compile_warning,
                        .warning_size = sizeof rec->compile_warning};
  /* the record's first compile warning, where the tuning file's entries do not serve it */
  env.overrides = record_overrides(js, plan, &merged, rec->compile_warning,
                                   sizeof rec->compile_warning);
  cg_prepared prepared = {.compile_ms = NAN, .compile_kind = "none"};
  rc = impl->prepare(&env, plan->variant, plan->mode, w->problem(js->data), &state, &prepared,
                     err);
  if ((rc == CG_BAD_INPUT || rc == CG_UNSUPPORTED) && env.overrides != js->sel->overrides) {
    /* A tuned setting stands for a size class, and a shape of the class may refuse it (a value
     * beyond this batch, say): the record runs the defaults instead and says why. */
    char refused[sizeof err->msg];
    snprintf(refused, sizeof refused, "%s", err->msg);
    *err = (cg_error){0};
    env.overrides = js->sel->overrides;
    prepared = (cg_prepared){.compile_ms = NAN, .compile_kind = "none"};
    rc = impl->prepare(&env, plan->variant, plan->mode, w->problem(js->data), &state, &prepared,
                       err);
    if (rc == CG_OK) {
      const size_t used = strlen(rec->compile_warning);
      snprintf(rec->compile_warning + used, sizeof rec->compile_warning - used,
               "%sthe tuning file's setting for this size class was refused here (%s): the "
               "defaults ran",
               used ? "; " : "", refused);
    }
  }
  if (rc != CG_OK) goto cleanup;
  rec->compile_ms = prepared.compile_ms;
  snprintf(rec->compile_kind, sizeof rec->compile_kind, "%s", prepared.compile_kind);
  if (backend->driver_cache && strcmp(prepared.compile_kind, "none") != 0)
    snprintf(rec->driver_cache, sizeof rec->driver_cache, "%s", backend->driver_cache(info));
  rec->kernel = prepared.config;

  uint64_t t0 = cg_now_ns();
  CG_TRY(impl->upload(state, w->inputs(js->data), err));
  rec->upload_ms = cg_ns_to_ms(cg_now_ns() - t0);

  bool steady_started = false;
  int ran = 0; /* runs executed, untimed ones included */
  for (int r = 0; r < nruns; ++r) {
    cg_run run;
    w->run_at(js->data, r, &run);
    if (run.kind == CG_RUN_STEADY && !steady_started) {
      t->steady_cpu0 = cg_cpu_ns();
      t->steady_wall0 = cg_now_ns();
      steady_started = true;
    }
    cg_run_result res;
    cg_run_result_init(&res);
    t->s0 = t->s1 = cg_now_ns();
    rc = impl->enqueue(state, &run, err);
    t->s1 = cg_now_ns();
    if (rc == CG_OK) rc = impl->finish(state, &res, err);
    if (rc != CG_OK) goto cleanup;
    run_timer_end(t, run.kind, run.iters, &res, w->loss_unit != NULL);
    ran = r + 1;
    if (run.kind == CG_RUN_STEADY && r + 1 < nruns && budget_spent(js, t)) {
      rec->budget_cut = true;
      break;
    }
  }
  run_timer_close(t);

  void *outputs = w->outputs(js->data);
  t0 = cg_now_ns();
  CG_TRY(impl->download(state, outputs, err));
  rec->download_ms = cg_ns_to_ms(cg_now_ns() - t0);
  if (backend->is_reference && !js->have_ref) {
    /* The reference backend runs the reference code itself: its results are the reference. */
    w->adopt_reference(js->data, rec);
    js->have_ref = true;
    js->ref_runs = ran;
  } else {
    /* A record cut by the budget is verified against the reference of the runs it ran. */
    if (js->ref_runs != ran) {
      const uint64_t r0 = cg_now_ns();
      CG_TRY(w->reference(js->data, ran, err));
      rec->reference_ms = (isfinite(rec->reference_ms) ? rec->reference_ms : 0) +
                          cg_ns_to_ms(cg_now_ns() - r0);
      js->ref_runs = ran;
    }
    t0 = cg_now_ns();
    w->verify(js->data, rec);
    rec->verified_ns = cg_now_ns();
    rec->verify_ms = cg_ns_to_ms(rec->verified_ns - t0);
  }

cleanup:
  fail_record(rec, rc, &error);
  if (t->rec) run_timer_close(t);
  if (state) impl->release(state);
  if (device) backend->close(device);
}

cg_rc cg_engine_run(const cg_job *job, const cg_selection *sel, const cg_device_info *device,
                    cg_report *report, cg_progress_fn progress, void *progress_ctx,
                    cg_error *err) {
  const cg_target target = {device, NULL};
  return cg_engine_run_targets(job, sel, &target, 1, report, progress, progress_ctx, err);
}

cg_rc cg_engine_run_targets(const cg_job *job, const cg_selection *sel, const cg_target *targets,
                            int ntargets, cg_report *report, cg_progress_fn progress,
                            void *progress_ctx, cg_error *err) {
  cg_rc rc = CG_OK;
  const cg_workload *w = job->workload;
  job_state js = {job, sel, NULL, false, 0};
  const int total = plan_records(job, sel, targets, ntargets, NULL);
  record_plan *plan = calloc((size_t)(total > 0 ? total : 1), sizeof *plan);
  CG_CHECK(plan, CG_ERROR, "out of memory");
  plan_records(job, sel, targets, ntargets, plan);
  CG_TRY(w->create(&job->params, sel->seed, &js.data, err));
  for (int i = 0; i < total; ++i) {
    cg_record *rec = start_record(report, job, sel, &plan[i]);
    CG_CHECK(rec, CG_ERROR, "out of memory");
    if (progress) progress(progress_ctx, i, total, rec);
    if (rec->status != CG_STATUS_OK) continue;
    if (plan[i].mode && !cg_impl_has_mode(plan[i].impl, plan[i].mode)) {
      cg_record_set_status(rec, CG_STATUS_UNSUPPORTED, "backend %s has no %s mode",
                           plan[i].impl->backend->name, plan[i].mode);
      continue;
    }
    const char *why = cg_impl_mode_unsupported(plan[i].impl, plan[i].variant, plan[i].mode);
    if (why) {
      cg_record_set_status(rec, CG_STATUS_UNSUPPORTED, "%s", why);
      continue;
    }
    run_timer t = {.progress = progress, .progress_ctx = progress_ctx, .index = i, .total = total};
    run_record(&js, &plan[i], rec, &t);
  }
cleanup:
  if (js.data) w->destroy(js.data);
  free(plan);
  return rc;
}

/* ---- crossover along a sweep ---- */

static double steady_per_iter(const cg_record *r) {
  return r->steady_complete.median / r->iters_per_run;
}

/* Everything the record's process paid: init, compile, upload and every run; the runs that a
 * budget skipped counted at the steady median, so that a record cut short compares with one
 * that ran every run asked for. */
static double total_ms(const cg_record *r) {
  double t = (isfinite(r->init_ms) ? r->init_ms : 0) +
             (isfinite(r->compile_ms) ? r->compile_ms : 0) +
             (isfinite(r->upload_ms) ? r->upload_ms : 0);
  for (int i = 0; i < r->nruns; ++i) t += r->runs[i].complete_ms;
  if (r->budget_cut && r->planned_runs > r->nruns)
    t += (r->planned_runs - r->nruns) * r->steady_complete.median;
  return t;
}

/* The same backend, variant and mode on the same device. */
static bool same_impl(const cg_record *a, const cg_record *b) {
  return strcmp(a->backend, b->backend) == 0 && strcmp(a->variant, b->variant) == 0 &&
         strcmp(a->mode, b->mode) == 0 && a->device_index == b->device_index &&
         strcmp(a->device, b->device) == 0;
}

int cg_crossovers(const cg_report *report, const char *workload, cg_crossover *out, int max) {
  int count = 0;
  for (int i = 0; i < report->count; ++i) {
    const cg_record *r = &report->records[i];
    /* a record skipped for want of a device (a platform that lists none) has no crossover */
    if (strcmp(r->workload, workload) != 0 || r->reference || isnan(r->sweep_value) ||
        r->status == CG_STATUS_SKIPPED)
      continue;
    bool seen = false;
    for (int c = 0; c < i && !seen; ++c)
      seen = strcmp(report->records[c].workload, workload) == 0 &&
             !isnan(report->records[c].sweep_value) &&
             report->records[c].status != CG_STATUS_SKIPPED && same_impl(&report->records[c], r);
    if (seen || count == max) continue;
    cg_crossover *x = &out[count++];
    snprintf(x->backend, sizeof x->backend, "%s", r->backend);
    snprintf(x->variant, sizeof x->variant, "%s", r->variant);
    snprintf(x->mode, sizeof x->mode, "%s", r->mode);
    snprintf(x->device, sizeof x->device, "%s", r->device);
    x->device_index = r->device_index;
    x->loop_size = x->total_size = 0;
    /* Walk the sweep in order; a size where the reference is faster (or either failed) resets. */
    for (int j = 0; j < report->count; ++j) {
      const cg_record *g = &report->records[j];
      if (strcmp(g->workload, workload) != 0 || isnan(g->sweep_value) || !same_impl(g, r))
        continue;
      const cg_record *h = NULL;
      for (int k = 0; k < report->count; ++k) {
        const cg_record *c = &report->records[k];
        if (c->reference && strcmp(c->workload, workload) == 0 &&
            c->sweep_value == g->sweep_value)
          h = c;
      }
      const bool ok = h && g->status == CG_STATUS_OK && h->status == CG_STATUS_OK;
      const bool wins_loop = ok && steady_per_iter(g) < steady_per_iter(h);
      const bool wins_total = ok && total_ms(g) < total_ms(h);
      if (!wins_loop) x->loop_size = 0;
      else if (!x->loop_size) x->loop_size = g->sweep_value;
      if (!wins_total) x->total_size = 0;
      else if (!x->total_size) x->total_size = g->sweep_value;
    }
  }
  return count;
}
