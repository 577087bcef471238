/* Result records: creation, identity, parameters, status; and results files written whole. */
#include "clgauge/report.h"
#include "clgauge/files.h"
#include "report/write.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *cg_status_name(cg_status status) {
  switch (status) {
  case CG_STATUS_OK: return "ok";
  case CG_STATUS_UNSUPPORTED: return "unsupported";
  case CG_STATUS_SKIPPED: return "skipped";
  case CG_STATUS_ERROR: return "error";
  case CG_STATUS_INTERRUPTED: return "interrupted";
  }
  return "?";
}

/* Length of the well-formed UTF-8 sequence at s (1 to 4 bytes), or 0 where the bytes there are
 * not one: a stray continuation byte, an overlong form, a surrogate, or past U+10FFFF. */
static size_t utf8_length(const unsigned char *s) {
  if (s[0] < 0x80) return 1;
  size_t n;
  unsigned long cp;
  if (s[0] >= 0xc2 && s[0] <= 0xdf)
    n = 2, cp = s[0] & 0x1fu;
  else if ((s[0] & 0xf0) == 0xe0)
    n = 3, cp = s[0] & 0x0fu;
  else if (s[0] >= 0xf0 && s[0] <= 0xf4)
    n = 4, cp = s[0] & 0x07u;
  else
    return 0;
  for (size_t i = 1; i < n; ++i) { /* the terminating NUL is no continuation byte */
    if ((s[i] & 0xc0) != 0x80) return 0;
    cp = cp << 6 | (s[i] & 0x3fu);
  }
  if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
      (cp >= 0xd800 && cp <= 0xdfff))
    return 0;
  return n;
}

/* The command line joined by spaces, whole (however long). Bytes that are not UTF-8 are written
 * as the four characters \xHH, so that the JSON's command is valid UTF-8, which strict parsers
 * insist on (cJSON copies strings as it is given them). */
void cg_report_init(cg_report *report, int argc, char **argv) {
  memset(report, 0, sizeof *report);
  report->discovery_ms = NAN;
  size_t cap = 1;
  for (int i = 0; i < argc; ++i) cap += 4 * strlen(argv[i]) + 1;
  report->command = malloc(cap);
  if (!report->command) return;
  char *out = report->command;
  for (int i = 0; i < argc; ++i) {
    if (i) *out++ = ' ';
    for (const unsigned char *p = (const unsigned char *)argv[i]; *p;) {
      const size_t n = utf8_length(p);
      if (n == 0) {
        out += sprintf(out, "\\x%02x", *p++);
      } else {
        memcpy(out, p, n);
        out += n, p += n;
      }
    }
  }
  *out = '\0';
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
  rec->launches_at_least = -1;
  rec->sweep_value = NAN;
  rec->device_index = rec->device_platform = rec->device_number = -1;
  cg_bound_clear(&rec->bound);
  double *nan_fields[] = {&rec->flops_per_iter, &rec->bytes_per_iter, &rec->init_ms,
                          &rec->compile_ms,     &rec->upload_ms,      &rec->first.enqueue_ms,
                          &rec->first.complete_ms, &rec->first.device_ms, &rec->download_ms,
                          &rec->verify_error,   &rec->verify_tolerance, &rec->host_cpu_ms,
                          &rec->verify_loss_error, &rec->verify_weights_error,
                          &rec->batch_upload_ms, &rec->batch_compute_ms, &rec->upload_hidden,
                          &rec->batch_gather_ms,
                          &rec->host_wall_ms,   &rec->reference_ms,   &rec->verify_ms};
  for (size_t i = 0; i < sizeof nan_fields / sizeof nan_fields[0]; ++i) *nan_fields[i] = NAN;
  cg_stats_compute(NULL, 0, &rec->steady_complete);
  cg_stats_compute(NULL, 0, &rec->steady_enqueue);
  cg_stats_compute(NULL, 0, &rec->steady_device);
  return rec;
}

void cg_report_free(cg_report *report) {
  free(report->command);
  report->command = NULL;
  for (int i = 0; i < report->count; ++i) {
    free(report->records[i].runs);
    free(report->records[i].losses);
  }
  free(report->records);
  report->records = NULL;
  report->count = report->cap = 0;
  free(report->probes);
  report->probes = NULL;
  report->nprobes = 0;
  free(report->devices);
  report->devices = NULL;
  report->ndevices = 0;
  free(report->crossovers);
  report->crossovers = NULL;
  report->ncrossovers = 0;
}

static cg_report_device *add_device(cg_report *report) {
  cg_report_device *grown =
      realloc(report->devices, (size_t)(report->ndevices + 1) * sizeof *grown);
  if (!grown) return NULL;
  report->devices = grown;
  cg_report_device *d = &grown[report->ndevices++];
  memset(d, 0, sizeof *d);
  d->index = d->platform_index = d->device_index = -1;
  d->type = "";
  return d;
}

