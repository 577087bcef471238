/* Check suite of results files read back and compared: the reader against the writer, known
 * ratios, records in one file only, schema versions, the threshold (in the library and as the
 * exit status of 'clgauge compare'), one file's devices side by side, the three output formats,
 * and files that are malformed, truncated, too deep or too large. Needs no OpenCL. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "clgauge/compare.h"
#include "clgauge/report.h"
#include "clgauge/results.h"
#include "test_util.h"

/* ---- results files written by hand ---- */

typedef struct text {
  char *s;
  size_t len, cap;
} text;

__attribute__((format(printf, 2, 3))) static void put(text *t, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  ck_assert_int_ge(n, 0);
  if (t->len + (size_t)n + 1 > t->cap) {
    t->cap = 2 * (t->len + (size_t)n + 1);
    t->s = realloc(t->s, t->cap);
    ck_assert_ptr_nonnull(t->s);
  }
  va_start(ap, fmt);
  vsnprintf(t->s + t->len, t->cap - t->len, fmt, ap);
  va_end(ap);
  t->len += (size_t)n;
}

/* One record: the fields compare matches on and a few figures. */
typedef struct spec {
  const char *workload, *backend, *variant;
  const char *transfer; /* NULL: null */
  const char *device, *platform;
  int n;                /* the parameter n */
  double steady;        /* ms per iteration; NAN: null */
  double init;          /* ms; NAN: null */
  const char *status;   /* NULL: ok */
} spec;

static void put_num(text *t, double v) {
  if (isfinite(v))
    put(t, "%.17g", v);
  else
    put(t, "null");
}

/* Schema 3 records carry reference, group and the per-iteration figure; schema 2 records do not,
 * so the reader derives it from the median and the iterations per run. */
static void put_record(text *t, const spec *r, int schema) {
  put(t, "{\"workload\": \"%s\", \"backend\": \"%s\", \"variant\": \"%s\", ", r->workload,
      r->backend, r->variant);
  if (r->transfer)
    put(t, "\"transfer\": \"%s\", ", r->transfer);
  else
    put(t, "\"transfer\": null, ");
  if (schema >= 3)
    put(t, "\"reference\": %s, \"group\": null, ", r->platform[0] ? "false" : "true");
  const char *status = r->status ? r->status : "ok";
  put(t, "\"status\": \"%s\", \"reason\": %s, ", status,
      strcmp(status, "ok") ? "\"it broke\\nsecond line\"" : "null");
  put(t, "\"device\": {\"name\": \"%s\", \"platform\": \"%s\", \"driver_version\": \"1.0\"}, ",
      r->device, r->platform);
  put(t, "\"params\": {\"n\": %d, \"seed\": 42}, \"work\": {\"iters_per_run\": 10}, ", r->n);
  put(t, "\"phases\": {\"init\": {\"ms\": ");
  put_num(t, r->init);
  put(t, "}, \"steady\": {\"complete_ms\": {\"n\": 9, \"median\": ");
  put_num(t, r->steady * 10);
  put(t, "}");
  if (schema >= 3) {
    put(t, ", \"complete_ms_per_iter\": ");
    put_num(t, r->steady);
  }
  put(t, "}}}");
}

static char *results_text(int schema, const spec *records, int n) {
  text t = {0};
  put(&t, "{\"schema\": \"clgauge.results/%d\", \"clgauge_version\": \"0.1.0\", "
          "\"created\": \"2026-12-03T10:00:00Z\", \"command\": \"matmul --n 64\", "
          "\"records\": [\n",
      schema);
  for (int i = 0; i < n; ++i) {
    if (i) put(&t, ",\n");
    put_record(&t, &records[i], schema);
  }
  put(&t, "\n]}\n");
  return t.s;
}

static void parse_ok(const char *json, cg_results *out) {
  cg_error err = {0};
  cg_rc rc = cg_results_parse(json, strlen(json), "test.json", out, &err);
  ck_assert_msg(rc == CG_OK, "parse failed: %s", err.msg);
}

/* Parse must fail with CG_BAD_INPUT and a message naming the file and containing `what`. */
static void parse_fails(const char *json, size_t size, const char *what) {
  cg_results res;
  cg_error err = {0};
  cg_rc rc = cg_results_parse(json, size, "bad.json", &res, &err);
  ck_assert_msg(rc == CG_BAD_INPUT, "expected CG_BAD_INPUT for %.60s, got %d", json, rc);
  ck_assert_msg(strncmp(err.msg, "'bad.json': ", 12) == 0, "message does not name the file: %s",
                err.msg);
  ck_assert_msg(strstr(err.msg, what), "message '%s' lacks '%s'", err.msg, what);
  ck_assert_ptr_null(strchr(err.msg, '\n'));
  ck_assert_int_eq(res.count, 0);
  ck_assert_ptr_null(res.records);
}

#define DEV "Test GPU"
#define PLAT "Test Platform"

/* ---- the reader ---- */

START_TEST(test_phase_names) {
  ck_assert_str_eq(cg_phase_name(CG_PHASE_INIT), "init");
  ck_assert_str_eq(cg_phase_name(CG_PHASE_DOWNLOAD), "download");
  for (int p = 0; p < CG_PHASE_COUNT; ++p)
    ck_assert_int_eq(cg_phase_find(cg_phase_name((cg_phase)p)), p);
  ck_assert_int_eq(cg_phase_find("steadyish"), -1);
  ck_assert_str_eq(cg_phase_unit(CG_PHASE_STEADY), "ms/it");
  ck_assert_str_eq(cg_phase_unit(CG_PHASE_ENQUEUE), "ms/it");
  ck_assert_str_eq(cg_phase_unit(CG_PHASE_COMPILE), "ms");
}
END_TEST

