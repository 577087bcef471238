/* Check suite of the report module: records, the JSON schema read back with cJSON, CSV, files
 * written whole or not at all, and the table for people. Needs no OpenCL. */
#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "clgauge/backend.h"
#include "clgauge/report.h"
#include "clgauge/workload.h"
#include "test_util.h"

/* ---- a report with every kind of record ---- */

static const char error_reason[] = "CLBlastSgemm failed: \"odd\", very odd\nsecond line";

static cg_device_info fake_device(void) {
  cg_device_info d;
  memset(&d, 0, sizeof d);
  snprintf(d.name, sizeof d.name, "Test \"Device\", rev 2");
  snprintf(d.vendor, sizeof d.vendor, "Vendor Inc.");
  snprintf(d.platform, sizeof d.platform, "Test Platform");
  snprintf(d.driver_version, sizeof d.driver_version, "1.2.3");
  snprintf(d.version, sizeof d.version, "OpenCL 1.2 test");
  d.type = CL_DEVICE_TYPE_GPU;
  return d;
}

/* Record 0: cpu, ok, host. Record 1: cl/naive, ok, every phase measured. Record 2: clblast,
 * skipped, most phases NAN. Record 3: cl/tiled, error with a reason that needs quoting. */
static void build_report(cg_report *report) {
  char *argv[] = {(char *)"clgauge", (char *)"matmul", (char *)"--n", (char *)"17"};
  cg_report_init(report, 4, argv);
  report->discovery_ms = 3.25;
  cg_device_info dev = fake_device();

  cg_record *r = cg_report_add(report);
  snprintf(r->workload, sizeof r->workload, "matmul");
  snprintf(r->backend, sizeof r->backend, "cpu");
  snprintf(r->variant, sizeof r->variant, "openblas");
  snprintf(r->device, sizeof r->device, "host CPU");
  snprintf(r->compile_kind, sizeof r->compile_kind, "none");
  r->device_type = "CPU";
  r->host_backend = true;
  r->reference = true;
  snprintf(r->group, sizeof r->group, "hidden 64");
  r->iters_per_run = 2;
  r->flops_per_iter = 1000;
  double cpu_runs[] = {4.0, 3.0, 5.0};
  r->runs = calloc(3, sizeof *r->runs);
  for (int i = 0; i < 3; ++i)
    r->runs[i] = (cg_run_sample){.enqueue_ms = cpu_runs[i], .complete_ms = cpu_runs[i],
                                 .device_ms = NAN, .iters = 2};
  r->nruns = 3;
  r->first = r->runs[0];
  cg_stats_compute(cpu_runs + 1, 2, &r->steady_complete);
  cg_stats_compute(cpu_runs + 1, 2, &r->steady_enqueue);
  snprintf(r->device_time_why, sizeof r->device_time_why, "runs on the host");
  cg_record_set_status(r, CG_STATUS_OK, NULL);

  r = cg_report_add(report);
  snprintf(r->workload, sizeof r->workload, "matmul");
  snprintf(r->backend, sizeof r->backend, "cl");
  snprintf(r->variant, sizeof r->variant, "naive");
  cg_record_set_device(r, &dev);
  cg_record_add_param(r, "m", 17);
  cg_record_add_param(r, "n", 31);
  cg_record_add_param(r, "seed", 1099511627779.0); /* 2^40 + 3: exact in a double */
  r->flops_per_iter = 2.0 * 17 * 31 * 7;
  r->bytes_per_iter = 4.0 * (17 * 7 + 7 * 31 + 17 * 31);
  r->iters_per_run = 2;
  r->launches_per_iter = 1;
  r->init_ms = 12.5;
  r->compile_ms = 40.125;
  snprintf(r->compile_kind, sizeof r->compile_kind, "source");
  snprintf(r->driver_cache, sizeof r->driver_cache, "off");
  snprintf(r->kernel.build_options, sizeof r->kernel.build_options, "-DTS=8 -DWPT=1");
  cg_kernel_config_set(&r->kernel, "TS", 16, CG_ORIGIN_DEFAULT);
  cg_kernel_config_set(&r->kernel, "WPT", 1, CG_ORIGIN_DEFAULT);
  cg_kernel_config_set(&r->kernel, "TS", 8, CG_ORIGIN_FALLBACK); /* replaces the first TS */
  snprintf(r->group, sizeof r->group, "hidden 64");
  r->upload_ms = 0.25;
  double runs[] = {9.5, 2.0, 1.5, 2.5};
  r->runs = calloc(4, sizeof *r->runs);
  for (int i = 0; i < 4; ++i)
    r->runs[i] = (cg_run_sample){.enqueue_ms = runs[i] / 10, .complete_ms = runs[i],
                                 .device_ms = runs[i] / 2, .iters = 2};
  r->nruns = 4;
  r->first = r->runs[0];
  double enq[] = {0.2, 0.15, 0.25}, devt[] = {1.0, 0.75, 1.25};
  cg_stats_compute(runs + 1, 3, &r->steady_complete);
  cg_stats_compute(enq, 3, &r->steady_enqueue);
  cg_stats_compute(devt, 3, &r->steady_device);
  r->download_ms = 0.0625;
  r->verify_error = 1.5e-7;
  r->verify_tolerance = 8.3e-7;
  r->host_cpu_ms = 6.0;
  r->host_wall_ms = 6.5;
  cg_record_set_status(r, CG_STATUS_OK, NULL);

  r = cg_report_add(report);
  snprintf(r->workload, sizeof r->workload, "matmul");
  snprintf(r->backend, sizeof r->backend, "clblast");
  snprintf(r->variant, sizeof r->variant, "sgemm");
  snprintf(r->compile_kind, sizeof r->compile_kind, "lazy");
  r->upload_ms = INFINITY; /* not finite either: must not reach the JSON as a number */
  snprintf(r->device_time_why, sizeof r->device_time_why, "driver returns zero profiling timestamps");
  cg_record_set_status(r, CG_STATUS_SKIPPED, "no OpenCL device");

  r = cg_report_add(report);
  snprintf(r->workload, sizeof r->workload, "matmul");
  snprintf(r->backend, sizeof r->backend, "cl");
  snprintf(r->variant, sizeof r->variant, "tiled");
  cg_record_set_device(r, &dev);
  r->init_ms = 7.0;
  cg_record_set_status(r, CG_STATUS_ERROR, "%s", error_reason);
}

/* A report big enough that no file system buffer hides a failed write. */
static void build_big_report(cg_report *report) {
  build_report(report);
  for (int i = 0; i < 200; ++i) {
    cg_record *r = cg_report_add(report);
    ck_assert_ptr_nonnull(r);
    snprintf(r->workload, sizeof r->workload, "matmul");
    snprintf(r->backend, sizeof r->backend, "cl");
    snprintf(r->variant, sizeof r->variant, "v%d", i);
    memset(r->reason, 'r', 500);
    r->reason[500] = '\0';
  }
}

/* ---- records ---- */

