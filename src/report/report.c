/* Result records and their outputs: the aligned table and summary, JSON (cJSON) and CSV. */
#include "clgauge/report.h"
#include "clgauge/files.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

const char *cg_status_name(cg_status status) {
  switch (status) {
  case CG_STATUS_OK: return "ok";
  case CG_STATUS_UNSUPPORTED: return "unsupported";
  case CG_STATUS_SKIPPED: return "skipped";
  case CG_STATUS_ERROR: return "error";
  }
  return "?";
}

void cg_report_init(cg_report *report, int argc, char **argv) {
  memset(report, 0, sizeof *report);
  report->discovery_ms = NAN;
  size_t used = 0;
  for (int i = 0; i < argc && used < sizeof report->command; ++i) {
    int n = snprintf(report->command + used, sizeof report->command - used, "%s%s",
                     i ? " " : "", argv[i]);
    if (n < 0) break;
    used += (size_t)n;
  }
}

cg_record *cg_report_add(cg_report *report) {
  if (report->count == report->cap) {
    int cap = report->cap ? 2 * report->cap : 8;
    cg_record *grown = realloc(report->records, (size_t)cap * sizeof *grown);
    if (!grown) return NULL;
    report->records = grown;
    report->cap = cap;
  }
  cg_record *rec = &report->records[report->count++];
  memset(rec, 0, sizeof *rec);
  rec->device_type = "";
  rec->loss_unit = "iteration";
  rec->launches_per_iter = -1;
  double *nan_fields[] = {&rec->flops_per_iter, &rec->bytes_per_iter, &rec->init_ms,
                          &rec->compile_ms,     &rec->upload_ms,      &rec->first.enqueue_ms,
                          &rec->first.complete_ms, &rec->first.device_ms, &rec->download_ms,
                          &rec->verify_error,   &rec->verify_tolerance, &rec->host_cpu_ms,
                          &rec->verify_loss_error, &rec->verify_weights_error,
                          &rec->batch_upload_ms, &rec->batch_compute_ms, &rec->upload_hidden,
                          &rec->host_wall_ms};
  for (size_t i = 0; i < sizeof nan_fields / sizeof nan_fields[0]; ++i) *nan_fields[i] = NAN;
  cg_stats_compute(NULL, 0, &rec->steady_complete);
  cg_stats_compute(NULL, 0, &rec->steady_enqueue);
  cg_stats_compute(NULL, 0, &rec->steady_device);
  return rec;
}

void cg_report_free(cg_report *report) {
  for (int i = 0; i < report->count; ++i) {
    free(report->records[i].runs);
    free(report->records[i].losses);
  }
  free(report->records);
  report->records = NULL;
  report->count = report->cap = 0;
}

void cg_record_set_device(cg_record *rec, const cg_device_info *info) {
  snprintf(rec->device, sizeof rec->device, "%s", info->name);
  snprintf(rec->vendor, sizeof rec->vendor, "%s", info->vendor);
  snprintf(rec->platform, sizeof rec->platform, "%s", info->platform);
  snprintf(rec->driver, sizeof rec->driver, "%s", info->driver_version);
  snprintf(rec->cl_version, sizeof rec->cl_version, "%s", info->version);
  rec->device_type = cg_device_type_name(info->type);
}

void cg_record_add_param(cg_record *rec, const char *name, double value) {
  if (rec->nparams < CG_MAX_PARAMS) rec->params[rec->nparams++] = (cg_param){name, value};
}

double cg_record_param(const cg_record *rec, const char *name) {
  for (int i = 0; i < rec->nparams; ++i)
    if (strcmp(rec->params[i].name, name) == 0) return rec->params[i].value;
  return NAN;
}

void cg_record_set_status(cg_record *rec, cg_status status, const char *fmt, ...) {
  rec->status = status;
  rec->reason[0] = '\0';
  if (!fmt) return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(rec->reason, sizeof rec->reason, fmt, ap);
  va_end(ap);
}

/* ---- JSON ---- */

/* NAN (not measured, not applicable) is written as null, never as a number. */
static void add_num(cJSON *obj, const char *key, double v) {
  if (isfinite(v))
    cJSON_AddNumberToObject(obj, key, v);
  else
    cJSON_AddNullToObject(obj, key);
}