/* What the report module writes, the reader reads: every field compare uses. */
START_TEST(test_reads_what_the_report_writes) {
  cg_report report;
  char *argv[] = {(char *)"clgauge", (char *)"linear"};
  cg_report_init(&report, 2, argv);
  cg_device_info dev;
  memset(&dev, 0, sizeof dev);
  snprintf(dev.name, sizeof dev.name, "Quoted \"GPU\"");
  snprintf(dev.platform, sizeof dev.platform, "Plat");
  snprintf(dev.driver_version, sizeof dev.driver_version, "9.9");
  snprintf(dev.vendor, sizeof dev.vendor, "V");
  snprintf(dev.version, sizeof dev.version, "OpenCL 1.2");
  dev.type = CL_DEVICE_TYPE_GPU;
  cg_record *r = cg_report_add(&report);
  snprintf(r->workload, sizeof r->workload, "linear");
  snprintf(r->backend, sizeof r->backend, "cl");
  snprintf(r->variant, sizeof r->variant, "fused");
  snprintf(r->mode, sizeof r->mode, "pinned");
  snprintf(r->group, sizeof r->group, "batch 64");
  snprintf(r->compile_kind, sizeof r->compile_kind, "source");
  cg_record_set_device(r, &dev);
  cg_record_add_param(r, "batch", 64);
  cg_record_add_param(r, "lr", 0.01);
  r->iters_per_run = 4;
  r->flops_per_iter = 1e6;
  r->init_ms = 1.5;
  r->compile_ms = 20;
  r->upload_ms = 0.25;
  r->first.complete_ms = 8;
  r->download_ms = 0.125;
  double complete[] = {4.0, 6.0, 5.0}, enqueue[] = {1.0, 1.0, 1.0}, device[] = {3.0, 3.0, 3.0};
  cg_stats_compute(complete, 3, &r->steady_complete);
  cg_stats_compute(enqueue, 3, &r->steady_enqueue);
  cg_stats_compute(device, 3, &r->steady_device);
  cg_record_set_status(r, CG_STATUS_OK, NULL);
  r = cg_report_add(&report);
  snprintf(r->workload, sizeof r->workload, "linear");
  snprintf(r->backend, sizeof r->backend, "cpu");
  snprintf(r->variant, sizeof r->variant, "openblas");
  snprintf(r->device, sizeof r->device, "host CPU");
  r->reference = true;
  cg_record_set_status(r, CG_STATUS_SKIPPED, "not asked for");

  char dir[256], path[512];
  cg_test_tempdir(dir, sizeof dir);
  snprintf(path, sizeof path, "%s/r.json", dir);
  cg_error err = {0};
  ck_assert_msg(cg_report_write_json(&report, path, &err) == CG_OK, "%s", err.msg);
  cg_report_free(&report);

  cg_results res;
  ck_assert_msg(cg_results_read(path, &res, &err) == CG_OK, "%s", err.msg);
  ck_assert_int_eq(res.schema, 5);
  ck_assert_str_eq(res.command, "clgauge linear");
  ck_assert_int_eq(res.count, 2);
  const cg_result *a = &res.records[0];
  ck_assert_str_eq(a->workload, "linear");
  ck_assert_str_eq(a->backend, "cl");
  ck_assert_str_eq(a->variant, "fused");
  ck_assert_str_eq(a->transfer, "pinned");
  ck_assert_str_eq(a->group, "batch 64");
  ck_assert_int_eq(a->reference, 0);
  ck_assert_int_eq(a->status, CG_STATUS_OK);
  ck_assert_str_eq(a->device, "Quoted \"GPU\"");
  ck_assert_str_eq(a->platform, "Plat");
  ck_assert_str_eq(a->driver, "9.9");
  ck_assert_str_eq(a->device_type, "GPU");
  ck_assert_int_eq(a->nparams, 2);
  ck_assert_double_eq(cg_result_param_value(a, "lr"), 0.01);
  ck_assert(isnan(cg_result_param_value(a, "nope")));
  ck_assert_int_eq(a->iters_per_run, 4);
  ck_assert_str_eq(a->compile_kind, "source");
  ck_assert_double_eq(a->phase[CG_PHASE_INIT], 1.5);
  ck_assert_double_eq(a->phase[CG_PHASE_COMPILE], 20);
  ck_assert_double_eq(a->phase[CG_PHASE_UPLOAD], 0.25);
  ck_assert_double_eq(a->phase[CG_PHASE_FIRST], 8);
  ck_assert_double_eq(a->phase[CG_PHASE_STEADY], 5.0 / 4);
  ck_assert_double_eq(a->phase[CG_PHASE_DEVICE], 3.0 / 4);
  ck_assert_double_eq(a->phase[CG_PHASE_ENQUEUE], 1.0 / 4);
  ck_assert_double_eq(a->phase[CG_PHASE_DOWNLOAD], 0.125);
  ck_assert_double_eq_tol(a->gflops, 4e6 / (5.0 * 1e6), 1e-12);
  const cg_result *b = &res.records[1];
  ck_assert_int_eq(b->status, CG_STATUS_SKIPPED);
  ck_assert_str_eq(b->reason, "not asked for");
  ck_assert_str_eq(b->transfer, "");
  ck_assert_int_eq(b->reference, 1);
  ck_assert_str_eq(b->platform, "");
  for (int p = 0; p < CG_PHASE_COUNT; ++p) ck_assert(isnan(b->phase[p]));
  cg_results_free(&res);
  ck_assert_ptr_null(res.records);
  cg_test_rmtree(dir);
}
END_TEST

/* Schema 2 lacks reference and group (absent), and the per-iteration steady figure (derived). */
START_TEST(test_schema_2) {
  spec r = {"matmul", "cl", "tiled", NULL, DEV, PLAT, 64, 0.5, 3, NULL};
  char *json = results_text(2, &r, 1);
  ck_assert_ptr_null(strstr(json, "complete_ms_per_iter"));
  cg_results res;
  parse_ok(json, &res);
  ck_assert_int_eq(res.schema, 2);
  ck_assert_int_eq(res.records[0].reference, -1);
  ck_assert_str_eq(res.records[0].group, "");
  ck_assert_double_eq_tol(res.records[0].phase[CG_PHASE_STEADY], 0.5, 1e-15);
  ck_assert_double_eq(res.records[0].phase[CG_PHASE_INIT], 3);
  cg_results_free(&res);
  free(json);
}
END_TEST

/* Schema 4 adds the status "interrupted" (a run stopped while the record ran); a file of an
 * older schema with it is malformed. */
START_TEST(test_schema_4_interrupted) {
  spec r[] = {{"matmul", "cl", "tiled", NULL, DEV, PLAT, 64, 0.5, 3, NULL},
              {"matmul", "cl", "naive", NULL, DEV, PLAT, 64, 0.5, 3, "interrupted"}};
  char *json = results_text(4, r, 2);
  cg_results res;
  parse_ok(json, &res);
  ck_assert_int_eq(res.schema, 4);
  ck_assert_int_eq(res.records[1].status, CG_STATUS_INTERRUPTED);
  cg_results_free(&res);
  free(json);
  json = results_text(3, r, 2);
  parse_fails(json, strlen(json),
              "\"status\" 'interrupted' is none of ok, unsupported, skipped, error");
  free(json);
}
END_TEST

START_TEST(test_other_schemas) {
  spec r = {"matmul", "cl", "tiled", NULL, DEV, PLAT, 64, 0.5, 3, NULL};
  for (int v = 1; v <= 6; v += 5) {
    char *json = results_text(v, &r, 1);
    char what[64];
    snprintf(what, sizeof what, "schema clgauge.results/%d, which this clgauge", v);
    parse_fails(json, strlen(json), what);
    parse_fails(json, strlen(json), v == 1 ? "rerun the benchmark" : "a newer clgauge");
    free(json);
  }
  const char *foreign[][2] = {
      {"{\"schema\": \"other.tool/3\", \"records\": []}",
       "not a clgauge results file (schema 'other.tool/3')"},
      {"{\"schema\": \"clgauge.results/x\"}", "not a clgauge results file (schema"},
      {"{\"records\": []}", "not a clgauge results file (no \"schema\")"},
      {"{\"schema\": 3}", "\"schema\" is not a string"},
      {"[1, 2, 3]", "the JSON is not an object"},
      {"\"clgauge.results/3\"", "the JSON is not an object"},
      {"{\"schema\": \"clgauge.results/3\"}", "\"records\" is missing"},
      {"{\"schema\": \"clgauge.results/3\", \"records\": {}}", "\"records\" is not an array"},
  };
  for (size_t i = 0; i < sizeof foreign / sizeof foreign[0]; ++i)
    parse_fails(foreign[i][0], strlen(foreign[i][0]), foreign[i][1]);
}
END_TEST