START_TEST(test_init_and_add) {
  char *argv[] = {(char *)"clgauge", (char *)"matmul", (char *)"--n", (char *)"3"};
  cg_report report;
  cg_report_init(&report, 4, argv);
  ck_assert_str_eq(report.command, "clgauge matmul --n 3");
  ck_assert_int_eq(report.count, 0);
  ck_assert(isnan(report.discovery_ms));

  cg_record *r = cg_report_add(&report);
  ck_assert_ptr_nonnull(r);
  ck_assert_int_eq(report.count, 1);
  const double fields[] = {r->flops_per_iter, r->bytes_per_iter, r->init_ms, r->compile_ms,
                           r->upload_ms, r->first.enqueue_ms, r->first.complete_ms,
                           r->first.device_ms, r->download_ms, r->verify_error,
                           r->verify_tolerance, r->host_cpu_ms, r->host_wall_ms,
                           r->steady_complete.median, r->steady_enqueue.median,
                           r->steady_device.median};
  for (size_t i = 0; i < sizeof fields / sizeof fields[0]; ++i)
    ck_assert_msg(isnan(fields[i]), "time field %zu of a new record is %g, not NAN", i, fields[i]);
  ck_assert_int_eq(r->launches_per_iter, -1);
  ck_assert_int_eq(r->steady_complete.n, 0);
  ck_assert_int_eq(r->status, CG_STATUS_OK);
  ck_assert_ptr_null(r->runs);

  /* Growing keeps the records already there. */
  for (int i = 1; i < 37; ++i) {
    r = cg_report_add(&report);
    ck_assert_ptr_nonnull(r);
    snprintf(r->variant, sizeof r->variant, "v%d", i);
    r->runs = malloc(sizeof *r->runs); /* freed by cg_report_free */
    r->nruns = 1;
  }
  ck_assert_int_eq(report.count, 37);
  for (int i = 1; i < 37; ++i) {
    char want[24];
    snprintf(want, sizeof want, "v%d", i);
    ck_assert_str_eq(report.records[i].variant, want);
  }
  cg_report_free(&report);
  ck_assert_int_eq(report.count, 0);
  ck_assert_ptr_null(report.records);
}
END_TEST

START_TEST(test_long_command_line) {
  char long_arg[3000];
  memset(long_arg, 'a', sizeof long_arg - 1);
  long_arg[sizeof long_arg - 1] = '\0';
  char *argv[] = {(char *)"clgauge", long_arg, (char *)"--n", (char *)"3"};
  cg_report report;
  cg_report_init(&report, 4, argv);
  /* kept whole, however long */
  ck_assert_uint_eq(strlen(report.command), strlen("clgauge  --n 3") + strlen(long_arg));
  ck_assert_msg(strncmp(report.command, "clgauge aaaa", 12) == 0, "%s", report.command);
  ck_assert_str_eq(report.command + 8 + strlen(long_arg), " --n 3");
  cg_report_free(&report);
}
END_TEST

/* Bytes that are not UTF-8 reach the JSON's command as \xHH, which a strict parser takes; the
 * UTF-8 around them stays as it is. */
START_TEST(test_command_not_utf8) {
  char *argv[] = {(char *)"clgauge",      (char *)"--kernel-dir", (char *)"\xff\xfe" "dir",
                  (char *)"caf\xc3\xa9",    (char *)"\xe2\x82",     (char *)"\xed\xa0\x80",
                  (char *)"\xc0\xaf",       (char *)"\xf0\x9d\x84\x9e", (char *)"\x80"};
  cg_report report;
  cg_report_init(&report, 9, argv);
  const char *want = "clgauge --kernel-dir \\xff\\xfedir caf\xc3\xa9 \\xe2\\x82 "
                     "\\xed\\xa0\\x80 \\xc0\\xaf \xf0\x9d\x84\x9e \\x80";
  ck_assert_str_eq(report.command, want);
  char *text = cg_report_json(&report);
  ck_assert_ptr_nonnull(text);
  for (const unsigned char *p = (const unsigned char *)text; *p; ++p)
    ck_assert_msg(*p != 0xff && *p != 0xfe && *p != 0xc0 && *p != 0xed,
                  "a byte that is not UTF-8 (0x%02x) in the JSON", *p);
  cJSON *root = cJSON_Parse(text);
  ck_assert_ptr_nonnull(root);
  ck_assert_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(root, "command")), want);
  cJSON_Delete(root);
  free(text);
  cg_report_free(&report);
}
END_TEST

/* Names longer than a record's fields are refused naming the limit, never cut short; every
 * registered workload, backend, variant and mode fits. */
START_TEST(test_record_names) {
  cg_error err = {0};
  ck_assert_int_eq(cg_record_check_names("matmul", "cl", "regblock", NULL, NULL, &err), CG_OK);
  /* each at its limit, but the variant one longer */
  ck_assert_int_eq(cg_record_check_names("workload-of-15c", "backend-of-15ch",
                                         "variant-of-23-characters", "mode-of-15-char",
                                         "label-of-19-charact", &err),
                   CG_ERROR);
  ck_assert_msg(strstr(err.msg, "variant name 'variant-of-23-characters'") &&
                    strstr(err.msg, "the 23 characters"),
                "%s", err.msg);
  const char *longer[] = {"workload-of-16ch", "backend-of-16cha", "mode-of-16-chara",
                          "label-of-20-characte"};
  const char *field[] = {"workload", "backend", "mode", "sweep label"};
  const int room[] = {15, 15, 15, 19};
  for (int i = 0; i < 4; ++i) {
    const char *n[4] = {"w", "b", NULL, NULL};
    n[i] = longer[i];
    err = (cg_error){0};
    ck_assert_int_eq(cg_record_check_names(n[0], n[1], "v", n[2], n[3], &err), CG_ERROR);
    char want[96];
    snprintf(want, sizeof want, "%s name '%s' is longer than the %d characters", field[i],
             longer[i], room[i]);
    ck_assert_msg(strstr(err.msg, want), "'%s' not in: %s", want, err.msg);
  }
  for (const cg_impl *const *i = cg_impl_all(); *i; ++i) {
    const cg_workload *w = cg_workload_find((*i)->workload);
    ck_assert_ptr_nonnull(w);
    for (const char *const *v = (*i)->variants; *v; ++v)
      for (int m = -1; m < 0 || (w->modes && w->modes->names[m]); ++m) {
        const char *mode = m < 0 ? (w->modes ? w->modes->host_mode : NULL) : w->modes->names[m];
        /* outside a sweep, and in each of the workload's sweeps */
        const cg_sweep_desc none = {0}, *sweeps = w->sweeps ? w->sweeps : &none;
        for (int k = -1; k < 0 || sweeps[k].option; ++k)
          ck_assert_msg(cg_record_check_names(w->name, (*i)->backend->name, *v, mode,
                                              k < 0 ? NULL : sweeps[k].label, &err) == CG_OK,
                        "%s", err.msg);
      }
  }
}
END_TEST

