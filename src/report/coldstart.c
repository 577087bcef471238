/* `clgauge coldstart` results: the table, JSON and CSV, files written whole or not at all. */
#include "clgauge/coldstart.h"

#include "clgauge/files.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

const char *cg_cache_state_name(cg_cache_state state) {
  static const char *const names[CG_STATE_COUNT] = {"cold", "driver", "warm", "clgauge"};
  return state >= 0 && state < CG_STATE_COUNT ? names[state] : "?";
}

/* The phases in the order they happen, with their names in every output. */
static const char *const phase_names[] = {"start",  "discovery", "inputs", "reference",
                                          "context", "compile",  "upload", "run",
                                          "download", "verify"};
enum { NPHASES = sizeof phase_names / sizeof phase_names[0] };

static double phase_of(const cg_coldstart_row *r, int p) {
  const double v[NPHASES] = {r->start_ms,   r->discovery_ms, r->inputs_ms, r->reference_ms,
                             r->context_ms, r->compile_ms,   r->upload_ms, r->run_ms,
                             r->download_ms, r->verify_ms};
  return v[p];
}

/* NAN (not measured, not applicable) is written as null, never as a number. */
static void add_num(cJSON *obj, const char *key, double v) {
  if (isfinite(v))
    cJSON_AddNumberToObject(obj, key, v);
  else
    cJSON_AddNullToObject(obj, key);
}

char *cg_coldstart_json(const cg_coldstart_row *rows, int n, const char *command) {
  cJSON *root = cJSON_CreateObject();
  if (!root) return NULL;
  cJSON_AddStringToObject(root, "schema", CG_COLDSTART_SCHEMA);
  cJSON_AddStringToObject(root, "clgauge_version", CLGAUGE_VERSION);
  char when[32];
  const time_t now = time(NULL);
  struct tm tm;
  strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&now, &tm));
  cJSON_AddStringToObject(root, "created", when);
  cJSON_AddStringToObject(root, "command", command ? command : "");
  cJSON *records = cJSON_AddArrayToObject(root, "records");
  for (int i = 0; i < n; ++i) {
    const cg_coldstart_row *r = &rows[i];
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "workload", r->workload);
    cJSON_AddStringToObject(o, "backend", r->backend);
    cJSON_AddStringToObject(o, "variant", r->variant);
    cJSON_AddStringToObject(o, "cache_state", cg_cache_state_name(r->state));
    cJSON_AddStringToObject(o, "device", r->device);
    cJSON_AddStringToObject(o, "driver", r->driver);
    cJSON_AddStringToObject(o, "status", r->status);
    if (r->reason[0])
      cJSON_AddStringToObject(o, "reason", r->reason);
    else
      cJSON_AddNullToObject(o, "reason");
    cJSON_AddStringToObject(o, "compile_kind", r->compile_kind);
    add_num(o, "total_ms", r->total_ms);
    add_num(o, "overlap_ms", r->overlap_ms);
    cJSON *ph = cJSON_AddObjectToObject(o, "phases_ms");
    for (int p = 0; p < NPHASES; ++p) add_num(ph, phase_names[p], phase_of(r, p));
    cJSON_AddItemToArray(records, o);
  }
  char *text = cJSON_Print(root);
  cJSON_Delete(root);
  return text;
}

cg_rc cg_coldstart_write_json(const char *path, const cg_coldstart_row *rows, int n,
                              const char *command, cg_error *err) {
  cg_rc rc = CG_OK;
  cg_file_writer w = {0};
  char *text = cg_coldstart_json(rows, n, command);
  CG_CHECK(text, CG_ERROR, "out of memory formatting JSON");
  CG_TRY(cg_file_begin(path, &w, err));
  fputs(text, w.out);
  fputc('\n', w.out);
  CG_TRY(cg_file_commit(&w, err));
cleanup:
  if (rc != CG_OK) cg_file_abandon(&w);
  free(text);
  return rc;
}

/* A CSV field: quoted, with its quotes doubled. */
static void csv_str(FILE *out, const char *s) {
  fputc('"', out);
  for (; *s; ++s) {
    if (*s == '"') fputc('"', out);
    fputc(*s, out);
  }
  fputc('"', out);
}