/* ---- the comparison ---- */

static void compare_files(cg_results *files, int n, int baseline, double threshold,
                          cg_comparison *c) {
  const char *labels[] = {"a.json", "b.json", "c.json", "d.json"};
  cg_error err = {0};
  ck_assert_msg(cg_compare_files(files, labels, n, baseline, threshold, c, &err) == CG_OK, "%s",
                err.msg);
}

START_TEST(test_known_ratios) {
  spec a[] = {{"matmul", "cl", "tiled", NULL, DEV, PLAT, 64, 2.0, 10, NULL},
              {"matmul", "clblast", "sgemm", NULL, DEV, PLAT, 64, 4.0, NAN, NULL}};
  spec b[] = {{"matmul", "clblast", "sgemm", NULL, DEV, PLAT, 64, 1.0, 5, NULL},
              {"matmul", "cl", "tiled", NULL, DEV, PLAT, 64, 1.0, 25, NULL}};
  spec c3[] = {{"matmul", "cl", "tiled", NULL, DEV, PLAT, 64, 3.0, 10, NULL},
               {"matmul", "clblast", "sgemm", NULL, DEV, PLAT, 64, 4.0, 20, NULL}};
  char *ja = results_text(3, a, 2), *jb = results_text(3, b, 2), *jc = results_text(2, c3, 2);
  cg_results files[3];
  parse_ok(ja, &files[0]);
  parse_ok(jb, &files[1]);
  parse_ok(jc, &files[2]);
  cg_comparison c;
  compare_files(files, 3, 0, NAN, &c);
  ck_assert_int_eq(c.ncolumns, 3);
  ck_assert_int_eq(c.nrows, 2);
  ck_assert_int_eq(c.partial, 0);
  ck_assert_int_eq(c.regressions, 0); /* no threshold */
  /* rows in the baseline's order, whatever the order of the others */
  ck_assert_str_eq(c.rows[0].cell[0]->backend, "cl");
  ck_assert_str_eq(c.rows[0].cell[1]->backend, "cl");
  ck_assert_str_eq(c.rows[1].cell[2]->backend, "clblast");
  const cg_compare_row *tiled = cg_compare_find(&c, "matmul", "cl", "tiled", "", DEV);
  ck_assert_ptr_eq(tiled, &c.rows[0]);
  ck_assert_double_eq_tol(cg_compare_ratio(&c, tiled, 1, CG_PHASE_STEADY), 0.5, 1e-12);
  ck_assert_double_eq_tol(cg_compare_ratio(&c, tiled, 2, CG_PHASE_STEADY), 1.5, 1e-12);
  ck_assert_double_eq_tol(cg_compare_ratio(&c, tiled, 1, CG_PHASE_INIT), 2.5, 1e-12);
  ck_assert_double_eq_tol(cg_compare_ratio(&c, tiled, 0, CG_PHASE_STEADY), 1.0, 1e-12);
  const cg_compare_row *sgemm = cg_compare_find(&c, "matmul", "clblast", "sgemm", NULL, NULL);
  ck_assert_double_eq_tol(cg_compare_ratio(&c, sgemm, 1, CG_PHASE_STEADY), 0.25, 1e-12);
  /* the baseline's init is null: no ratio, though the others have a figure */
  ck_assert(isnan(cg_compare_ratio(&c, sgemm, 1, CG_PHASE_INIT)));
  ck_assert_double_eq(cg_compare_value(sgemm, 1, CG_PHASE_INIT), 5);
  cg_comparison_free(&c);

  /* another baseline: the ratios turn around */
  compare_files(files, 3, 1, NAN, &c);
  tiled = cg_compare_find(&c, "matmul", "cl", "tiled", "", DEV);
  ck_assert_double_eq_tol(cg_compare_ratio(&c, tiled, 0, CG_PHASE_STEADY), 2.0, 1e-12);
  ck_assert_double_eq_tol(cg_compare_ratio(&c, tiled, 2, CG_PHASE_STEADY), 3.0, 1e-12);
  ck_assert_str_eq(c.rows[0].cell[1]->backend, "clblast"); /* b.json's order now */
  cg_comparison_free(&c);

  cg_error err = {0};
  const char *labels[] = {"a", "b", "c"};
  ck_assert_int_eq(cg_compare_files(files, labels, 3, 3, NAN, &c, &err), CG_BAD_INPUT);
  ck_assert_ptr_nonnull(strstr(err.msg, "baseline 4: out of range (1..3)"));
  ck_assert_int_eq(cg_compare_files(files, labels, 3, 0, -1, &c, &err), CG_BAD_INPUT);
  for (int i = 0; i < 3; ++i) cg_results_free(&files[i]);
  free(ja);
  free(jb);
  free(jc);
}
END_TEST

/* Records in one file only are kept and marked; the rest still match. Parameters, transfer mode
 * and device each tell records apart. */
START_TEST(test_missing_records) {
  spec a[] = {{"matmul", "cl", "tiled", NULL, DEV, PLAT, 64, 2.0, 1, NULL},
              {"matmul", "cl", "naive", NULL, DEV, PLAT, 64, 8.0, 1, NULL},
              {"linear", "cl", "fused", "pinned", DEV, PLAT, 32, 1.0, 1, NULL},
              {"matmul", "cl", "tiled", NULL, "Other GPU", PLAT, 64, 2.0, 1, NULL}};
  spec b[] = {{"matmul", "cl", "tiled", NULL, DEV, PLAT, 64, 1.0, 1, NULL},
              {"matmul", "cl", "tiled", NULL, DEV, PLAT, 128, 9.0, 1, NULL},
              {"linear", "cl", "fused", "resident", DEV, PLAT, 32, 1.0, 1, NULL},
              {"matmul", "cl", "tiled", NULL, "Other GPU", "Other Platform", 64, 2.0, 1, NULL}};
  char *ja = results_text(3, a, 4), *jb = results_text(3, b, 4);
  cg_results files[2];
  parse_ok(ja, &files[0]);
  parse_ok(jb, &files[1]);
  cg_comparison c;
  compare_files(files, 2, 0, 10, &c);
  /* one match (tiled n=64 on Test GPU), 3 records of a only, 3 of b only */
  ck_assert_int_eq(c.nrows, 7);
  ck_assert_int_eq(c.partial, 6);
  int both = 0, only_a = 0, only_b = 0;
  for (int i = 0; i < c.nrows; ++i) {
    both += c.rows[i].present == 2;
    only_a += c.rows[i].cell[0] && !c.rows[i].cell[1];
    only_b += !c.rows[i].cell[0] && c.rows[i].cell[1];
  }
  ck_assert_int_eq(both, 1);
  ck_assert_int_eq(only_a, 3);
  ck_assert_int_eq(only_b, 3);
  ck_assert_double_eq_tol(cg_compare_ratio(&c, &c.rows[0], 1, CG_PHASE_STEADY), 0.5, 1e-12);
  /* by workload in the order they first appear, each the baseline's rows first, then b's own */
  const char *order[][3] = {{"matmul", "tiled", "a"}, {"matmul", "naive", "a"},
                            {"matmul", "tiled", "a"}, {"matmul", "tiled", "b"},
                            {"matmul", "tiled", "b"}, {"linear", "fused", "a"},
                            {"linear", "fused", "b"}};
  for (int i = 0; i < 7; ++i) {
    const cg_result *r = c.rows[i].cell[0] ? c.rows[i].cell[0] : c.rows[i].cell[1];
    ck_assert_str_eq(r->workload, order[i][0]);
    ck_assert_str_eq(r->variant, order[i][1]);
    ck_assert_ptr_eq(r, c.rows[i].cell[order[i][2][0] == 'a' ? 0 : 1]);
  }
  ck_assert_int_eq(cg_result_param_value(c.rows[3].cell[1], "n"), 128);
  ck_assert(isnan(cg_compare_ratio(&c, &c.rows[1], 1, CG_PHASE_STEADY)));
  ck_assert(isnan(cg_compare_value(&c.rows[1], 1, CG_PHASE_STEADY)));
  /* a missing record is no regression */
  ck_assert_int_eq(c.regressions, 0);

  char *out = NULL;
  size_t size = 0;
  FILE *f = open_memstream(&out, &size);
  cg_compare_print(&c, CG_COMPARE_TABLE, 0, f);
  fclose(f);
  ck_assert_msg(strstr(out, "missing"), "%s", out);
  ck_assert_msg(strstr(out, "only in #1"), "%s", out);
  ck_assert_msg(strstr(out, "only in #2"), "%s", out);
  ck_assert_msg(strstr(out, "7 records: 1 in every column, 6 in some only."), "%s", out);
  free(out);
  cg_comparison_free(&c);
  for (int i = 0; i < 2; ++i) cg_results_free(&files[i]);
  free(ja);
  free(jb);
}
END_TEST