START_TEST(test_params_and_status) {
  cg_report report;
  cg_report_init(&report, 0, NULL);
  cg_record *r = cg_report_add(&report);
  cg_record_add_param(r, "m", 65);
  cg_record_add_param(r, "k", 129);
  ck_assert_double_eq(cg_record_param(r, "m"), 65);
  ck_assert_double_eq(cg_record_param(r, "k"), 129);
  ck_assert(isnan(cg_record_param(r, "n")));
  /* More than CG_MAX_RECORD_PARAMS are dropped, never written past the array. */
  static const char *names[] = {"p0",  "p1",  "p2",  "p3",  "p4",  "p5",  "p6",  "p7",  "p8",
                                "p9",  "p10", "p11", "p12", "p13", "p14", "p15", "p16", "p17"};
  for (int i = 0; i < 18; ++i) cg_record_add_param(r, names[i], i);
  ck_assert_int_eq(r->nparams, CG_MAX_RECORD_PARAMS);
  ck_assert(isnan(cg_record_param(r, "p17")));

  cg_record_set_status(r, CG_STATUS_ERROR, "failed with %d and %s", 42, "this");
  ck_assert_int_eq(r->status, CG_STATUS_ERROR);
  ck_assert_str_eq(r->reason, "failed with 42 and this");
  cg_record_set_status(r, CG_STATUS_OK, NULL);
  ck_assert_int_eq(r->status, CG_STATUS_OK);
  ck_assert_str_eq(r->reason, "");
  char big[3000];
  memset(big, 'x', sizeof big - 1);
  big[sizeof big - 1] = '\0';
  cg_record_set_status(r, CG_STATUS_UNSUPPORTED, "%s", big);
  ck_assert_uint_eq(strlen(r->reason), sizeof r->reason - 1);

  ck_assert_str_eq(cg_status_name(CG_STATUS_OK), "ok");
  ck_assert_str_eq(cg_status_name(CG_STATUS_UNSUPPORTED), "unsupported");
  ck_assert_str_eq(cg_status_name(CG_STATUS_SKIPPED), "skipped");
  ck_assert_str_eq(cg_status_name(CG_STATUS_ERROR), "error");
  cg_report_free(&report);
}
END_TEST

START_TEST(test_record_set_device) {
  cg_report report;
  cg_report_init(&report, 0, NULL);
  cg_record *r = cg_report_add(&report);
  cg_device_info d = fake_device();
  cg_record_set_device(r, &d);
  ck_assert_str_eq(r->device, d.name);
  ck_assert_str_eq(r->vendor, d.vendor);
  ck_assert_str_eq(r->platform, d.platform);
  ck_assert_str_eq(r->driver, d.driver_version);
  ck_assert_str_eq(r->cl_version, d.version);
  ck_assert_str_eq(r->device_type, "GPU");
  cg_report_free(&report);
}
END_TEST

/* ---- JSON ---- */

static const cJSON *get(const cJSON *obj, const char *path) {
  /* "a.b.c": nested object members */
  char buf[256];
  snprintf(buf, sizeof buf, "%s", path);
  const cJSON *cur = obj;
  for (char *save = NULL, *part = strtok_r(buf, ".", &save); part;
       part = strtok_r(NULL, ".", &save)) {
    ck_assert_msg(cJSON_IsObject(cur), "'%s': not an object above '%s'", path, part);
    cur = cJSON_GetObjectItemCaseSensitive(cur, part);
    ck_assert_msg(cur != NULL, "'%s': no member '%s'", path, part);
  }
  return cur;
}

static void expect_number(const cJSON *obj, const char *path, double want) {
  const cJSON *v = get(obj, path);
  ck_assert_msg(cJSON_IsNumber(v), "'%s' is not a number", path);
  ck_assert_msg(fabs(v->valuedouble - want) <= 1e-12 * fabs(want), "'%s' = %.17g, expected %.17g",
                path, v->valuedouble, want);
}

static void expect_null(const cJSON *obj, const char *path) {
  ck_assert_msg(cJSON_IsNull(get(obj, path)), "'%s' is not null", path);
}

static void expect_string(const cJSON *obj, const char *path, const char *want) {
  const cJSON *v = get(obj, path);
  ck_assert_msg(cJSON_IsString(v), "'%s' is not a string", path);
  ck_assert_msg(strcmp(v->valuestring, want) == 0, "'%s' = '%s', expected '%s'", path,
                v->valuestring, want);
}