static cJSON *stats_json(const cg_stats *s) {
  cJSON *o = cJSON_CreateObject();
  cJSON_AddNumberToObject(o, "n", s->n);
  add_num(o, "median", s->median);
  add_num(o, "min", s->min);
  add_num(o, "max", s->max);
  add_num(o, "mean", s->mean);
  add_num(o, "stddev", s->stddev);
  return o;
}

static double per_iter(double ms, int iters) { return iters > 0 ? ms / iters : NAN; }
static double gflops(double flops, double ms) { return ms > 0 ? flops / (ms * 1e6) : NAN; }

static cJSON *record_json(const cg_record *r) {
  cJSON *o = cJSON_CreateObject();
  cJSON_AddStringToObject(o, "workload", r->workload);
  cJSON_AddStringToObject(o, "backend", r->backend);
  cJSON_AddStringToObject(o, "variant", r->variant);
  if (r->transfer[0])
    cJSON_AddStringToObject(o, "transfer", r->transfer);
  else
    cJSON_AddNullToObject(o, "transfer");
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

  cJSON *params = cJSON_AddObjectToObject(o, "params");
  for (int i = 0; i < r->nparams; ++i) add_num(params, r->params[i].name, r->params[i].value);

  cJSON *work = cJSON_AddObjectToObject(o, "work");
  add_num(work, "flops_per_iter", r->flops_per_iter);
  add_num(work, "bytes_per_iter", r->bytes_per_iter);
  cJSON_AddNumberToObject(work, "iters_per_run", r->iters_per_run);

  cJSON *ph = cJSON_AddObjectToObject(o, "phases");
  cJSON *init = cJSON_AddObjectToObject(ph, "init");
  add_num(init, "ms", r->init_ms);
  cJSON *compile = cJSON_AddObjectToObject(ph, "compile");
  add_num(compile, "ms", r->compile_ms);
  cJSON_AddStringToObject(compile, "kind", r->compile_kind);
  if (r->driver_cache[0])
    cJSON_AddStringToObject(compile, "driver_cache", r->driver_cache);
  else
    cJSON_AddNullToObject(compile, "driver_cache");
  cJSON *upload = cJSON_AddObjectToObject(ph, "upload");
  add_num(upload, "ms", r->upload_ms);
  cJSON *first = cJSON_AddObjectToObject(ph, "first");
  add_num(first, "enqueue_ms", r->first.enqueue_ms);
  add_num(first, "complete_ms", r->first.complete_ms);
  add_num(first, "device_ms", r->first.device_ms);
  cJSON *steady = cJSON_AddObjectToObject(ph, "steady");
  cJSON_AddItemToObject(steady, "complete_ms", stats_json(&r->steady_complete));
  cJSON_AddItemToObject(steady, "enqueue_ms", stats_json(&r->steady_enqueue));
  cJSON_AddItemToObject(steady, "device_ms", stats_json(&r->steady_device));
  if (r->device_time_why[0])
    cJSON_AddStringToObject(steady, "device_unavailable", r->device_time_why);
  else
    cJSON_AddNullToObject(steady, "device_unavailable");
  double med = r->steady_complete.median;
  add_num(steady, "complete_ms_per_iter", per_iter(med, r->iters_per_run));
  add_num(steady, "gflops", gflops(r->flops_per_iter * r->iters_per_run, med));
  add_num(steady, "gbytes_per_s", gflops(r->bytes_per_iter * r->iters_per_run, med));
  add_num(steady, "device_gflops",
          gflops(r->flops_per_iter * r->iters_per_run, r->steady_device.median));
  cJSON *download = cJSON_AddObjectToObject(ph, "download");
  add_num(download, "ms", r->download_ms);
  cJSON *verify = cJSON_AddObjectToObject(ph, "verify");
  add_num(verify, "rel_error", r->verify_error);
  add_num(verify, "tolerance", r->verify_tolerance);
  add_num(verify, "loss_rel_error", r->verify_loss_error);
  add_num(verify, "weights_rel_error", r->verify_weights_error);
  cJSON *host = cJSON_AddObjectToObject(ph, "host");
  add_num(host, "cpu_ms", r->host_cpu_ms);
  add_num(host, "wall_ms", r->host_wall_ms);
  cJSON *transfer = cJSON_AddObjectToObject(ph, "transfer");
  add_num(transfer, "batch_upload_ms", r->batch_upload_ms);
  add_num(transfer, "batch_compute_ms", r->batch_compute_ms);
  add_num(transfer, "upload_hidden_share", r->upload_hidden);
  cJSON *split = cJSON_AddArrayToObject(ph, "iteration_split");
  for (int i = 0; i < r->nsplit; ++i) {
    cJSON *k = cJSON_CreateObject();
    cJSON_AddStringToObject(k, "kernel", r->split[i].name);
    add_num(k, "device_ms", r->split[i].ms);
    cJSON_AddItemToArray(split, k);
  }
  cJSON *launches = cJSON_AddObjectToObject(ph, "launches");
  if (r->launches_per_iter >= 0)
    cJSON_AddNumberToObject(launches, "per_iter", r->launches_per_iter);
  else
    cJSON_AddNullToObject(launches, "per_iter");

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
    add_num(run, "enqueue_ms", r->runs[i].enqueue_ms);
    add_num(run, "complete_ms", r->runs[i].complete_ms);
    add_num(run, "device_ms", r->runs[i].device_ms);
    cJSON_AddNumberToObject(run, "iters", r->runs[i].iters);
    add_num(run, "batch_upload_device_ms", r->runs[i].batch_upload_ms);
    add_num(run, "batch_compute_device_ms", r->runs[i].batch_compute_ms);
    cJSON_AddItemToArray(runs, run);
  }
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
  cJSON_AddStringToObject(root, "command", report->command);
  add_num(root, "discovery_ms", report->discovery_ms);
  cJSON *records = cJSON_AddArrayToObject(root, "records");
  for (int i = 0; i < report->count; ++i)
    cJSON_AddItemToArray(records, record_json(&report->records[i]));
  char *text = cJSON_Print(root);
  cJSON_Delete(root);
  return text;
}