/* A key found twice in a file matches the other file's first and second occurrences in order;
 * a third file lacking the second is marked missing there. */
START_TEST(test_repeated_records_in_order) {
  spec a[] = {{"mlp", "cl", "fused", NULL, DEV, PLAT, 8, 1.0, 1, NULL},
              {"mlp", "cl", "fused", NULL, DEV, PLAT, 8, 2.0, 1, NULL}};
  spec b[] = {{"mlp", "cl", "fused", NULL, DEV, PLAT, 8, 4.0, 1, NULL},
              {"mlp", "cl", "fused", NULL, DEV, PLAT, 8, 4.0, 1, NULL}};
  spec c3[] = {{"mlp", "cl", "fused", NULL, DEV, PLAT, 8, 3.0, 1, NULL}};
  char *ja = results_text(3, a, 2), *jb = results_text(3, b, 2), *jc = results_text(3, c3, 1);
  cg_results files[3];
  parse_ok(ja, &files[0]);
  parse_ok(jb, &files[1]);
  parse_ok(jc, &files[2]);
  cg_comparison c;
  compare_files(files, 3, 0, NAN, &c);
  ck_assert_int_eq(c.nrows, 2);
  ck_assert_double_eq_tol(cg_compare_ratio(&c, &c.rows[0], 1, CG_PHASE_STEADY), 4.0, 1e-12);
  ck_assert_double_eq_tol(cg_compare_ratio(&c, &c.rows[1], 1, CG_PHASE_STEADY), 2.0, 1e-12);
  ck_assert_double_eq_tol(cg_compare_ratio(&c, &c.rows[0], 2, CG_PHASE_STEADY), 3.0, 1e-12);
  ck_assert_ptr_null(c.rows[1].cell[2]);
  ck_assert_int_eq(c.partial, 1);

  char *out = NULL;
  size_t size = 0;
  FILE *f = open_memstream(&out, &size);
  cg_compare_print(&c, CG_COMPARE_TABLE, 1u << CG_PHASE_STEADY, f);
  fclose(f);
  ck_assert_msg(strstr(out, "missing in #3"), "%s", out);
  free(out);
  cg_comparison_free(&c);
  for (int i = 0; i < 3; ++i) cg_results_free(&files[i]);
  free(ja);
  free(jb);
  free(jc);
}
END_TEST

/* Worse by more than the threshold, or no longer ok: a regression; exactly at it, or better, or
 * missing: not. */
START_TEST(test_threshold) {
  spec a[] = {{"matmul", "cl", "tiled", NULL, DEV, PLAT, 64, 1.0, 1, NULL},
              {"matmul", "cl", "naive", NULL, DEV, PLAT, 64, 1.0, 1, NULL},
              {"matmul", "cl", "regblock", NULL, DEV, PLAT, 64, 1.0, 1, NULL},
              {"matmul", "clblast", "sgemm", NULL, DEV, PLAT, 64, 1.0, 1, NULL},
              {"matmul", "cpu", "openblas", NULL, "host CPU", "", 64, 1.0, 1, "skipped"}};
  spec b[] = {{"matmul", "cl", "tiled", NULL, DEV, PLAT, 64, 1.5, 1, NULL},
              {"matmul", "cl", "naive", NULL, DEV, PLAT, 64, 1.25, 1, NULL},
              {"matmul", "cl", "regblock", NULL, DEV, PLAT, 64, 0.5, 1, NULL},
              {"matmul", "clblast", "sgemm", NULL, DEV, PLAT, 64, NAN, 1, "error"},
              {"matmul", "cpu", "openblas", NULL, "host CPU", "", 64, 9.0, 1, NULL}};
  char *ja = results_text(3, a, 5), *jb = results_text(3, b, 5);
  cg_results files[2];
  parse_ok(ja, &files[0]);
  parse_ok(jb, &files[1]);
  const struct {
    double pct;
    int regressions;
  } cases[] = {{0, 3}, {24.9, 3}, {25, 2}, {49.9, 2}, {50, 1}, {1000, 1}};
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; ++k) {
    cg_comparison c;
    compare_files(files, 2, 0, cases[k].pct, &c);
    ck_assert_msg(c.regressions == cases[k].regressions, "threshold %g: %d regressions, not %d",
                  cases[k].pct, c.regressions, cases[k].regressions);
    /* sgemm broke: always a regression; the skipped baseline never is */
    ck_assert(cg_compare_find(&c, "matmul", "clblast", "sgemm", "", DEV)->regressed & 2u);
    ck_assert(!cg_compare_find(&c, "matmul", "cpu", "openblas", "", NULL)->regressed);
    ck_assert(!cg_compare_find(&c, "matmul", "cl", "regblock", "", NULL)->regressed);
    cg_comparison_free(&c);
  }
  cg_comparison c;
  compare_files(files, 2, 0, 10, &c);
  char *out = NULL;
  size_t size = 0;
  FILE *f = open_memstream(&out, &size);
  cg_compare_print(&c, CG_COMPARE_TABLE, 0, f);
  fclose(f);
  ck_assert_msg(strstr(out, "3 records worse than #1 by more than 10% (steady time per "
                            "iteration):"), "%s", out);
  ck_assert_msg(strstr(out, "#2 matmul cl/tiled on Test GPU (n=64 seed=42): 1.5 ms/it against "
                            "1 (+50.0%)"), "%s", out);
  ck_assert_msg(strstr(out, "#2 matmul clblast/sgemm on Test GPU (n=64 seed=42): error, ok in "
                            "#1"), "%s", out);
  ck_assert_msg(strstr(out, "Records not ok:"), "%s", out);
  ck_assert_msg(strstr(out, "error: it broke ..."), "%s", out);
  free(out);
  cg_comparison_free(&c);
  for (int i = 0; i < 2; ++i) cg_results_free(&files[i]);
  free(ja);
  free(jb);
}
END_TEST