static void check_json(const char *text, const cg_report *report) {
  cJSON *root = cJSON_Parse(text);
  ck_assert_msg(root != NULL, "not JSON near: %.80s", cJSON_GetErrorPtr());
  expect_string(root, "schema", CG_REPORT_SCHEMA);
  expect_string(root, "schema", CG_REPORT_SCHEMA);
  expect_string(root, "clgauge_version", CLGAUGE_VERSION);
  expect_string(root, "command", "clgauge matmul --n 17");
  expect_number(root, "discovery_ms", 3.25);
  const cJSON *created = get(root, "created");
  ck_assert(cJSON_IsString(created));
  ck_assert_msg(strlen(created->valuestring) == 20 && created->valuestring[10] == 'T' &&
                    created->valuestring[19] == 'Z',
                "created: '%s'", created->valuestring);

  const cJSON *records = get(root, "records");
  ck_assert(cJSON_IsArray(records));
  ck_assert_int_eq(cJSON_GetArraySize(records), report->count);
  static const char *const phases[] = {"init",  "compile", "upload", "first",   "steady",
                                       "download", "verify", "host", "launches"};
  for (int i = 0; i < report->count; ++i) {
    const cJSON *rec = cJSON_GetArrayItem(records, i);
    const cg_record *r = &report->records[i];
    expect_string(rec, "workload", r->workload);
    expect_string(rec, "backend", r->backend);
    expect_string(rec, "variant", r->variant);
    expect_string(rec, "status", cg_status_name(r->status));
    for (size_t p = 0; p < sizeof phases / sizeof phases[0]; ++p) {
      char path[64];
      snprintf(path, sizeof path, "phases.%s", phases[p]);
      ck_assert_msg(cJSON_IsObject(get(rec, path)), "record %d: %s is not an object", i, path);
    }
    ck_assert(cJSON_IsObject(get(rec, "device")));
    ck_assert(cJSON_IsObject(get(rec, "params")));
    ck_assert(cJSON_IsArray(get(rec, "runs")));
    ck_assert_int_eq(cJSON_GetArraySize(get(rec, "runs")), r->nruns);
    expect_number(rec, "work.iters_per_run", r->iters_per_run);
  }

  /* Record 1: every phase measured. */
  const cJSON *ok = cJSON_GetArrayItem(records, 1);
  expect_null(ok, "reason");
  expect_string(ok, "device.name", "Test \"Device\", rev 2");
  expect_string(ok, "device.vendor", "Vendor Inc.");
  expect_string(ok, "device.platform", "Test Platform");
  expect_string(ok, "device.driver_version", "1.2.3");
  expect_string(ok, "device.opencl_version", "OpenCL 1.2 test");
  expect_string(ok, "device.type", "GPU");
  expect_number(ok, "params.m", 17);
  expect_number(ok, "params.n", 31);
  expect_number(ok, "params.seed", 1099511627779.0);
  expect_number(ok, "work.flops_per_iter", 2.0 * 17 * 31 * 7);
  expect_number(ok, "phases.init.ms", 12.5);
  expect_number(ok, "phases.compile.ms", 40.125);
  expect_string(ok, "phases.compile.kind", "source");
  expect_string(ok, "phases.compile.driver_cache", "off");
  expect_string(ok, "kernel.build_options", "-DTS=8 -DWPT=1");
  const cJSON *kparams = get(ok, "kernel.params");
  ck_assert(cJSON_IsArray(kparams));
  ck_assert_int_eq(cJSON_GetArraySize(kparams), 2);
  expect_string(cJSON_GetArrayItem(kparams, 0), "name", "TS");
  expect_number(cJSON_GetArrayItem(kparams, 0), "value", 8);
  expect_string(cJSON_GetArrayItem(kparams, 0), "origin", "fallback");
  expect_string(cJSON_GetArrayItem(kparams, 1), "origin", "default");
  expect_string(ok, "group", "hidden 64");
  ck_assert(cJSON_IsFalse(get(ok, "reference")));
  ck_assert(cJSON_IsTrue(get(cJSON_GetArrayItem(records, 0), "reference")));
  expect_string(cJSON_GetArrayItem(records, 0), "group", "hidden 64");
  expect_number(ok, "phases.upload.ms", 0.25);
  expect_number(ok, "phases.first.enqueue_ms", 0.95);
  expect_number(ok, "phases.first.complete_ms", 9.5);
  expect_number(ok, "phases.first.device_ms", 4.75);
  expect_number(ok, "phases.steady.complete_ms.n", 3);
  expect_number(ok, "phases.steady.complete_ms.median", 2.0);
  expect_number(ok, "phases.steady.complete_ms.min", 1.5);
  expect_number(ok, "phases.steady.complete_ms.max", 2.5);
  expect_number(ok, "phases.steady.complete_ms.mean", 2.0);
  expect_number(ok, "phases.steady.complete_ms.stddev", 0.5);
  expect_number(ok, "phases.steady.enqueue_ms.median", 0.2);
  expect_number(ok, "phases.steady.device_ms.median", 1.0);
  expect_null(ok, "phases.steady.device_unavailable");
  expect_number(ok, "phases.steady.complete_ms_per_iter", 1.0);
  expect_number(ok, "phases.steady.gflops", 2.0 * 17 * 31 * 7 * 2 / (2.0 * 1e6));
  expect_number(ok, "phases.steady.device_gflops", 2.0 * 17 * 31 * 7 * 2 / (1.0 * 1e6));
  expect_number(ok, "phases.download.ms", 0.0625);
  expect_number(ok, "phases.verify.rel_error", 1.5e-7);
  expect_number(ok, "phases.verify.tolerance", 8.3e-7);
  expect_number(ok, "phases.host.cpu_ms", 6.0);
  expect_number(ok, "phases.host.wall_ms", 6.5);
  expect_number(ok, "phases.launches.per_iter", 1);
  const cJSON *run3 = cJSON_GetArrayItem(get(ok, "runs"), 3);
  expect_number(run3, "enqueue_ms", 0.25);
  expect_number(run3, "complete_ms", 2.5);
  expect_number(run3, "device_ms", 1.25);
  expect_number(run3, "iters", 2);

  /* Record 2: NAN and infinity are null, never a number. */
  const cJSON *skipped = cJSON_GetArrayItem(records, 2);
  expect_string(skipped, "reason", "no OpenCL device");
  const char *nulls[] = {"phases.init.ms", "phases.compile.ms", "phases.upload.ms",
                         "phases.first.enqueue_ms", "phases.first.complete_ms",
                         "phases.first.device_ms", "phases.steady.complete_ms.median",
                         "phases.steady.complete_ms.stddev", "phases.steady.device_ms.median",
                         "phases.steady.gflops", "phases.steady.complete_ms_per_iter",
                         "phases.download.ms", "phases.verify.rel_error",
                         "phases.verify.tolerance", "phases.host.cpu_ms", "phases.host.wall_ms",
                         "phases.launches.per_iter", "work.flops_per_iter",
                         "phases.compile.driver_cache"};
  for (size_t i = 0; i < sizeof nulls / sizeof nulls[0]; ++i) expect_null(skipped, nulls[i]);
  expect_number(skipped, "phases.steady.complete_ms.n", 0);
  expect_string(skipped, "phases.compile.kind", "lazy");
  expect_string(skipped, "phases.steady.device_unavailable",
                "driver returns zero profiling timestamps");

  /* Record 3: the error and its reason, verbatim. */
  const cJSON *error = cJSON_GetArrayItem(records, 3);
  expect_string(error, "status", "error");
  expect_string(error, "reason", error_reason);
  expect_number(error, "phases.init.ms", 7.0);

  /* Record 0: the host reference. */
  const cJSON *cpu = cJSON_GetArrayItem(records, 0);
  expect_string(cpu, "device.name", "host CPU");
  expect_string(cpu, "device.type", "CPU");
  expect_null(cpu, "phases.first.device_ms");
  expect_string(cpu, "phases.steady.device_unavailable", "runs on the host");
  cJSON_Delete(root);
}

START_TEST(test_json) {
  cg_report report;
  build_report(&report);
  char *text = cg_report_json(&report);
  ck_assert_ptr_nonnull(text);
  ck_assert_msg(strstr(text, "nan") == NULL && strstr(text, "NaN") == NULL &&
                    strstr(text, "inf") == NULL && strstr(text, "Infinity") == NULL,
                "a non-number in the JSON");
  check_json(text, &report);
  free(text);
  cg_report_free(&report);
}
END_TEST

START_TEST(test_json_empty_report) {
  cg_report report;
  cg_report_init(&report, 0, NULL);
  char *text = cg_report_json(&report);
  ck_assert_ptr_nonnull(text);
  cJSON *root = cJSON_Parse(text);
  ck_assert_ptr_nonnull(root);
  expect_string(root, "schema", CG_REPORT_SCHEMA);
  expect_null(root, "discovery_ms");
  ck_assert_int_eq(cJSON_GetArraySize(get(root, "records")), 0);
  cJSON_Delete(root);
  free(text);
  cg_report_free(&report);
}
END_TEST

START_TEST(test_write_json_read_back) {
  char dir[256], path[512];
  cg_test_tempdir(dir, sizeof dir);
  snprintf(path, sizeof path, "%s/results.json", dir);
  cg_report report;
  build_report(&report);
  cg_error err = {0};
  ck_assert_msg(cg_report_write_json(&report, path, &err) == CG_OK, "%s", err.msg);
  char *text = cg_test_read_file(path, NULL);
  ck_assert_msg(text != NULL, "%s was not written", path);
  check_json(text, &report);
  ck_assert_msg(text[strlen(text) - 1] == '\n', "the file does not end with a newline");
  free(text);
  ck_assert_int_eq(cg_test_dir_entries(dir), 1); /* no temporary file left beside it */

  /* Writing again replaces the file whole. */
  cg_report_free(&report);
  cg_report_init(&report, 0, NULL);
  ck_assert_msg(cg_report_write_json(&report, path, &err) == CG_OK, "%s", err.msg);
  text = cg_test_read_file(path, NULL);
  cJSON *root = cJSON_Parse(text);
  ck_assert_ptr_nonnull(root);
  ck_assert_int_eq(cJSON_GetArraySize(get(root, "records")), 0);
  cJSON_Delete(root);
  free(text);
  ck_assert_int_eq(cg_test_dir_entries(dir), 1);
  cg_report_free(&report);
  cg_test_rmtree(dir);
}
END_TEST