/* ---- files, written whole or not at all ---- */

cg_rc cg_report_check_path(const char *path, cg_error *err) {
  return cg_file_check_writable(path, err);
}

typedef void (*write_fn)(const cg_report *report, FILE *out, void *ctx);

static cg_rc write_whole(const cg_report *report, const char *path, write_fn fn, void *ctx,
                         cg_error *err) {
  cg_file_writer w;
  cg_rc rc = cg_file_begin(path, &w, err);
  if (rc != CG_OK) return rc;
  fn(report, w.out, ctx);
  return cg_file_commit(&w, err);
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
  CG_TRY(write_whole(report, path, put_json, text, err));
cleanup:
  free(text);
  return rc;
}

static void csv_num(FILE *out, double v) {
  if (isfinite(v))
    fprintf(out, ",%.6g", v);
  else
    fputs(",", out);
}

/* A field quoted as RFC 4180 asks: inner quotes doubled. */
static void csv_str(FILE *out, const char *s, bool first) {
  if (!first) fputc(',', out);
  fputc('"', out);
  for (; *s; ++s) {
    if (*s == '"') fputc('"', out);
    fputc(*s == '\n' ? ' ' : *s, out);
  }
  fputc('"', out);
}

static void put_csv(const cg_report *report, FILE *out, void *ctx) {
  fputs("workload,backend,variant,status,reason,device,driver_version,params,iters_per_run,"
        "init_ms,compile_ms,compile_kind,driver_cache,upload_ms,first_enqueue_ms,first_complete_ms,"
        "first_device_ms,steady_median_ms,steady_min_ms,steady_max_ms,steady_stddev_ms,"
        "steady_enqueue_median_ms,steady_device_median_ms,gflops,download_ms,rel_error,"
        "host_cpu_ms,host_wall_ms,launches_per_iter\n",
        out);
  for (int i = 0; i < report->count; ++i) {
    const cg_record *r = &report->records[i];
    char params[256] = "";
    size_t used = 0;
    for (int p = 0; p < r->nparams && used < sizeof params; ++p)
      used += (size_t)snprintf(params + used, sizeof params - used, "%s%s=%.17g", p ? ";" : "",
                               r->params[p].name, r->params[p].value);
    csv_str(out, r->workload, true);
    csv_str(out, r->backend, false);
    csv_str(out, r->variant, false);
    csv_str(out, cg_status_name(r->status), false);
    csv_str(out, r->reason, false);
    csv_str(out, r->device, false);
    csv_str(out, r->driver, false);
    csv_str(out, params, false);
    fprintf(out, ",%d", r->iters_per_run);
    csv_num(out, r->init_ms);
    csv_num(out, r->compile_ms);
    csv_str(out, r->compile_kind, false);
    csv_str(out, r->driver_cache, false);
    double nums[] = {r->upload_ms,
                     r->first.enqueue_ms,
                     r->first.complete_ms,
                     r->first.device_ms,
                     r->steady_complete.median,
                     r->steady_complete.min,
                     r->steady_complete.max,
                     r->steady_complete.stddev,
                     r->steady_enqueue.median,
                     r->steady_device.median,
                     gflops(r->flops_per_iter * r->iters_per_run, r->steady_complete.median),
                     r->download_ms,
                     r->verify_error,
                     r->host_cpu_ms,
                     r->host_wall_ms};
    for (size_t n = 0; n < sizeof nums / sizeof nums[0]; ++n) csv_num(out, nums[n]);
    if (r->launches_per_iter >= 0)
      fprintf(out, ",%d\n", r->launches_per_iter);
    else
      fputs(",\n", out);
  }
}