/* One file's devices side by side: OpenCL devices in order, the host last, two devices of one
 * name told apart by their platform. */
START_TEST(test_devices_side_by_side) {
  spec a[] = {{"matmul", "cpu", "openblas", NULL, "host CPU", "", 64, 9.0, NAN, NULL},
              {"matmul", "cl", "tiled", NULL, "llvmpipe", "rusticl", 64, 4.0, 1, NULL},
              {"matmul", "cl", "tiled", NULL, "llvmpipe", "Clover", 64, 8.0, 1, NULL},
              {"matmul", "cl", "tiled", NULL, "pthread-cpu", "Portable Computing Language", 64,
               2.0, 1, NULL},
              {"matmul", "cl", "naive", NULL, "llvmpipe", "rusticl", 64, 5.0, 1, NULL},
              {"matmul", "pytorch", "eager", NULL, "host CPU", "", 64, 16.0, NAN, NULL},
              {"matmul", "pytorch", "eager", NULL, "pthread-cpu", "Portable Computing Language",
               64, 1.0, NAN, NULL}};
  char *json = results_text(3, a, 7);
  cg_results res;
  parse_ok(json, &res);
  cg_comparison c;
  cg_error err = {0};
  ck_assert_msg(cg_compare_devices(&res, "all.json", 0, 50, &c, &err) == CG_OK, "%s", err.msg);
  ck_assert(c.by_device);
  ck_assert_int_eq(c.ncolumns, 4);
  ck_assert_str_eq(c.columns[0].label, "llvmpipe (rusticl)");
  ck_assert_str_eq(c.columns[1].label, "llvmpipe (Clover)");
  ck_assert_str_eq(c.columns[2].label, "pthread-cpu");
  ck_assert_str_eq(c.columns[3].label, "host CPU");
  ck_assert_int_eq(c.nrows, 4); /* tiled, naive, pytorch eager, cpu openblas */
  const cg_compare_row *tiled = cg_compare_find(&c, "matmul", "cl", "tiled", "", NULL);
  ck_assert_int_eq(tiled->present, 3);
  ck_assert_double_eq_tol(cg_compare_ratio(&c, tiled, 1, CG_PHASE_STEADY), 2.0, 1e-12);
  ck_assert_double_eq_tol(cg_compare_ratio(&c, tiled, 2, CG_PHASE_STEADY), 0.5, 1e-12);
  ck_assert_int_eq(tiled->regressed, 1u << 1); /* Clover is twice as slow as rusticl */
  const cg_compare_row *eager = cg_compare_find(&c, "matmul", "pytorch", "eager", "", NULL);
  ck_assert_ptr_null(eager->cell[0]);
  ck_assert_double_eq(cg_compare_value(eager, 3, CG_PHASE_STEADY), 16.0);
  ck_assert_double_eq(cg_compare_value(eager, 2, CG_PHASE_STEADY), 1.0);
  ck_assert_int_eq(c.regressions, 1);
  cg_comparison_free(&c);

  /* the baseline a device, here PoCL's: pytorch now has a ratio on the host */
  ck_assert(cg_compare_devices(&res, "all.json", 2, NAN, &c, &err) == CG_OK);
  eager = cg_compare_find(&c, "matmul", "pytorch", "eager", "", NULL);
  ck_assert_double_eq_tol(cg_compare_ratio(&c, eager, 3, CG_PHASE_STEADY), 16.0, 1e-12);
  char *out = NULL;
  size_t size = 0;
  FILE *f = open_memstream(&out, &size);
  cg_compare_print(&c, CG_COMPARE_TABLE, 0, f);
  fclose(f);
  ck_assert_msg(strstr(out, "The devices of all.json side by side; baseline #3."), "%s", out);
  ck_assert_msg(strstr(out, "#1  llvmpipe (rusticl)  (rusticl, driver 1.0)\n"), "%s", out);
  ck_assert_msg(strstr(out, "#4/#3"), "%s", out);
  free(out);
  cg_comparison_free(&c);
  ck_assert_int_eq(cg_compare_devices(&res, "all.json", 4, NAN, &c, &err), CG_BAD_INPUT);
  cg_results_free(&res);
  free(json);
}
END_TEST

/* The three formats: the table aligned, Markdown's header rule, CSV's figures at full precision
 * with one line per record and phase. Parameters that tell records apart are shown. */
START_TEST(test_formats) {
  spec a[] = {{"matmul", "cl", "tiled", NULL, DEV, PLAT, 64, 2.0, 10, NULL},
              {"matmul", "cl", "tiled", NULL, DEV, PLAT, 128, 16.0, 10, NULL}};
  spec b[] = {{"matmul", "cl", "tiled", NULL, DEV, PLAT, 64, 1.0, 30, NULL},
              {"matmul", "cl", "tiled", NULL, DEV, PLAT, 128, 4.0, 10, "unsupported"}};
  char *ja = results_text(3, a, 2), *jb = results_text(3, b, 2);
  cg_results files[2];
  parse_ok(ja, &files[0]);
  parse_ok(jb, &files[1]);
  cg_comparison c;
  compare_files(files, 2, 0, NAN, &c);
  char *out[3] = {0};
  size_t size[3];
  for (int k = 0; k < 3; ++k) {
    FILE *f = open_memstream(&out[k], &size[k]);
    cg_compare_print(&c, (cg_compare_format)k, 0, f);
    fclose(f);
  }
  const char *table = out[CG_COMPARE_TABLE], *md = out[CG_COMPARE_MD], *csv = out[CG_COMPARE_CSV];
  ck_assert_msg(strstr(table, "2 results files side by side; baseline #1."), "%s", table);
  ck_assert_msg(strstr(table, "#1  a.json  (schema 3, clgauge 0.1.0, 2026-12-03T10:00:00Z: "
                              "matmul --n 64)"), "%s", table);
  /* n tells the records apart and is shown; the seed is the same everywhere and is not */
  ck_assert_msg(strstr(table, "n=64"), "%s", table);
  ck_assert_msg(!strstr(table, "n=64 seed=42  "), "%s", table);
  ck_assert_msg(strstr(table, "steady ms/it"), "%s", table);
  ck_assert_msg(strstr(table, "unsupported"), "%s", table);
  /* the header and each line of the table start their figure columns at one place */
  const char *head = strstr(table, "workload");
  const char *line = strstr(table, "init ms");
  ck_assert_ptr_nonnull(head);
  ck_assert_ptr_nonnull(line);
  while (line > table && line[-1] != '\n') --line;
  ck_assert_int_eq(strstr(head, "phase") - head, strstr(line, "init ms") - line);
  ck_assert_msg(strstr(md, "| workload | backend/variant | params | device | phase | #1 (base) | "
                           "#2 | #2/#1 |\n| --- | --- | --- | --- | --- | ---: | ---: | ---: |\n"
                           "| matmul | cl/tiled | n=64 | Test GPU | init ms | 10 | 30 | 3 |\n"),
                "%s", md);
  ck_assert_msg(strstr(md, "- #2  b.json"), "%s", md);
  ck_assert_msg(strstr(csv, "workload,backend,variant,transfer,params,device,phase,unit,"
                            "\"a.json\",\"status a.json\",\"b.json\",\"status b.json\","
                            "\"ratio b.json\",regressed\n"), "%s", csv);
  ck_assert_msg(strstr(csv, "\"matmul\",\"cl\",\"tiled\",\"\",\"n=64;seed=42\",\"Test GPU\","
                            "\"steady\",\"ms/it\",2,\"ok\",1,\"ok\",0.5,\n"), "%s", csv);
  ck_assert_msg(strstr(csv, "\"init\",\"ms\",10,\"ok\",30,\"ok\",3,\n"), "%s", csv);
  ck_assert_msg(strstr(csv, "\"steady\",\"ms/it\",16,\"ok\",,\"unsupported\",,\n"), "%s", csv);
  int lines = 0;
  for (const char *p = csv; *p; ++p) lines += *p == '\n';
  ck_assert_int_eq(lines, 1 + 2 * 2); /* header, then init and steady of each record */
  for (int k = 0; k < 3; ++k) free(out[k]);
  cg_comparison_free(&c);
  for (int i = 0; i < 2; ++i) cg_results_free(&files[i]);
  free(ja);
  free(jb);
}
END_TEST