/* ---- CSV ---- */

/* Split one CSV line (RFC 4180 quoting) into at most max fields; returns the count. */
static int csv_fields(const char *line, char fields[][1100], int max) {
  int n = 0;
  const char *p = line;
  for (;;) {
    ck_assert_msg(n < max, "more than %d fields", max);
    size_t len = 0;
    if (*p == '"') {
      ++p;
      for (;;) {
        ck_assert_msg(*p != '\0', "unterminated quote in: %s", line);
        if (*p == '"' && p[1] == '"') {
          p += 2;
          fields[n][len++] = '"';
        } else if (*p == '"') {
          ++p;
          break;
        } else {
          fields[n][len++] = *p++;
        }
        ck_assert(len < 1099);
      }
      ck_assert_msg(*p == ',' || *p == '\0', "text after a closing quote in: %s", line);
    } else {
      while (*p && *p != ',') {
        ck_assert_msg(*p != '"', "a quote inside an unquoted field: %s", line);
        fields[n][len++] = *p++;
        ck_assert(len < 1099);
      }
    }
    fields[n++][len] = '\0';
    if (*p == '\0') return n;
    ++p; /* the comma */
  }
}

static int column(char header[][1100], int n, const char *name) {
  for (int i = 0; i < n; ++i)
    if (strcmp(header[i], name) == 0) return i;
  ck_abort_msg("no CSV column '%s'", name);
  return -1;
}

START_TEST(test_write_csv_read_back) {
  char dir[256], path[512];
  cg_test_tempdir(dir, sizeof dir);
  snprintf(path, sizeof path, "%s/results.csv", dir);
  cg_report report;
  build_report(&report);
  cg_error err = {0};
  /* record 1 assessed against a probe and flagged, record 2 neither */
  report.records[1].bound.peak_share = 0.25;
  report.records[1].bound.of_bound = 4;
  snprintf(report.records[1].bound.steady, sizeof report.records[1].bound.steady,
           "compute-bound, at 25%% of the FP32 peak");
  snprintf(report.records[1].implausible, sizeof report.records[1].implausible,
           "device time exceeds wall time");
  ck_assert_msg(cg_report_write_csv(&report, path, &err) == CG_OK, "%s", err.msg);
  char *text = cg_test_read_file(path, NULL);
  ck_assert_msg(text != NULL, "%s was not written", path);
  ck_assert_int_eq(cg_test_dir_entries(dir), 1);

  static char header[64][1100], row[64][1100];
  int lines = 0, nheader = 0;
  char *save = NULL;
  ck_assert_msg(text[strlen(text) - 1] == '\n', "no newline at the end");
  for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
    if (lines == 0) {
      nheader = csv_fields(line, header, 64);
      ck_assert_str_eq(header[0], "workload");
    } else {
      int n = csv_fields(line, row, 64);
      ck_assert_msg(n == nheader, "line %d has %d fields, the header %d", lines + 1, n, nheader);
      const cg_record *r = &report.records[lines - 1];
      ck_assert_str_eq(row[column(header, nheader, "workload")], r->workload);
      ck_assert_str_eq(row[column(header, nheader, "backend")], r->backend);
      ck_assert_str_eq(row[column(header, nheader, "variant")], r->variant);
      ck_assert_str_eq(row[column(header, nheader, "status")], cg_status_name(r->status));
      if (lines - 1 == 1) {
        ck_assert_str_eq(row[column(header, nheader, "device")], "Test \"Device\", rev 2");
        ck_assert_str_eq(row[column(header, nheader, "init_ms")], "12.5");
        ck_assert_str_eq(row[column(header, nheader, "compile_kind")], "source");
        ck_assert_str_eq(row[column(header, nheader, "driver_cache")], "off");
        ck_assert_str_eq(row[column(header, nheader, "steady_median_ms")], "2");
        ck_assert_str_eq(row[column(header, nheader, "launches_per_iter")], "1");
        ck_assert_str_eq(row[column(header, nheader, "fp32_share")], "0.25");
        ck_assert_str_eq(row[column(header, nheader, "of_bound")], "4");
        ck_assert_str_eq(row[column(header, nheader, "bound")],
                         "compute-bound, at 25% of the FP32 peak");
        ck_assert_str_eq(row[column(header, nheader, "implausible")],
                         "device time exceeds wall time");
      }
      if (lines - 1 == 2) { /* NAN and infinity: empty fields */
        ck_assert_str_eq(row[column(header, nheader, "init_ms")], "");
        ck_assert_str_eq(row[column(header, nheader, "upload_ms")], "");
        ck_assert_str_eq(row[column(header, nheader, "rel_error")], "");
        ck_assert_str_eq(row[column(header, nheader, "launches_per_iter")], "");
        ck_assert_str_eq(row[column(header, nheader, "fp32_share")], "");
        ck_assert_str_eq(row[column(header, nheader, "bound")], "");
        ck_assert_str_eq(row[column(header, nheader, "implausible")], "");
      }
      if (lines - 1 == 3) /* quotes doubled, the newline flattened: one line per record */
        ck_assert_str_eq(row[column(header, nheader, "reason")],
                         "CLBlastSgemm failed: \"odd\", very odd second line");
    }
    lines++;
  }
  ck_assert_int_eq(lines, 1 + report.count);
  free(text);
  cg_report_free(&report);
  cg_test_rmtree(dir);
}
END_TEST

/* A parameter such as the seed must survive the trip through the CSV: with it a run can be
 * repeated. */
START_TEST(test_csv_params_exact) {
  char dir[256], path[512];
  cg_test_tempdir(dir, sizeof dir);
  snprintf(path, sizeof path, "%s/results.csv", dir);
  cg_report report;
  build_report(&report);
  cg_error err = {0};
  ck_assert_msg(cg_report_write_csv(&report, path, &err) == CG_OK, "%s", err.msg);
  char *text = cg_test_read_file(path, NULL);
  cg_report_free(&report);
  cg_test_rmtree(dir);
  ck_assert_ptr_nonnull(text);
  const char *want = "\"m=17;n=31;seed=1099511627779\"";
  const char *line = strstr(text, "\"naive\"");
  ck_assert_ptr_nonnull(line);
  char got[200];
  snprintf(got, sizeof got, "%.*s", (int)strcspn(line, "\n"), line);
  bool exact = strstr(text, want) != NULL;
  free(text);
  ck_assert_msg(exact, "params m=17, n=31, seed=1099511627779 not written exactly: %s", got);
}
END_TEST