cg_rc cg_report_write_csv(const cg_report *report, const char *path, cg_error *err) {
  return write_whole(report, path, put_csv, NULL, err);
}

/* ---- the table for people ---- */

enum { COLS = 13, CELL = 40 };

static void cell_ms(char *buf, double ms) {
  if (!isfinite(ms))
    snprintf(buf, CELL, "-");
  else if (ms >= 100)
    snprintf(buf, CELL, "%.0f", ms);
  else if (ms >= 1)
    snprintf(buf, CELL, "%.2f", ms);
  else
    snprintf(buf, CELL, "%.4f", ms);
}

static void print_row(FILE *out, char cells[][CELL], const int *width) {
  for (int c = 0; c < COLS; ++c) {
    /* names left-aligned, figures right-aligned */
    if (c < 3)
      fprintf(out, "%s%-*s", c ? "  " : "", width[c], cells[c]);
    else
      fprintf(out, "  %*s", width[c], cells[c]);
  }
  fputc('\n', out);
}

static void record_cells(const cg_record *r, char cells[][CELL]) {
  snprintf(cells[0], CELL, "%s", r->backend);
  snprintf(cells[1], CELL, "%s%s%s", r->variant, r->transfer[0] ? "/" : "", r->transfer);
  snprintf(cells[2], CELL, "%s", cg_status_name(r->status));
  cell_ms(cells[3], r->init_ms);
  cell_ms(cells[4], r->compile_ms);
  if (strcmp(r->compile_kind, "lazy") == 0) snprintf(cells[4], CELL, "in first");
  cell_ms(cells[5], r->upload_ms);
  cell_ms(cells[6], r->first.complete_ms);
  int it = r->iters_per_run;
  double med = per_iter(r->steady_complete.median, it);
  if (isfinite(med))
    snprintf(cells[7], CELL, "%.4g ±%.2g", med, per_iter(r->steady_complete.stddev, it));
  else
    snprintf(cells[7], CELL, "-");
  double g = gflops(r->flops_per_iter * it, r->steady_complete.median);
  if (isfinite(g))
    snprintf(cells[8], CELL, "%.1f", g);
  else
    snprintf(cells[8], CELL, "-");
  cell_ms(cells[9], per_iter(r->steady_device.median, it));
  if (r->status == CG_STATUS_OK && r->device_time_why[0]) snprintf(cells[9], CELL, "n/a");
  cell_ms(cells[10], per_iter(r->steady_enqueue.median, it));
  cell_ms(cells[11], r->download_ms);
  if (isfinite(r->verify_error))
    snprintf(cells[12], CELL, "%.1e", r->verify_error);
  else
    snprintf(cells[12], CELL, "-");
}