/* A record its run flagged implausible keeps its figures, marked with '*', and the notes say
 * why; the other file's record of it is not marked. */
START_TEST(test_implausible_marked) {
  spec a[] = {{"matmul", "cl", "tiled", NULL, DEV, PLAT, 64, 2.0, 10, NULL}};
  spec b[] = {{"matmul", "cl", "tiled", NULL, DEV, PLAT, 64, 1.0, 30, NULL}};
  char *ja = results_text(4, a, 1), *jb = results_text(4, b, 1);
  const char *status = "\"status\": \"ok\"";
  char *at = strstr(jb, status);
  ck_assert_ptr_nonnull(at);
  const char *flag = "\"implausible\": \"device time exceeds wall time\", ";
  char *flagged = malloc(strlen(jb) + strlen(flag) + 1);
  ck_assert_ptr_nonnull(flagged);
  sprintf(flagged, "%.*s%s%s", (int)(at - jb), jb, flag, at);
  cg_results files[2];
  parse_ok(ja, &files[0]);
  parse_ok(flagged, &files[1]);
  ck_assert_str_eq(files[0].records[0].implausible, "");
  ck_assert_str_eq(files[1].records[0].implausible, "device time exceeds wall time");
  cg_comparison c;
  compare_files(files, 2, 0, NAN, &c);
  char *table = NULL;
  size_t size;
  FILE *f = open_memstream(&table, &size);
  cg_compare_print(&c, CG_COMPARE_TABLE, 1u << CG_PHASE_STEADY, f);
  fclose(f);
  const char *row = strstr(table, "steady ms/it");
  ck_assert_msg(row && strstr(row, " 2 ") && strstr(row, " 1* "), "no mark on #2 only:\n%s",
                table);
  ck_assert_msg(strstr(table, "Implausible figures (*), as their runs flagged them:\n  #2 matmul "
                              "cl/tiled on Test GPU (n=64 seed=42): device time exceeds wall "
                              "time\n"),
                "no note of why:\n%s", table);
  free(table);
  cg_comparison_free(&c);
  for (int i = 0; i < 2; ++i) cg_results_free(&files[i]);
  free(ja);
  free(jb);
  free(flagged);
}
END_TEST

/* ---- files that are not results ---- */