/* Every parameter of a record reaches its CSV field, however many and however long. */
START_TEST(test_csv_params_whole) {
  char dir[256], path[512];
  cg_test_tempdir(dir, sizeof dir);
  snprintf(path, sizeof path, "%s/results.csv", dir);
  cg_report report;
  cg_report_init(&report, 0, NULL);
  cg_record *r = cg_report_add(&report);
  static const char *const names[] = {"parameter_00", "parameter_01", "parameter_02",
                                      "parameter_03", "parameter_04", "parameter_05",
                                      "parameter_06", "parameter_07", "parameter_08",
                                      "parameter_09", "parameter_10", "parameter_11",
                                      "parameter_12", "parameter_13", "parameter_14",
                                      "parameter_15", "parameter_16"};
  for (int i = 0; i < CG_MAX_RECORD_PARAMS; ++i) cg_record_add_param(r, names[i], 0.1 + i);
  cg_error err = {0};
  ck_assert_msg(cg_report_write_csv(&report, path, &err) == CG_OK, "%s", err.msg);
  char *text = cg_test_read_file(path, NULL);
  cg_report_free(&report);
  cg_test_rmtree(dir);
  ck_assert_ptr_nonnull(text);
  char last[64];
  snprintf(last, sizeof last, ";%s=%.17g\"", names[CG_MAX_RECORD_PARAMS - 1],
           0.1 + (CG_MAX_RECORD_PARAMS - 1));
  const bool whole =
      strstr(text, "\"parameter_00=0.10000000000000001;parameter_01=") && strstr(text, last);
  ck_assert_msg(whole, "params cut short (no '%s'):\n%s", last, text);
  free(text);
}
END_TEST

/* ---- paths and whole-or-nothing files ---- */

START_TEST(test_check_path) {
  char dir[256], path[512];
  cg_test_tempdir(dir, sizeof dir);
  snprintf(path, sizeof path, "%s/out.json", dir);
  cg_error err = {0};
  ck_assert_msg(cg_report_check_path(path, &err) == CG_OK, "%s", err.msg);
  ck_assert_msg(cg_test_dir_entries(dir) == 0, "the check left a file behind");

  ck_assert_int_eq(cg_report_check_path("/nonexistent-dir/x.json", &err), CG_BAD_INPUT);
  ck_assert_msg(strstr(err.msg, "'/nonexistent-dir/x.json'") != NULL, "path not named: %s",
                err.msg);
  ck_assert_int_eq(cg_report_check_path("", &err), CG_BAD_INPUT);
  cg_test_rmtree(dir);
}
END_TEST

/* Written through symbolic links: each link stays a link and the file it leads to is replaced
 * whole, through relative links (from the link's own directory), chains and a link whose target
 * does not exist yet; a loop is refused by name. */
START_TEST(test_write_through_links) {
  char dir[256], path[600], target[600], sub[600];
  cg_test_tempdir(dir, sizeof dir);
  snprintf(sub, sizeof sub, "%s/sub", dir);
  ck_assert_int_eq(mkdir(sub, 0755), 0);
  snprintf(target, sizeof target, "%s/sub/real.json", dir);
  cg_test_write_file(target, "old contents\n");
  cg_report report;
  build_report(&report);
  cg_error err = {0};
  struct {
    const char *link, *to, *target; /* link -> to; target: the file that is replaced */
  } cases[] = {
      {"rel.json", "sub/real.json", "sub/real.json"},
      {"sub/again.json", "real.json", "sub/real.json"},        /* relative to sub/ */
      {"chain.json", "rel.json", "sub/real.json"},             /* a link to a link */
      {"dangling.json", "sub/new.json", "sub/new.json"},       /* target made */
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
    snprintf(path, sizeof path, "%s/%s", dir, cases[i].link);
    ck_assert_int_eq(symlink(cases[i].to, path), 0);
    ck_assert_msg(cg_report_write_json(&report, path, &err) == CG_OK, "%s: %s", cases[i].link,
                  err.msg);
    struct stat st;
    ck_assert_msg(lstat(path, &st) == 0 && S_ISLNK(st.st_mode), "%s: no longer a link",
                  cases[i].link);
    snprintf(target, sizeof target, "%s/%s", dir, cases[i].target);
    ck_assert_msg(lstat(target, &st) == 0 && S_ISREG(st.st_mode), "%s: %s not a file",
                  cases[i].link, cases[i].target);
    char *text = cg_test_read_file(target, NULL);
    ck_assert_ptr_nonnull(text);
    cJSON *root = cJSON_Parse(text);
    ck_assert_msg(root != NULL, "%s: %s is not the JSON", cases[i].link, cases[i].target);
    cJSON_Delete(root);
    free(text);
  }
  /* real.json, new.json and the link again.json: no temporary file left */
  ck_assert_int_eq(cg_test_dir_entries(sub), 3);
  snprintf(path, sizeof path, "%s/loop-a.json", dir);
  ck_assert_int_eq(symlink("loop-b.json", path), 0);
  snprintf(target, sizeof target, "%s/loop-b.json", dir);
  ck_assert_int_eq(symlink("loop-a.json", target), 0);
  const cg_rc loop = cg_report_write_json(&report, path, &err);
  cg_report_free(&report);
  cg_test_rmtree(dir);
  ck_assert_msg(loop == CG_BAD_INPUT && strstr(err.msg, "loop-a.json"), "a loop: rc %d, %s",
                loop, err.msg);
}
END_TEST

/* A directory where the results file should go cannot be written; the check before the run must
 * say so, not the write after the whole run. */
START_TEST(test_check_path_directory) {
  char dir[256], path[512];
  cg_test_tempdir(dir, sizeof dir);
  snprintf(path, sizeof path, "%s/out.json", dir);
  ck_assert_int_eq(mkdir(path, 0755), 0);
  cg_error err = {0};
  cg_rc rc = cg_report_check_path(path, &err);
  int left = cg_test_dir_entries(dir);
  cg_test_rmtree(dir);
  ck_assert_msg(rc == CG_BAD_INPUT, "check of '%s', a directory, gave rc %d", path, rc);
  ck_assert_msg(strstr(err.msg, path) != NULL, "path not named: %s", err.msg);
  ck_assert_int_eq(left, 1);
}
END_TEST

START_TEST(test_failed_write_leaves_nothing) {
  cg_report report;
  build_report(&report);
  cg_error err = {0};
  ck_assert_int_ne(cg_report_write_json(&report, "/nonexistent-dir/x.json", &err), CG_OK);
  ck_assert_msg(strstr(err.msg, "/nonexistent-dir/x.json") != NULL, "%s", err.msg);
  ck_assert(!cg_test_exists("/nonexistent-dir/x.json"));
  ck_assert_int_ne(cg_report_write_csv(&report, "/nonexistent-dir/x.csv", &err), CG_OK);

  /* The path is a directory: the temporary file is written, the rename fails, nothing stays. */
  char dir[256], path[512];
  cg_test_tempdir(dir, sizeof dir);
  snprintf(path, sizeof path, "%s/out.json", dir);
  ck_assert_int_eq(mkdir(path, 0755), 0);
  ck_assert_int_ne(cg_report_write_json(&report, path, &err), CG_OK);
  ck_assert_msg(strstr(err.msg, path) != NULL, "%s", err.msg);
  ck_assert_int_ne(cg_report_write_csv(&report, path, &err), CG_OK);
  ck_assert_int_eq(cg_test_dir_entries(dir), 1);
  ck_assert_int_eq(cg_test_dir_entries(path), 0);
  cg_report_free(&report);
  cg_test_rmtree(dir);
}
END_TEST