static const cg_record *reference_for(const cg_report *report, const cg_record *r) {
  for (int i = 0; i < report->count; ++i) {
    const cg_record *c = &report->records[i];
    if (c->host_backend && c->status == CG_STATUS_OK && strcmp(c->workload, r->workload) == 0)
      return c;
  }
  return NULL;
}

/* "backend/variant", with "/transfer" where the record has one. */
static const char *record_name(const cg_record *r, char *buf, size_t size) {
  snprintf(buf, size, "%s/%s%s%s", r->backend, r->variant, r->transfer[0] ? "/" : "", r->transfer);
  return buf;
}

/* Where the compile time came from, as far as the run can tell. */
static const char *compile_origin(const cg_record *r) {
  if (strcmp(r->compile_kind, "cache") == 0) return "binaries from the cache";
  if (strcmp(r->driver_cache, "on") == 0) return "from source; the driver's cache may have served it";
  if (strcmp(r->driver_cache, "off") == 0) return "from source, cold";
  return "from source";
}

static void print_summary(const cg_report *report, const cg_record *r, FILE *out) {
  char name[80];
  double cold = r->init_ms + (isfinite(r->compile_ms) ? r->compile_ms : 0) + r->upload_ms +
                r->first.complete_ms;
  double steady = per_iter(r->steady_complete.median, r->iters_per_run);
  fprintf(out, "  %s: run 0 took %.1f ms, of which context %.1f ms, ",
          record_name(r, name, sizeof name), cold, r->init_ms);
  if (isfinite(r->compile_ms))
    fprintf(out, "compile %.1f ms (%s), upload %.1f ms, first run %.1f ms", r->compile_ms,
            compile_origin(r), r->upload_ms, r->first.complete_ms);
  else
    fprintf(out, "upload %.1f ms, first run %.1f ms (library compile inside)", r->upload_ms,
            r->first.complete_ms);
  fprintf(out, "; steady %.3g ms per iteration", steady);
  const cg_record *ref = reference_for(report, r);
  if (ref) {
    double ref_steady = per_iter(ref->steady_complete.median, ref->iters_per_run);
    double ratio = ref_steady / steady;
    if (ratio >= 1)
      fprintf(out, ", %.2fx faster than %s (%.3g ms)", ratio, ref->backend, ref_steady);
    else
      fprintf(out, ", %.2fx slower than %s (%.3g ms)", 1 / ratio, ref->backend, ref_steady);
    double cold_iters = cold / ref_steady;
    fprintf(out, "; run 0 costs as much as %.0f %s iterations", cold_iters, ref->backend);
  }
  double enq = per_iter(r->steady_enqueue.median, r->iters_per_run);
  if (isfinite(enq) && enq < 0.5 * steady)
    fprintf(out, "; an unsynchronised timer would have seen %.3g ms", enq);
  if (isfinite(r->batch_upload_ms))
    fprintf(out, "; per batch on the device: upload %.3g ms, compute %.3g ms, %.0f%% of the upload "
                 "hidden behind compute",
            r->batch_upload_ms, r->batch_compute_ms, 100 * r->upload_hidden);
  fputs("\n", out);
  if (r->nsplit > 0) {
    double sum = 0;
    for (int i = 0; i < r->nsplit; ++i) sum += r->split[i].ms;
    fprintf(out, "    one iteration on the device, %.3g ms in %d commands (%.3g ms of wall time):",
            sum, r->nsplit, steady);
    for (int i = 0; i < r->nsplit; ++i)
      fprintf(out, "%s %s %.3g", i ? ";" : "", r->split[i].name, r->split[i].ms);
    fputs("\n", out);
  }
}

/* Records whose loss curves share a block: the same workload and, in a sweep, the same size. */
static bool same_block(const cg_record *a, const cg_record *b) {
  double ha = cg_record_param(a, "hidden"), hb = cg_record_param(b, "hidden");
  return strcmp(a->workload, b->workload) == 0 && (ha == hb || (isnan(ha) && isnan(hb)));
}