bool cg_report_add_device(cg_report *report, const cg_device_info *info) {
  cg_report_device *d = add_device(report);
  if (!d) return false;
  d->listed = true;
  d->index = info->index;
  d->platform_index = info->platform_index;
  d->device_index = info->device_index;
  snprintf(d->name, sizeof d->name, "%s", info->name);
  snprintf(d->vendor, sizeof d->vendor, "%s", info->vendor);
  snprintf(d->platform, sizeof d->platform, "%s", info->platform);
  snprintf(d->platform_version, sizeof d->platform_version, "%s", info->platform_version);
  snprintf(d->driver, sizeof d->driver, "%s", info->driver_version);
  snprintf(d->cl_version, sizeof d->cl_version, "%s", info->version);
  snprintf(d->c_version, sizeof d->c_version, "%s", info->c_version);
  d->type = cg_device_type_name(info->type);
  return true;
}

bool cg_report_add_empty_platform(cg_report *report, const char *platform) {
  cg_report_device *d = add_device(report);
  if (!d) return false;
  snprintf(d->platform, sizeof d->platform, "%s", platform);
  return true;
}

bool cg_report_set_crossovers(cg_report *report, const char *sweep_option, const cg_crossover *x,
                              int n) {
  free(report->crossovers);
  report->crossovers = NULL;
  report->ncrossovers = 0;
  snprintf(report->sweep_option, sizeof report->sweep_option, "%s", sweep_option);
  if (n <= 0) return true;
  report->crossovers = malloc((size_t)n * sizeof *x);
  if (!report->crossovers) return false;
  memcpy(report->crossovers, x, (size_t)n * sizeof *x);
  report->ncrossovers = n;
  return true;
}

bool cg_report_multi_device(const cg_report *report) {
  int first = -1;
  for (int i = 0; i < report->count; ++i) {
    const int d = report->records[i].device_index;
    if (d < 0) continue;
    if (first >= 0 && d != first) return true;
    first = d;
  }
  return false;
}

cg_rc cg_record_check_names(const char *workload, const char *backend, const char *variant,
                            const char *mode, const char *sweep_label, cg_error *err) {
  cg_rc rc = CG_OK;
  const cg_record *r = NULL;
  const struct {
    const char *field, *name;
    size_t room; /* characters the field holds */
  } names[] = {
      {"workload", workload, sizeof r->workload - 1},
      {"backend", backend, sizeof r->backend - 1},
      {"variant", variant, sizeof r->variant - 1},
      {"mode", mode, sizeof r->mode - 1},
      /* a space and the size, up to 11 characters as an int */
      {"sweep label", sweep_label, sizeof r->group - 1 - 12},
  };
  for (size_t i = 0; i < sizeof names / sizeof names[0]; ++i)
    CG_CHECK(!names[i].name || strlen(names[i].name) <= names[i].room, CG_ERROR,
             "%s name '%s' is longer than the %zu characters a result record holds", names[i].field,
             names[i].name, names[i].room);
cleanup:
  return rc;
}

void cg_record_set_device(cg_record *rec, const cg_device_info *info) {
  snprintf(rec->device, sizeof rec->device, "%s", info->name);
  snprintf(rec->vendor, sizeof rec->vendor, "%s", info->vendor);
  snprintf(rec->platform, sizeof rec->platform, "%s", info->platform);
  snprintf(rec->driver, sizeof rec->driver, "%s", info->driver_version);
  snprintf(rec->cl_version, sizeof rec->cl_version, "%s", info->version);
  rec->device_type = cg_device_type_name(info->type);
  rec->device_index = info->index;
  rec->device_platform = info->platform_index;
  rec->device_number = info->device_index;
}

void cg_record_add_param(cg_record *rec, const char *name, double value) {
  if (rec->nparams < CG_MAX_RECORD_PARAMS) rec->params[rec->nparams++] = (cg_param){name, value};
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

double cg_per_iter(double ms, int iters) { return iters > 0 ? ms / iters : NAN; }
double cg_gflops(double flops, double ms) { return ms > 0 ? flops / (ms * 1e6) : NAN; }

cg_rc cg_report_check_path(const char *path, cg_error *err) {
  return cg_file_check_writable(path, err);
}

cg_rc cg_report_write_whole(const cg_report *report, const char *path, write_fn fn, void *ctx,
                         cg_error *err) {
  cg_file_writer w;
  cg_rc rc = cg_file_begin(path, &w, err);
  if (rc != CG_OK) return rc;
  fn(report, w.out, ctx);
  return cg_file_commit(&w, err);
}