/* A write that fails half-way (the file size limit stands in for a full disk) keeps the old file
 * whole and leaves no temporary file. Check runs this in its own process. */
START_TEST(test_failed_write_keeps_old_file) {
  char dir[256], json[512], csv[512];
  cg_test_tempdir(dir, sizeof dir);
  snprintf(json, sizeof json, "%s/out.json", dir);
  snprintf(csv, sizeof csv, "%s/out.csv", dir);
  cg_test_write_file(json, "old results\n");
  cg_test_write_file(csv, "old,csv\n");
  cg_report report;
  build_big_report(&report);

  signal(SIGXFSZ, SIG_IGN);
  struct rlimit limit = {4096, 4096};
  ck_assert_int_eq(setrlimit(RLIMIT_FSIZE, &limit), 0);
  cg_error err = {0};
  ck_assert_msg(cg_report_write_json(&report, json, &err) != CG_OK,
                "a write over the file size limit succeeded");
  ck_assert_msg(strstr(err.msg, json) != NULL, "%s", err.msg);
  ck_assert_msg(cg_report_write_csv(&report, csv, &err) != CG_OK,
                "a CSV write over the file size limit succeeded");

  char *text = cg_test_read_file(json, NULL);
  ck_assert_str_eq(text, "old results\n");
  free(text);
  text = cg_test_read_file(csv, NULL);
  ck_assert_str_eq(text, "old,csv\n");
  free(text);
  ck_assert_msg(cg_test_dir_entries(dir) == 2, "a temporary file was left behind");
  cg_report_free(&report);
  cg_test_rmtree(dir);
}
END_TEST

/* Results files are ordinary files: their permissions follow the umask like any other file the
 * user creates (a temporary file from mkstemp is 0600 until told otherwise). */
START_TEST(test_written_file_mode) {
  char dir[256], path[512];
  cg_test_tempdir(dir, sizeof dir);
  snprintf(path, sizeof path, "%s/out.json", dir);
  umask(022);
  cg_report report;
  build_report(&report);
  cg_error err = {0};
  cg_rc rc_json = cg_report_write_json(&report, path, &err);
  struct stat st_json = {0}, st_csv = {0};
  int stat_json = stat(path, &st_json);
  snprintf(path, sizeof path, "%s/out.csv", dir);
  cg_rc rc_csv = cg_report_write_csv(&report, path, &err);
  int stat_csv = stat(path, &st_csv);
  cg_report_free(&report);
  cg_test_rmtree(dir);
  ck_assert(rc_json == CG_OK && rc_csv == CG_OK && stat_json == 0 && stat_csv == 0);
  ck_assert_msg((st_json.st_mode & 0777) == 0644,
                "a JSON results file has mode %03o, expected 644 under umask 022",
                (unsigned)(st_json.st_mode & 0777));
  ck_assert_msg((st_csv.st_mode & 0777) == 0644,
                "a CSV results file has mode %03o, expected 644 under umask 022",
                (unsigned)(st_csv.st_mode & 0777));
}
END_TEST

/* ---- the table ---- */

START_TEST(test_print_table) {
  cg_report report;
  build_report(&report);
  FILE *f = tmpfile();
  ck_assert_ptr_nonnull(f);
  cg_report_print_table(&report, f);
  long len = ftell(f);
  ck_assert_int_gt(len, 0);
  rewind(f);
  char *text = calloc(1, (size_t)len + 1);
  ck_assert_int_eq(fread(text, 1, (size_t)len, f), (size_t)len);
  fclose(f);
  const char *want[] = {"backend", "variant", "status", "matmul on host",
                        "matmul on Test \"Device\", rev 2", "openblas", "naive", "sgemm", "tiled",
                        "notes:", "clblast/sgemm: skipped: no OpenCL device",
                        "cl/tiled: error: CLBlastSgemm failed", "where the time goes:",
                        "cl/naive: run 0 took", "than cpu"};
  for (size_t i = 0; i < sizeof want / sizeof want[0]; ++i)
    ck_assert_msg(strstr(text, want[i]) != NULL, "table lacks '%s':\n%s", want[i], text);
  /* Rows align with their header: "variant" and "status" start in the same column as the
   * record's variant and status. */
  const char *block = strstr(text, "matmul on Test");
  const char *head = strstr(block, "\nbackend");
  const char *row = strstr(block, "\ncl ");
  ck_assert_msg(head && row, "no header or cl row in:\n%s", text);
  ck_assert_int_eq(strstr(head, "variant") - head, strstr(row, "naive") - row);
  ck_assert_int_eq(strstr(head, "status") - head, strstr(row, "ok") - row);
  free(text);
  cg_report_free(&report);
}
END_TEST

/* A record of `nruns` runs of 2 iterations, run 0 first; steady statistics over `steady` of the
 * later runs (0: none, as with --runs 1, one epoch, or --print-every >= --iters). */
static cg_record *timed_record(cg_report *report, const char *backend, bool host, int nruns,
                               int steady) {
  cg_record *r = cg_report_add(report);
  snprintf(r->workload, sizeof r->workload, "mlp");
  snprintf(r->backend, sizeof r->backend, "%s", backend);
  snprintf(r->variant, sizeof r->variant, host ? "openblas" : "fused");
  snprintf(r->device, sizeof r->device, host ? "host CPU" : "Test GPU");
  snprintf(r->compile_kind, sizeof r->compile_kind, host ? "none" : "source");
  r->host_backend = host;
  r->reference = host;
  r->iters_per_run = 2;
  r->init_ms = host ? 0 : 5;
  r->compile_ms = host ? NAN : 20;
  r->upload_ms = 0.5;
  r->runs = calloc((size_t)nruns, sizeof *r->runs);
  double times[8];
  for (int i = 0; i < nruns; ++i) {
    times[i] = 3.0 + i;
    r->runs[i] = (cg_run_sample){.enqueue_ms = 0.1, .complete_ms = times[i], .device_ms = NAN,
                                 .iters = i == nruns - 1 && steady < nruns - 1 ? 1 : 2};
  }
  r->nruns = nruns;
  r->first = r->runs[0];
  cg_stats_compute(times + 1, steady, &r->steady_complete);
  cg_stats_compute(times + 1, steady, &r->steady_enqueue);
  cg_record_set_status(r, CG_STATUS_OK, NULL);
  return r;
}

static char *table_text(const cg_report *report) {
  FILE *f = tmpfile();
  ck_assert_ptr_nonnull(f);
  cg_report_print_table(report, f);
  long len = ftell(f);
  rewind(f);
  char *text = calloc(1, (size_t)len + 1);
  ck_assert_int_eq(fread(text, 1, (size_t)len, f), (size_t)len);
  fclose(f);
  return text;
}