/* The loss curves of the training records side by side, one row per printed iteration. */
static void print_losses(const cg_report *report, FILE *out) {
  const cg_record *block = NULL;
  for (int i = 0; i < report->count; ++i) {
    const cg_record *r = &report->records[i];
    if (r->nlosses == 0 || (block && same_block(r, block))) continue;
    block = r; /* a new workload or sweep size starts a new block */
    if (isfinite(cg_record_param(r, "hidden")))
      fprintf(out, "\nloss of %s (hidden %g)\n%10s", r->workload, cg_record_param(r, "hidden"),
              r->loss_unit);
    else
      fprintf(out, "\nloss of %s\n%10s", r->workload, r->loss_unit);
    for (int j = i; j < report->count; ++j) {
      const cg_record *c = &report->records[j];
      char name[80];
      if (c->nlosses && same_block(c, r))
        fprintf(out, "  %18.18s", record_name(c, name, sizeof name));
    }
    fputc('\n', out);
    for (int k = 0; k < r->nlosses; ++k) {
      fprintf(out, "%10d", k * r->loss_every);
      for (int j = i; j < report->count; ++j) {
        const cg_record *c = &report->records[j];
        if (c->nlosses && same_block(c, r))
          fprintf(out, "  %18.9g", k < c->nlosses ? c->losses[k] : NAN);
      }
      fputc('\n', out);
    }
  }
}

void cg_report_print_table(const cg_report *report, FILE *out) {
  static const char *const head[COLS] = {
      "backend", "variant", "status", "init ms", "compile ms", "upload ms", "first ms",
      "steady ms/it", "GFLOP/s", "device ms/it", "enqueue ms/it", "download ms", "rel err"};
  char(*cells)[COLS][CELL] = calloc((size_t)report->count + 1, sizeof *cells);
  if (!cells) return;
  int width[COLS];
  for (int c = 0; c < COLS; ++c) {
    snprintf(cells[0][c], CELL, "%s", head[c]);
    width[c] = (int)strlen(head[c]);
  }
  for (int i = 0; i < report->count; ++i) {
    record_cells(&report->records[i], cells[i + 1]);
    for (int c = 0; c < COLS; ++c) {
      int w = (int)strlen(cells[i + 1][c]);
      if (c == 7 && strstr(cells[i + 1][c], "±")) w -= 1; /* two bytes, one column */
      if (w > width[c]) width[c] = w;
    }
  }

  const char *last_device = NULL, *last_workload = NULL;
  for (int i = 0; i < report->count; ++i) {
    const cg_record *r = &report->records[i];
    if (!last_workload || strcmp(last_workload, r->workload) != 0 ||
        (!r->host_backend && (!last_device || strcmp(last_device, r->device) != 0))) {
      if (r->host_backend)
        fprintf(out, "\n%s on host (OpenBLAS)\n", r->workload);
      else if (r->device[0])
        fprintf(out, "\n%s on %s (%s, driver %s)\n", r->workload, r->device, r->platform,
                r->driver);
      else
        fprintf(out, "\n%s: no OpenCL device\n", r->workload);
      print_row(out, cells[0], width);
      last_workload = r->workload;
      if (!r->host_backend) last_device = r->device;
    }
    print_row(out, cells[i + 1], width);
  }

  bool any_note = false;
  for (int i = 0; i < report->count; ++i) {
    const cg_record *r = &report->records[i];
    if (r->status == CG_STATUS_OK && !r->device_time_why[0]) continue;
    if (r->status == CG_STATUS_OK && r->host_backend) continue;
    if (!any_note) fputs("\nnotes:\n", out);
    any_note = true;
    char name[80];
    if (r->status != CG_STATUS_OK)
      fprintf(out, "  %s: %s: %s\n", record_name(r, name, sizeof name), cg_status_name(r->status),
              r->reason);
    else
      fprintf(out, "  %s: device time n/a: %s\n", record_name(r, name, sizeof name),
              r->device_time_why);
  }

  print_losses(report, out);

  bool any_summary = false;
  for (int i = 0; i < report->count; ++i) {
    const cg_record *r = &report->records[i];
    if (r->status != CG_STATUS_OK || r->host_backend) continue;
    if (!any_summary) fputs("\nwhere the time goes:\n", out);
    any_summary = true;
    print_summary(report, r, out);
  }
  free(cells);
}