cg_rc cg_coldstart_write_csv(const char *path, const cg_coldstart_row *rows, int n,
                             cg_error *err) {
  cg_rc rc = CG_OK;
  cg_file_writer w = {0};
  CG_TRY(cg_file_begin(path, &w, err));
  fprintf(w.out, "workload,backend,variant,cache_state,device,driver,status,compile_kind,total_ms");
  for (int p = 0; p < NPHASES; ++p) fprintf(w.out, ",%s_ms", phase_names[p]);
  fprintf(w.out, ",overlap_ms,reason\n");
  for (int i = 0; i < n; ++i) {
    const cg_coldstart_row *r = &rows[i];
    const char *text[] = {r->workload, r->backend, r->variant, cg_cache_state_name(r->state),
                          r->device,   r->driver,  r->status,  r->compile_kind};
    for (size_t t = 0; t < sizeof text / sizeof text[0]; ++t) {
      if (t) fputc(',', w.out);
      csv_str(w.out, text[t]);
    }
    fprintf(w.out, isfinite(r->total_ms) ? ",%.17g" : ",", r->total_ms);
    for (int p = 0; p < NPHASES; ++p)
      fprintf(w.out, isfinite(phase_of(r, p)) ? ",%.17g" : ",", phase_of(r, p));
    fprintf(w.out, isfinite(r->overlap_ms) ? ",%.17g" : ",", r->overlap_ms);
    fputc(',', w.out);
    csv_str(w.out, r->reason);
    fputc('\n', w.out);
  }
  CG_TRY(cg_file_commit(&w, err));
cleanup:
  if (rc != CG_OK) cg_file_abandon(&w);
  return rc;
}

void cg_coldstart_print_table(const cg_coldstart_row *rows, int n, FILE *out) {
  const char *device = "";
  for (int i = 0; i < n; ++i) {
    if (strcmp(rows[i].device, device) != 0 && rows[i].device[0]) {
      device = rows[i].device;
      fprintf(out, "%sdevice: %s, driver %s\n", i ? "\n" : "", device, rows[i].driver);
    }
  }
  fprintf(out, "\n%-8s %-18s %-8s %9s", "workload", "backend/variant", "cache", "total");
  for (int p = 0; p < NPHASES; ++p) fprintf(out, " %9s", phase_names[p]);
  fprintf(out, " %9s  status\n", "overlap");
  for (int i = 0; i < n; ++i) {
    const cg_coldstart_row *r = &rows[i];
    char name[48];
    snprintf(name, sizeof name, "%s/%s", r->backend, r->variant);
    fprintf(out, "%-8s %-18s %-8s", r->workload, name, cg_cache_state_name(r->state));
    if (isfinite(r->total_ms))
      fprintf(out, " %9.1f", r->total_ms);
    else
      fprintf(out, " %9s", "-");
    for (int p = 0; p < NPHASES; ++p) {
      const double v = phase_of(r, p);
      const bool lazy = strcmp(phase_names[p], "compile") == 0 &&
                        strcmp(r->compile_kind, "lazy") == 0;
      if (isfinite(v))
        fprintf(out, " %9.1f", v);
      else
        fprintf(out, " %9s", lazy ? "in run" : "-");
    }
    if (isfinite(r->overlap_ms))
      fprintf(out, " %9.1f", r->overlap_ms);
    else
      fprintf(out, " %9s", "-");
    fprintf(out, "  %s%s%s\n", r->status, r->reason[0] ? ": " : "", r->reason);
  }
  fprintf(out, "\nms from the process start (the parent's clock before fork) to the first verified\n"
               "result. start: fork and exec until main(); discovery: the drivers loaded and the\n"
               "devices listed; inputs and reference: on the host; context; compile ('in run': the\n"
               "library compiles inside its first call); upload; run: run 0 until complete;\n"
               "download; verify. overlap: the time two of those ran at once (discovery and the\n"
               "context on a thread of their own, beside the options, inputs and reference),\n"
               "counted in both: the total is the phases' sum less the overlap, plus the front\n"
               "end's own work (options, checks).\n");
}