/* Without steady runs the summary says so, and compares nothing with an empty median. */
START_TEST(test_print_table_no_steady_runs) {
  cg_report report;
  cg_report_init(&report, 0, NULL);
  timed_record(&report, "cpu", true, 1, 0);
  timed_record(&report, "cl", false, 1, 0);       /* --runs 1 */
  timed_record(&report, "clblast", false, 2, 0);  /* run 0 and a shorter last run */
  char *text = table_text(&report);
  ck_assert_msg(!cg_test_contains_nocase(text, "nan"), "NaN in the table:\n%s", text);
  ck_assert_msg(strstr(text, "cl/fused: run 0 took 28.5 ms") &&
                    strstr(text, "no steady runs (run 0 was the only run)"),
                "no 'no steady runs' for --runs 1:\n%s", text);
  ck_assert_msg(strstr(text, "no steady runs (after run 0 only a shorter last run)"),
                "no 'no steady runs' after a shorter last run:\n%s", text);
  ck_assert_msg(!strstr(text, "faster than") && !strstr(text, "slower than") &&
                    !strstr(text, "costs as much"),
                "compared with no steady runs:\n%s", text);
  free(text);
  cg_report_free(&report);

  /* steady runs here, none in the reference: said, and no ratio */
  cg_report_init(&report, 0, NULL);
  timed_record(&report, "cpu", true, 1, 0);
  timed_record(&report, "cl", false, 4, 3);
  text = table_text(&report);
  ck_assert_msg(!cg_test_contains_nocase(text, "nan"), "NaN in the table:\n%s", text);
  ck_assert_msg(strstr(text, "steady 2.5 ms per iteration (cpu had no steady runs to compare "
                             "with)"),
                "reference without steady runs not said:\n%s", text);
  free(text);
  cg_report_free(&report);

  /* the other way round: run 0 against the reference's steady time still holds */
  cg_report_init(&report, 0, NULL);
  timed_record(&report, "cpu", true, 4, 3);
  timed_record(&report, "cl", false, 1, 0);
  text = table_text(&report);
  ck_assert_msg(!cg_test_contains_nocase(text, "nan"), "NaN in the table:\n%s", text);
  ck_assert_msg(strstr(text, "no steady runs (run 0 was the only run); run 0 costs as much as "
                             "11 cpu iterations"),
                "run 0 not set against the reference:\n%s", text);
  free(text);
  cg_report_free(&report);
}
END_TEST

/* pinned's summary says when the host's gather per batch outlasts the device's compute (the
 * device then waits for the host); not when the compute is longer, nor for pageable, whose
 * batches are gathered one at a time by design. */
START_TEST(test_print_table_gather_bound) {
  const struct {
    const char *mode;
    double gather, compute;
    bool said;
  } cases[] = {{"pinned", 0.0898, 0.0552, true},
               {"pinned", 0.0039, 0.0053, false},
               {"pageable", 0.0898, 0.0552, false}};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
    cg_report report;
    cg_report_init(&report, 0, NULL);
    timed_record(&report, "cpu", true, 4, 3);
    cg_record *r = timed_record(&report, "cl", false, 4, 3);
    snprintf(r->workload, sizeof r->workload, "linear");
    snprintf(r->mode, sizeof r->mode, "%s", cases[i].mode);
    r->batch_upload_ms = 0.039;
    r->batch_compute_ms = cases[i].compute;
    r->upload_hidden = 0;
    r->batch_gather_ms = cases[i].gather;
    char *text = table_text(&report);
    const bool said = strstr(text, "the device waits for the host's gather") != NULL;
    ck_assert_msg(said == cases[i].said, "%s, gather %g ms, compute %g ms: %s in\n%s",
                  cases[i].mode, cases[i].gather, cases[i].compute,
                  said ? "said" : "not said", text);
    ck_assert_msg(strstr(text, "gathering its rows"), "no gather in:\n%s", text);
    free(text);
    cg_report_free(&report);
  }
}
END_TEST

/* A curve a budget cut short ends in "-", never in NaN, and every row of the longest curve is
 * printed even when a shorter one comes first. */
START_TEST(test_print_table_losses_cut_short) {
  cg_report report;
  cg_report_init(&report, 0, NULL);
  const int lengths[] = {2, 5};
  for (int i = 0; i < 2; ++i) {
    cg_record *r = timed_record(&report, i == 0 ? "cl" : "clblast", false, 3, 2);
    r->loss_unit = "iteration";
    r->loss_every = 1000;
    r->losses = calloc((size_t)lengths[i], sizeof *r->losses);
    ck_assert_ptr_nonnull(r->losses);
    for (int k = 0; k < lengths[i]; ++k) r->losses[k] = 100.0 / (k + 1) + i;
    r->nlosses = lengths[i];
  }
  char *text = table_text(&report);
  const char *block = strstr(text, "loss of mlp");
  ck_assert_msg(block != NULL, "no loss block:\n%s", text);
  ck_assert_msg(!cg_test_contains_nocase(block, "nan"), "NaN in the loss block:\n%s", block);
  ck_assert_msg(strstr(block, "\n      4000") != NULL, "the longest curve's last row is missing:\n%s",
                block);
  const char *row = strstr(block, "\n      2000");
  ck_assert_msg(row && strstr(row, "-") && strstr(row, "34.3333333"),
                "a cut curve's row lacks its '-' or the other's loss:\n%s", block);
  free(text);
  cg_report_free(&report);
}
END_TEST

Suite *cg_report_suite(void) {
  Suite *s = suite_create("report");
  TCase *tc = tcase_create("records");
  tcase_add_test(tc, test_init_and_add);
  tcase_add_test(tc, test_long_command_line);
  tcase_add_test(tc, test_command_not_utf8);
  tcase_add_test(tc, test_record_names);
  tcase_add_test(tc, test_params_and_status);
  tcase_add_test(tc, test_record_set_device);
  suite_add_tcase(s, tc);

  tc = tcase_create("json");
  tcase_add_test(tc, test_json);
  tcase_add_test(tc, test_json_empty_report);
  tcase_add_test(tc, test_write_json_read_back);
  suite_add_tcase(s, tc);

  tc = tcase_create("csv");
  tcase_add_test(tc, test_write_csv_read_back);
  tcase_add_test(tc, test_csv_params_exact);
  tcase_add_test(tc, test_csv_params_whole);
  suite_add_tcase(s, tc);

  tc = tcase_create("files");
  tcase_add_test(tc, test_check_path);
  tcase_add_test(tc, test_check_path_directory);
  tcase_add_test(tc, test_write_through_links);
  tcase_add_test(tc, test_failed_write_leaves_nothing);
  tcase_add_test(tc, test_failed_write_keeps_old_file);
  tcase_add_test(tc, test_written_file_mode);
  suite_add_tcase(s, tc);

  tc = tcase_create("table");
  tcase_add_test(tc, test_print_table);
  tcase_add_test(tc, test_print_table_no_steady_runs);
  tcase_add_test(tc, test_print_table_gather_bound);
  tcase_add_test(tc, test_print_table_losses_cut_short);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return cg_test_main(cg_report_suite, false); }
