/* Results as versioned JSON (cJSON): every record with its phases, runs and losses. */
#include "clgauge/report.h"
#include "report/write.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static cJSON *stats_json(const cg_stats *s) {
  cJSON *o = cJSON_CreateObject();
  cg_json_stats(o, s);
  return o;
}

static cJSON *record_json(const cg_record *r) {
  cJSON *o = cJSON_CreateObject();
  cJSON_AddStringToObject(o, "workload", r->workload);
  cJSON_AddStringToObject(o, "backend", r->backend);
  cJSON_AddStringToObject(o, "variant", r->variant);
  if (r->mode[0])
    cJSON_AddStringToObject(o, "transfer", r->mode);
  else
    cJSON_AddNullToObject(o, "transfer");
  cJSON_AddBoolToObject(o, "reference", r->reference);
  if (r->group[0])
    cJSON_AddStringToObject(o, "group", r->group);
  else
    cJSON_AddNullToObject(o, "group");
  cJSON_AddStringToObject(o, "status", cg_status_name(r->status));
  if (r->reason[0])
    cJSON_AddStringToObject(o, "reason", r->reason);
  else
    cJSON_AddNullToObject(o, "reason");

  cJSON *dev = cJSON_AddObjectToObject(o, "device");
  cJSON_AddStringToObject(dev, "name", r->device);
  cJSON_AddStringToObject(dev, "vendor", r->vendor);
  cJSON_AddStringToObject(dev, "platform", r->platform);
  cJSON_AddStringToObject(dev, "driver_version", r->driver);
  cJSON_AddStringToObject(dev, "opencl_version", r->cl_version);
  cJSON_AddStringToObject(dev, "type", r->device_type);
  if (r->device_index >= 0) {
    char id[32];
    snprintf(id, sizeof id, "%d:%d", r->device_platform, r->device_number);
    cJSON_AddNumberToObject(dev, "index", r->device_index);
    cJSON_AddStringToObject(dev, "id", id);
  } else {
    cJSON_AddNullToObject(dev, "index");
    cJSON_AddNullToObject(dev, "id");
  }

  cJSON *params = cJSON_AddObjectToObject(o, "params");
  for (int i = 0; i < r->nparams; ++i) cg_json_num(params, r->params[i].name, r->params[i].value);

  cJSON *kernel = cJSON_AddObjectToObject(o, "kernel");
  cJSON_AddStringToObject(kernel, "build_options", r->kernel.build_options);
  if (r->kernel.path[0]) cJSON_AddStringToObject(kernel, "path", r->kernel.path);
  cJSON *kparams = cJSON_AddArrayToObject(kernel, "params");
  for (int i = 0; i < r->kernel.nparams; ++i) {
    cJSON *k = cJSON_CreateObject();
    cJSON_AddStringToObject(k, "name", r->kernel.params[i].name);
    cJSON_AddNumberToObject(k, "value", r->kernel.params[i].value);
    cJSON_AddStringToObject(k, "origin", cg_origin_name(r->kernel.params[i].origin));
    cJSON_AddItemToArray(kparams, k);
  }

  cJSON *budget = cJSON_AddObjectToObject(o, "budget");
  if (r->budget_s > 0)
    cJSON_AddNumberToObject(budget, "s", r->budget_s);
  else
    cJSON_AddNullToObject(budget, "s");
  cJSON_AddNumberToObject(budget, "runs_asked", r->planned_runs);
  cJSON_AddBoolToObject(budget, "cut", r->budget_cut);

  cJSON *work = cJSON_AddObjectToObject(o, "work");
  cg_json_num(work, "flops_per_iter", r->flops_per_iter);
  cg_json_num(work, "bytes_per_iter", r->bytes_per_iter);
  cJSON_AddNumberToObject(work, "iters_per_run", r->iters_per_run);

  cJSON *ph = cJSON_AddObjectToObject(o, "phases");
  cJSON *init = cJSON_AddObjectToObject(ph, "init");
  cg_json_num(init, "ms", r->init_ms);
  /* the part of it that ran beside other phases (a device opened ahead): not to be added again */
  cg_json_num(init, "overlapped_ms", isfinite(r->init_ms) ? r->init_overlap_ms : NAN);
  cJSON *compile = cJSON_AddObjectToObject(ph, "compile");
  cg_json_num(compile, "ms", r->compile_ms);
  cJSON_AddStringToObject(compile, "kind", r->compile_kind);
  if (r->driver_cache[0])
    cJSON_AddStringToObject(compile, "driver_cache", r->driver_cache);
  else
    cJSON_AddNullToObject(compile, "driver_cache");
  if (r->compile_warning[0])
    cJSON_AddStringToObject(compile, "warning", r->compile_warning);
  else
    cJSON_AddNullToObject(compile, "warning");
  cJSON *upload = cJSON_AddObjectToObject(ph, "upload");
  cg_json_num(upload, "ms", r->upload_ms);
  cJSON *first = cJSON_AddObjectToObject(ph, "first");
  cg_json_num(first, "enqueue_ms", r->first.enqueue_ms);
  cg_json_num(first, "complete_ms", r->first.complete_ms);
  cg_json_num(first, "device_ms", r->first.device_ms);
  cJSON *steady = cJSON_AddObjectToObject(ph, "steady");
  cJSON_AddItemToObject(steady, "complete_ms", stats_json(&r->steady_complete));
  cJSON_AddItemToObject(steady, "enqueue_ms", stats_json(&r->steady_enqueue));
  cJSON_AddItemToObject(steady, "device_ms", stats_json(&r->steady_device));
  if (r->device_time_why[0])
    cJSON_AddStringToObject(steady, "device_unavailable", r->device_time_why);
  else
    cJSON_AddNullToObject(steady, "device_unavailable");
  double med = r->steady_complete.median;
  cg_json_num(steady, "complete_ms_per_iter", cg_per_iter(med, r->iters_per_run));
  cg_json_num(steady, "gflops", cg_gflops(r->flops_per_iter * r->iters_per_run, med));
  cg_json_num(steady, "gbytes_per_s", cg_gflops(r->bytes_per_iter * r->iters_per_run, med));
  cg_json_num(steady, "device_gflops",
          cg_gflops(r->flops_per_iter * r->iters_per_run, r->steady_device.median));
  cJSON *download = cJSON_AddObjectToObject(ph, "download");
  cg_json_num(download, "ms", r->download_ms);
  cJSON *verify = cJSON_AddObjectToObject(ph, "verify");
  cg_json_num(verify, "rel_error", r->verify_error);
  cg_json_num(verify, "tolerance", r->verify_tolerance);
  cg_json_num(verify, "loss_rel_error", r->verify_loss_error);
  cg_json_num(verify, "weights_rel_error", r->verify_weights_error);
  cJSON *host = cJSON_AddObjectToObject(ph, "host");
  cg_json_num(host, "cpu_ms", r->host_cpu_ms);
  cg_json_num(host, "wall_ms", r->host_wall_ms);
  cJSON *transfer = cJSON_AddObjectToObject(ph, "transfer");
  cg_json_num(transfer, "batch_upload_ms", r->batch_upload_ms);
  cg_json_num(transfer, "batch_compute_ms", r->batch_compute_ms);
  cg_json_num(transfer, "upload_hidden_share", r->upload_hidden);
  cg_json_num(transfer, "batch_gather_host_ms", r->batch_gather_ms);
  cJSON *split = cJSON_AddArrayToObject(ph, "iteration_split");
  for (int i = 0; i < r->nsplit; ++i) {
    cJSON *k = cJSON_CreateObject();
    cJSON_AddStringToObject(k, "kernel", r->split[i].name);
    cg_json_num(k, "device_ms", r->split[i].ms);
    cJSON_AddItemToArray(split, k);
  }
  cJSON *launches = cJSON_AddObjectToObject(ph, "launches");
  if (r->launches_per_iter >= 0)
    cJSON_AddNumberToObject(launches, "per_iter", r->launches_per_iter);
  else
    cJSON_AddNullToObject(launches, "per_iter");
  if (r->launches_per_iter < 0 && r->launches_at_least >= 0)
    cJSON_AddNumberToObject(launches, "at_least", r->launches_at_least);
  else
    cJSON_AddNullToObject(launches, "at_least");

  const cg_bound *b = &r->bound;
  if (b->probe >= 0) {
    cJSON *bound = cJSON_AddObjectToObject(o, "bound");
    cJSON_AddNumberToObject(bound, "probe", b->probe);
    cg_json_num(bound, "fp32_share", b->peak_share);
    cg_json_num(bound, "bandwidth_share", b->bandwidth_share);
    cg_json_num(bound, "compute_ms_per_iter", b->compute_ms);
    cg_json_num(bound, "memory_ms_per_iter", b->memory_ms);
    cg_json_num(bound, "launch_ms_per_iter", b->launch_ms);
    cg_json_num(bound, "bound_ms_per_iter", b->bound_ms);
    cg_json_num(bound, "of_bound", b->of_bound);
    if (b->launches >= 0)
      cJSON_AddNumberToObject(bound, "launches_per_iter", b->launches);
    else
      cJSON_AddNullToObject(bound, "launches_per_iter");
    cJSON_AddBoolToObject(bound, "launches_at_least", b->launches_at_least);
    cJSON_AddBoolToObject(bound, "memory_in_cache", b->memory_in_cache);
    cJSON_AddStringToObject(bound, "steady", b->steady);
    if (b->first[0])
      cJSON_AddStringToObject(bound, "run0", b->first);
    else
      cJSON_AddNullToObject(bound, "run0");
  } else {
    cJSON_AddNullToObject(o, "bound");
  }
  if (r->implausible[0])
    cJSON_AddStringToObject(o, "implausible", r->implausible);
  else
    cJSON_AddNullToObject(o, "implausible");

  cJSON *losses = cJSON_AddObjectToObject(o, "losses");
  cJSON_AddNumberToObject(losses, "every", r->loss_every);
  cJSON_AddStringToObject(losses, "unit", r->loss_unit);
  cJSON *values = cJSON_AddArrayToObject(losses, "values");
  for (int i = 0; i < r->nlosses; ++i)
    cJSON_AddItemToArray(values, isfinite(r->losses[i]) ? cJSON_CreateNumber(r->losses[i])
                                                        : cJSON_CreateNull());

  cJSON *runs = cJSON_AddArrayToObject(o, "runs");
  for (int i = 0; i < r->nruns; ++i) {
    cJSON *run = cJSON_CreateObject();
    cg_json_num(run, "enqueue_ms", r->runs[i].enqueue_ms);
    cg_json_num(run, "complete_ms", r->runs[i].complete_ms);
    cg_json_num(run, "device_ms", r->runs[i].device_ms);
    cJSON_AddNumberToObject(run, "iters", r->runs[i].iters);
    cg_json_num(run, "batch_upload_device_ms", r->runs[i].batch_upload_ms);
    cg_json_num(run, "batch_compute_device_ms", r->runs[i].batch_compute_ms);
    cg_json_num(run, "batch_gather_host_ms", r->runs[i].batch_gather_ms);
    cJSON_AddItemToArray(runs, run);
  }
  return o;
}