START_TEST(test_malformed) {
  const char *good_start = "{\"schema\": \"clgauge.results/3\", \"records\": [";
  const struct {
    const char *record, *what;
  } bad[] = {
      {"3", "not an object"},
      {"{}", "\"workload\" is missing"},
      {"{\"workload\": 7}", "\"workload\" is not a string"},
      {"{\"workload\": \"m\", \"backend\": \"b\", \"variant\": \"v\"}", "\"status\" is missing"},
      {"{\"workload\": \"m\", \"backend\": \"b\", \"variant\": \"v\", \"status\": \"fine\"}",
       "\"status\" 'fine' is none of ok, unsupported, skipped, error"},
      {"{\"workload\": \"m\", \"backend\": \"b\", \"variant\": \"v\", \"status\": \"ok\"}",
       "\"device\" is missing"},
      {"{\"workload\": \"m\", \"backend\": \"b\", \"variant\": \"v\", \"status\": \"ok\", "
       "\"device\": \"gpu\"}", "\"device\" is not an object"},
      {"{\"workload\": \"m\", \"backend\": \"b\", \"variant\": \"v\", \"status\": \"ok\", "
       "\"device\": {}}", "\"device.name\" is missing"},
      {"{\"workload\": \"m\", \"backend\": \"b\", \"variant\": \"v\", \"status\": \"ok\", "
       "\"device\": {\"name\": \"d\"}, \"params\": {\"n\": \"64\"}}",
       "parameter \"n\" is not a finite number"},
      {"{\"workload\": \"m\", \"backend\": \"b\", \"variant\": \"v\", \"status\": \"ok\", "
       "\"device\": {\"name\": \"d\"}, \"phases\": {\"init\": {\"ms\": \"fast\"}}}",
       "\"phases.init.ms\" is not a number"},
      {"{\"workload\": \"m\", \"backend\": \"b\", \"variant\": \"v\", \"status\": \"ok\", "
       "\"device\": {\"name\": \"d\"}, \"phases\": {\"init\": {\"ms\": -1}}}",
       "\"phases.init.ms\" is negative"},
      {"{\"workload\": \"m\", \"backend\": \"b\", \"variant\": \"v\", \"status\": \"ok\", "
       "\"device\": {\"name\": \"d\"}, \"phases\": {\"steady\": {\"complete_ms\": 3}}}",
       "\"phases.steady.complete_ms\" is not an object"},
      {"{\"workload\": \"m\", \"backend\": \"b\", \"variant\": \"v\", \"status\": \"ok\", "
       "\"device\": {\"name\": \"d\"}, \"phases\": {\"first\": {\"complete_ms\": 1e999}}}",
       "\"phases.first.complete_ms\" is not a finite number"},
      {"{\"workload\": \"m\", \"backend\": \"b\", \"variant\": \"v\", \"status\": \"ok\", "
       "\"device\": {\"name\": \"d\"}, \"work\": {\"iters_per_run\": 2.5}}",
       "\"work.iters_per_run\" is not a whole number"},
      {"{\"workload\": \"m\", \"backend\": \"b\", \"variant\": \"v\", \"status\": \"ok\", "
       "\"device\": {\"name\": \"d\"}, \"reference\": \"yes\"}",
       "\"reference\" is not true or false"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
    char json[1024];
    snprintf(json, sizeof json, "%s{\"workload\": \"ok\", \"backend\": \"b\", \"variant\": "
             "\"v\", \"status\": \"ok\", \"device\": {\"name\": \"d\"}}, %s]}", good_start,
             bad[i].record);
    /* the good record comes first: the message names the second */
    char what[256];
    snprintf(what, sizeof what, "'bad.json': record 2: %s", bad[i].what);
    parse_fails(json, strlen(json), what);
  }
  const struct {
    const char *json, *what;
  } texts[] = {
      {"", "empty, not a results file"},
      {" \n\t ", "empty, not a results file"},
      {"not json at all", "not valid JSON at line 1, column 1"},
      {"{\"schema\": \"clgauge.results/3\",\n \"records\": [}", "not valid JSON at line 2, "
                                                              "column 14: '}' closes a '['"},
      {"{\"schema\": \"clgauge.results/3\", \"records\": []} trailing", "not valid JSON at line 1"},
      {"]", "'}' closes nothing"},
      {"{\"schema\": \"clgauge.results/3\", \"records\": [", "truncated: the JSON ends at line 1, "
                                                          "column 45 before it is complete"},
      {"{\"schema\": \"clgauge.resu", "truncated"},
      {"{\"schema\": \"[[[{{{\", \"records\": []}", "not a clgauge results file (schema '[[[{{{')"},
  };
  for (size_t i = 0; i < sizeof texts / sizeof texts[0]; ++i) {
    if (strcmp(texts[i].json, "]") == 0) {
      parse_fails("]", 1, "'bad.json': not valid JSON at line 1, column 1: ']' closes nothing");
      continue;
    }
    parse_fails(texts[i].json, strlen(texts[i].json), texts[i].what);
  }
  parse_fails("{\"schema\": \"clgauge.results/3\",\0 \"records\": []}", 46,
              "not a text file (a NUL byte at line 1, column 32)");
}
END_TEST

/* Every prefix of a real results file is refused as truncated, and never crashes. */
START_TEST(test_truncated_every_prefix) {
  spec a[] = {{"matmul", "cl", "tiled", NULL, DEV, PLAT, 64, 2.0, 10, NULL},
              {"linear", "cl", "fused", "pinned", DEV, PLAT, 32, 1.0, NAN, "error"}};
  char *json = results_text(3, a, 2);
  size_t n = strlen(json);
  while (n > 0 && json[n - 1] == '\n') --n; /* the last byte is the final '}' */
  for (size_t len = 1; len < n; ++len) parse_fails(json, len, "truncated");
  cg_results res;
  cg_error err = {0};
  ck_assert_int_eq(cg_results_parse(json, n, "whole.json", &res, &err), CG_OK);
  cg_results_free(&res);
  free(json);
}
END_TEST

/* Random bytes changed in a valid file: the reader accepts it or refuses it with a message,
 * never anything else. */
START_TEST(test_damaged_bytes) {
  spec a[] = {{"matmul", "cl", "tiled", NULL, DEV, PLAT, 64, 2.0, 10, NULL},
              {"mlp", "cpu", "openblas", NULL, "host CPU", "", 8, 1.0, NAN, "skipped"}};
  char *json = results_text(3, a, 2);
  size_t n = strlen(json);
  uint64_t seed = cg_test_seed();
  uint64_t x = seed | 1;
  const char alphabet[] = "{}[]\",:\\0123456789.eE-+ntfaluxyz \n\x01\xff";
  for (int trial = 0; trial < 2000; ++trial) {
    char *copy = malloc(n);
    memcpy(copy, json, n);
    for (int k = 0; k < 3; ++k) {
      x ^= x << 13, x ^= x >> 7, x ^= x << 17;
      copy[x % n] = alphabet[(x >> 32) % (sizeof alphabet - 1)];
    }
    cg_results res;
    cg_error err = {0};
    cg_rc rc = cg_results_parse(copy, n, "damaged.json", &res, &err);
    ck_assert_msg(rc == CG_OK || rc == CG_BAD_INPUT, "seed %llu trial %d: rc %d",
                  (unsigned long long)seed, trial, rc);
    if (rc == CG_OK) {
      for (int r = 0; r < res.count; ++r)
        for (const char *q = res.records[r].device; *q; ++q)
          ck_assert_msg((unsigned char)*q >= 0x20, "seed %llu: a control character in a name",
                        (unsigned long long)seed);
      cg_results_free(&res);
    } else {
      ck_assert_msg(strncmp(err.msg, "'damaged.json': ", 16) == 0 && !strchr(err.msg, '\n'),
                    "seed %llu: %s", (unsigned long long)seed, err.msg);
    }
    free(copy);
  }
  free(json);
}
END_TEST

START_TEST(test_deep) {
  size_t n = 200000;
  char *json = malloc(2 * n + 1);
  memset(json, '[', n);
  memset(json + n, ']', n);
  json[2 * n] = '\0';
  parse_fails(json, 2 * n, "nested deeper than 32 levels (line 1, column 33)");
  /* just within the limit, the file is read and refused for what it is */
  char within[2 * CG_RESULTS_MAX_DEPTH + 1];
  memset(within, '[', CG_RESULTS_MAX_DEPTH);
  memset(within + CG_RESULTS_MAX_DEPTH, ']', CG_RESULTS_MAX_DEPTH);
  within[2 * CG_RESULTS_MAX_DEPTH] = '\0';
  parse_fails(within, strlen(within), "the JSON is not an object");
  /* brackets inside strings do not count */
  text t = {0};
  put(&t, "{\"schema\": \"clgauge.results/3\", \"records\": [], \"x\": \"");
  for (int i = 0; i < 100; ++i) put(&t, "[{\\\"");
  put(&t, "\"}");
  cg_results res;
  parse_ok(t.s, &res);
  ck_assert_int_eq(res.count, 0);
  cg_results_free(&res);
  free(t.s);
  free(json);
}
END_TEST

START_TEST(test_huge) {
  char dir[256], path[512];
  cg_test_tempdir(dir, sizeof dir);
  snprintf(path, sizeof path, "%s/huge.json", dir);
  FILE *f = fopen(path, "w");
  ck_assert_ptr_nonnull(f);
  /* a valid results file padded with whitespace past the limit */
  fputs("{\"schema\": \"clgauge.results/3\", \"records\": [", f);
  static char spaces[1 << 16];
  memset(spaces, ' ', sizeof spaces);
  for (size_t done = 0; done <= CG_RESULTS_MAX_BYTES; done += sizeof spaces)
    fwrite(spaces, 1, sizeof spaces, f);
  fputs("]}", f);
  fclose(f);
  cg_results res;
  cg_error err = {0};
  ck_assert_int_eq(cg_results_read(path, &res, &err), CG_BAD_INPUT);
  ck_assert_msg(strstr(err.msg, "MiB, larger than the 16 MiB a results file may be") &&
                    strstr(err.msg, "huge.json"),
                "%s", err.msg);
  ck_assert_int_eq(cg_results_parse(spaces, CG_RESULTS_MAX_BYTES + 1, "big.json", &res, &err),
                   CG_BAD_INPUT);
  cg_test_rmtree(dir);

  /* more values than a results file holds, in few bytes each */
  size_t n = (size_t)CG_RESULTS_MAX_VALUES + 1;
  char *many = malloc(2 * n + 2);
  many[0] = '[';
  for (size_t i = 0; i < n; ++i) many[1 + 2 * i] = '0', many[2 + 2 * i] = ',';
  many[2 * n] = ']';
  many[2 * n + 1] = '\0';
  parse_fails(many, 2 * n + 1, "more than 1000000 JSON values");
  free(many);

  /* more records than the limit */
  text t = {0};
  put(&t, "{\"schema\": \"clgauge.results/3\", \"records\": [");
  for (int i = 0; i <= CG_RESULTS_MAX_RECORDS; ++i) put(&t, "%s{}", i ? "," : "");
  put(&t, "]}");
  parse_fails(t.s, t.len, "10001 records, more than the 10000 a results file may hold");
  free(t.s);
}
END_TEST

START_TEST(test_not_a_file) {
  char dir[256], path[512];
  cg_test_tempdir(dir, sizeof dir);
  cg_results res;
  cg_error err = {0};
  ck_assert_int_eq(cg_results_read(dir, &res, &err), CG_BAD_INPUT);
  ck_assert_msg(strstr(err.msg, "is a directory, not a results file"), "%s", err.msg);
  snprintf(path, sizeof path, "%s/none.json", dir);
  ck_assert_int_eq(cg_results_read(path, &res, &err), CG_BAD_INPUT);
  ck_assert_msg(strstr(err.msg, "none.json': cannot read: No such file"), "%s", err.msg);
  ck_assert_int_eq(cg_results_read("/dev/zero", &res, &err), CG_BAD_INPUT);
  ck_assert_msg(strstr(err.msg, "'/dev/zero': larger than the 16 MiB"), "%s", err.msg);
  cg_test_rmtree(dir);
}
END_TEST

/* ---- through the command line ---- */

/* Run clgauge with args; stdout and stderr into files of dir. Returns the exit status. */
static int run_clgauge(const char *dir, char **out, char **errout, const char *const *args) {
  char o[512], e[512];
  snprintf(o, sizeof o, "%s/stdout", dir);
  snprintf(e, sizeof e, "%s/stderr", dir);
  pid_t pid = fork();
  ck_assert_int_ge(pid, 0);
  if (pid == 0) {
    int fo = open(o, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    int fe = open(e, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fo < 0 || fe < 0 || dup2(fo, 1) < 0 || dup2(fe, 2) < 0) _exit(126);
    char *argv[16];
    int n = 0;
    argv[n++] = (char *)CLGAUGE_BINARY;
    for (; args[n - 1] && n < 15; ++n) argv[n] = (char *)args[n - 1];
    argv[n] = NULL;
    execv(CLGAUGE_BINARY, argv);
    _exit(127);
  }
  int status = 0;
  ck_assert_int_eq(waitpid(pid, &status, 0), pid);
  ck_assert_msg(WIFEXITED(status), "clgauge did not exit normally");
  size_t size;
  *out = cg_test_read_file(o, &size);
  *errout = cg_test_read_file(e, &size);
  ck_assert_ptr_nonnull(*out);
  ck_assert_ptr_nonnull(*errout);
  return WEXITSTATUS(status);
}

START_TEST(test_threshold_exit_status) {
  char dir[256], a[512], b[512], bad[512];
  cg_test_tempdir(dir, sizeof dir);
  snprintf(a, sizeof a, "%s/a.json", dir);
  snprintf(b, sizeof b, "%s/b.json", dir);
  snprintf(bad, sizeof bad, "%s/bad.json", dir);
  spec ra = {"matmul", "cl", "tiled", NULL, DEV, PLAT, 64, 1.0, 1, NULL};
  spec rb = ra;
  rb.steady = 1.2;
  char *ja = results_text(3, &ra, 1), *jb = results_text(3, &rb, 1);
  cg_test_write_file(a, ja);
  cg_test_write_file(b, jb);
  cg_test_write_file(bad, "{\"schema\": \"clgauge.results/3\", \"records\": [{");
  const struct {
    const char *args[8];
    int status;
    const char *out, *err;
  } cases[] = {
      {{"compare", a, b}, 0, "steady ms/it", ""},
      {{"compare", a, b, "--threshold", "25"}, 0, "No record's steady time per iteration is "
                                                 "more than 25% worse than #1's.", ""},
      {{"compare", a, b, "--threshold", "10"}, 1, "#2 matmul cl/tiled on Test GPU (n=64 "
                                                 "seed=42): 1.2 ms/it against 1 (+20.0%)", ""},
      {{"compare", a, b, "--threshold=10", "--baseline", "2"}, 0, "baseline #2", ""},
      {{"compare", "--format", "csv", a, b, "--threshold", "5"}, 1, ",yes\n", ""},
      {{"compare", a, bad}, 2, "", "clgauge compare: '"},
      {{"compare", a, b, "--threshold", "-5"}, 2, "", "clgauge compare: --threshold -5: out of "
                                                      "range"},
      {{"compare", a, b, "--threshold", "x"}, 2, "", "clgauge compare: --threshold 'x': not a "
                                                     "finite number"},
  };
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; ++k) {
    char *out = NULL, *errout = NULL;
    int status = run_clgauge(dir, &out, &errout, cases[k].args);
    ck_assert_msg(status == cases[k].status, "case %zu: exit %d, not %d\n%s%s", k, status,
                  cases[k].status, out, errout);
    ck_assert_msg(strstr(out, cases[k].out), "case %zu: stdout lacks '%s':\n%s", k, cases[k].out,
                  out);
    ck_assert_msg(strstr(errout, cases[k].err), "case %zu: stderr lacks '%s':\n%s", k,
                  cases[k].err, errout);
    if (status == 2) {
      int lines = 0;
      for (const char *p = errout; *p; ++p) lines += *p == '\n';
      ck_assert_msg(lines == 1 && !out[0], "case %zu: %d lines on stderr:\n%s", k, lines, errout);
    }
    free(out);
    free(errout);
  }
  free(ja);
  free(jb);
  cg_test_rmtree(dir);
}
END_TEST

Suite *cg_compare_suite(void) {
  Suite *s = suite_create("compare");
  TCase *tc = tcase_create("read");
  tcase_add_test(tc, test_phase_names);
  tcase_add_test(tc, test_reads_what_the_report_writes);
  tcase_add_test(tc, test_schema_2);
  tcase_add_test(tc, test_schema_4_interrupted);
  tcase_add_test(tc, test_other_schemas);
  suite_add_tcase(s, tc);

  tc = tcase_create("compare");
  tcase_add_test(tc, test_known_ratios);
  tcase_add_test(tc, test_missing_records);
  tcase_add_test(tc, test_repeated_records_in_order);
  tcase_add_test(tc, test_threshold);
  tcase_add_test(tc, test_devices_side_by_side);
  tcase_add_test(tc, test_formats);
  tcase_add_test(tc, test_implausible_marked);
  suite_add_tcase(s, tc);

  tc = tcase_create("bad files");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, test_malformed);
  tcase_add_test(tc, test_truncated_every_prefix);
  tcase_add_test(tc, test_damaged_bytes);
  tcase_add_test(tc, test_deep);
  tcase_add_test(tc, test_huge);
  tcase_add_test(tc, test_not_a_file);
  suite_add_tcase(s, tc);

  tc = tcase_create("command line");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, test_threshold_exit_status);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return cg_test_main(cg_compare_suite, false); }