static cJSON *device_json(const cg_report_device *d) {
  cJSON *o = cJSON_CreateObject();
  cJSON_AddBoolToObject(o, "listed", d->listed);
  if (d->listed) {
    char id[32];
    snprintf(id, sizeof id, "%d:%d", d->platform_index, d->device_index);
    cJSON_AddNumberToObject(o, "index", d->index);
    cJSON_AddStringToObject(o, "id", id);
  } else {
    cJSON_AddNullToObject(o, "index");
    cJSON_AddNullToObject(o, "id");
  }
  cJSON_AddStringToObject(o, "name", d->name);
  cJSON_AddStringToObject(o, "vendor", d->vendor);
  cJSON_AddStringToObject(o, "platform", d->platform);
  cJSON_AddStringToObject(o, "platform_version", d->platform_version);
  cJSON_AddStringToObject(o, "driver_version", d->driver);
  cJSON_AddStringToObject(o, "opencl_version", d->cl_version);
  cJSON_AddStringToObject(o, "opencl_c_version", d->c_version);
  cJSON_AddStringToObject(o, "type", d->type);
  return o;
}

/* A size of 0 (never) is written as null. */
static cJSON *crossover_json(const cg_crossover *x) {
  cJSON *o = cJSON_CreateObject();
  cJSON_AddStringToObject(o, "backend", x->backend);
  cJSON_AddStringToObject(o, "variant", x->variant);
  if (x->mode[0])
    cJSON_AddStringToObject(o, "transfer", x->mode);
  else
    cJSON_AddNullToObject(o, "transfer");
  cJSON_AddStringToObject(o, "device", x->device);
  if (x->device_index >= 0)
    cJSON_AddNumberToObject(o, "device_index", x->device_index);
  else
    cJSON_AddNullToObject(o, "device_index");
  cg_json_num(o, "steady_from", x->loop_size > 0 ? x->loop_size : NAN);
  cg_json_num(o, "total_from", x->total_size > 0 ? x->total_size : NAN);
  return o;
}

char *cg_report_json(const cg_report *report) {
  cJSON *root = cJSON_CreateObject();
  if (!root) return NULL;
  cJSON_AddStringToObject(root, "schema", CG_REPORT_SCHEMA);
  cJSON_AddStringToObject(root, "clgauge_version", CLGAUGE_VERSION);
  char when[32];
  time_t now = time(NULL);
  struct tm tm;
  strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&now, &tm));
  cJSON_AddStringToObject(root, "created", when);
  cJSON_AddStringToObject(root, "command", report->command ? report->command : "");
  cg_json_num(root, "discovery_ms", report->discovery_ms);
  cg_json_num(root, "discovery_overlapped_ms", report->discovery_overlap_ms);
  cJSON *devices = cJSON_AddArrayToObject(root, "devices");
  for (int i = 0; i < report->ndevices; ++i)
    cJSON_AddItemToArray(devices, device_json(&report->devices[i]));
  if (report->sweep_option[0]) {
    cJSON *sweep = cJSON_AddObjectToObject(root, "crossovers");
    cJSON_AddStringToObject(sweep, "sweep", report->sweep_option);
    const char *against = "";
    for (int i = 0; i < report->count && !against[0]; ++i)
      if (report->records[i].reference) against = report->records[i].backend;
    cJSON_AddStringToObject(sweep, "against", against);
    cJSON *list = cJSON_AddArrayToObject(sweep, "backends");
    for (int i = 0; i < report->ncrossovers; ++i)
      cJSON_AddItemToArray(list, crossover_json(&report->crossovers[i]));
  } else {
    cJSON_AddNullToObject(root, "crossovers");
  }
  if (report->nprobes > 0) {
    cJSON *probes = cJSON_AddArrayToObject(root, "probes");
    for (int i = 0; i < report->nprobes; ++i)
      cJSON_AddItemToArray(probes, cg_probe_json(&report->probes[i]));
  }
  cJSON *records = cJSON_AddArrayToObject(root, "records");
  for (int i = 0; i < report->count; ++i)
    cJSON_AddItemToArray(records, record_json(&report->records[i]));
  char *text = cJSON_Print(root);
  cJSON_Delete(root);
  return text;
}

static void put_json(const cg_report *report, FILE *out, void *ctx) {
  const char *text = ctx;
  fputs(text, out);
  fputc('\n', out);
}

cg_rc cg_report_write_json(const cg_report *report, const char *path, cg_error *err) {
  cg_rc rc = CG_OK;
  char *text = cg_report_json(report);
  CG_CHECK(text, CG_ERROR, "out of memory formatting JSON");
  CG_TRY(cg_report_write_whole(report, path, put_json, text, err));
cleanup:
  free(text);
  return rc;
}

