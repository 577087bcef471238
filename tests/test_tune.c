/* Check suite of tuning: the size classes; the tuning file written and read back, and refused
 * when malformed, of another schema or with bad entries; the search on every device (the best no
 * slower than the defaults in the same search, every setting it keeps one of the space's); and
 * the engine applying an entry (origin tuned), the command line winning over it, and other size
 * classes, devices and variants left at their defaults. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clgauge/backend.h"
#include "clgauge/device.h"
#include "clgauge/engine.h"
#include "clgauge/kernel_config.h"
#include "clgauge/report.h"
#include "clgauge/tune.h"
#include "clgauge/workload.h"
#include "test_util.h"

START_TEST(test_size_class) {
  /* matmul n: 2 n^3 FLOPs per product */
  ck_assert_int_eq(cg_size_class(2.0 * 1000 * 1000 * 1000), 15);
  ck_assert_int_eq(cg_size_class(2.0 * 1024 * 1024 * 1024), 15);
  ck_assert_int_eq(cg_size_class(2.0 * 1290 * 1290 * 1290), 15);
  ck_assert_int_eq(cg_size_class(2.0 * 1291 * 1291 * 1291), 16);
  ck_assert_int_eq(cg_size_class(2.0 * 4096.0 * 4096 * 4096), 18);
  ck_assert_int_eq(cg_size_class(4), 1);
  ck_assert_int_eq(cg_size_class(3.99), 0);
  ck_assert_int_eq(cg_size_class(0), 0);
  ck_assert_int_eq(cg_size_class(NAN), 0);
}
END_TEST

static cg_tuning_entry entry(const char *device, const char *variant, int size_class, int ts) {
  cg_tuning_entry e = {.size_class = size_class, .best_ms = 1.5, .default_ms = 2.5,
                       .candidates = 4};
  snprintf(e.device, sizeof e.device, "%s", device);
  snprintf(e.platform, sizeof e.platform, "Some Platform");
  snprintf(e.driver, sizeof e.driver, "1.2.3");
  snprintf(e.workload, sizeof e.workload, "matmul");
  snprintf(e.backend, sizeof e.backend, "cl");
  snprintf(e.variant, sizeof e.variant, "%s", variant);
  snprintf(e.shape, sizeof e.shape, "n=1000");
  snprintf(e.date, sizeof e.date, "2026-12-03T12:00:00Z");
  cg_error err = {0};
  ck_assert_int_eq(cg_kernel_overrides_add(&e.params, "TS", ts, CG_ORIGIN_TUNED, &err), CG_OK);
  return e;
}

static cg_device_info device_named(const char *name) {
  cg_device_info d;
  memset(&d, 0, sizeof d);
  snprintf(d.name, sizeof d.name, "%s", name);
  snprintf(d.platform, sizeof d.platform, "Some Platform");
  snprintf(d.driver_version, sizeof d.driver_version, "1.2.3");
  return d;
}

START_TEST(test_file_round_trip) {
  char dir[256], path[320];
  cg_test_tempdir(dir, sizeof dir);
  snprintf(path, sizeof path, "%s/tuning.json", dir);
  cg_error err = {0};
  cg_tuning t = {0};
  /* no file yet: nothing tuned, not an error */
  ck_assert_int_eq(cg_tuning_load(path, &t, &err), CG_OK);
  ck_assert_int_eq(t.count, 0);
  cg_tuning_entry a = entry("GPU A", "regblock", 15, 16), b = entry("GPU A", "tiled", 15, 8),
                  c = entry("GPU B", "regblock", 15, 32);
  c.default_ms = NAN; /* the defaults failed on that device */
  ck_assert_int_eq(cg_tuning_put(&t, &a, &err), CG_OK);
  ck_assert_int_eq(cg_tuning_put(&t, &b, &err), CG_OK);
  ck_assert_int_eq(cg_tuning_put(&t, &c, &err), CG_OK);
  /* the same key replaces */
  cg_tuning_entry a2 = entry("GPU A", "regblock", 15, 4);
  ck_assert_int_eq(cg_tuning_put(&t, &a2, &err), CG_OK);
  ck_assert_int_eq(t.count, 3);
  ck_assert_int_eq(cg_tuning_save(path, &t, &err), CG_OK);
  cg_tuning back = {0};
  ck_assert_msg(cg_tuning_load(path, &back, &err) == CG_OK, "%s", err.msg);
  ck_assert_int_eq(back.count, 3);
  const cg_device_info ga = device_named("GPU A"), gb = device_named("GPU B");
  const cg_tuning_entry *e = cg_tuning_find(&back, &ga, "matmul", "cl", "regblock", 15);
  ck_assert_ptr_nonnull(e);
  ck_assert_int_eq(e->params.count, 1);
  ck_assert_str_eq(e->params.items[0].name, "TS");
  ck_assert_int_eq(e->params.items[0].value, 4);
  ck_assert_int_eq(e->params.items[0].origin, CG_ORIGIN_TUNED);
  ck_assert_double_eq(e->best_ms, 1.5);
  ck_assert_double_eq(e->default_ms, 2.5);
  ck_assert_int_eq(e->candidates, 4);
  ck_assert_str_eq(e->shape, "n=1000");
  e = cg_tuning_find(&back, &gb, "matmul", "cl", "regblock", 15);
  ck_assert_ptr_nonnull(e);
  ck_assert(isnan(e->default_ms));
  ck_assert_int_eq(e->params.items[0].value, 32);
  /* every other part of the key misses */
  ck_assert_ptr_null(cg_tuning_find(&back, &gb, "matmul", "cl", "tiled", 15));
  ck_assert_ptr_null(cg_tuning_find(&back, &ga, "matmul", "cl", "regblock", 16));
  ck_assert_ptr_null(cg_tuning_find(&back, &ga, "mlp", "cl", "regblock", 15));
  ck_assert_ptr_null(cg_tuning_find(&back, &ga, "matmul", "clblast", "regblock", 15));
  cg_device_info other_driver = ga;
  snprintf(other_driver.driver_version, sizeof other_driver.driver_version, "1.2.4");
  ck_assert_ptr_null(cg_tuning_find(&back, &other_driver, "matmul", "cl", "regblock", 15));
  ck_assert_ptr_null(cg_tuning_find(NULL, &ga, "matmul", "cl", "regblock", 15));
  cg_tuning_free(&back);
  cg_tuning_free(&t);
  cg_test_rmtree(dir);
}
END_TEST

/* Each malformed file is refused with a message naming the path and what is wrong. */
START_TEST(test_file_refused) {
  static const struct {
    const char *text, *message;
  } cases[] = {
      {"", "is not valid JSON"},
      {"{\"schema\": \"clgauge.tuning/1\", \"entries\": [", "is not valid JSON"},
      {"[1, 2]", "has no \"schema\""},
      {"{\"schema\": \"clgauge.tuning/9\", \"entries\": []}", "has schema 'clgauge.tuning/9'"},
      {"{\"schema\": \"clgauge.tuning/1\", \"entries\": {}}", "\"entries\" is not a list"},
      {"{\"schema\": \"clgauge.tuning/1\", \"entries\": [3]}", "entry 0 is not an object"},
      {"{\"schema\": \"clgauge.tuning/1\", \"entries\": [{\"device\": 1}]}",
       "entry 0: \"device\" missing"},
  };
  char dir[256], path[320];
  cg_test_tempdir(dir, sizeof dir);
  snprintf(path, sizeof path, "%s/tuning.json", dir);
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
    cg_test_write_file(path, cases[i].text);
    cg_tuning t = {0};
    cg_error err = {0};
    ck_assert_int_eq(cg_tuning_load(path, &t, &err), CG_BAD_INPUT);
    ck_assert_msg(strstr(err.msg, path) && strstr(err.msg, cases[i].message), "case %zu: %s", i,
                  err.msg);
    ck_assert_int_eq(t.count, 0);
  }
  /* a good entry, then each field made bad in turn */
  cg_tuning good = {0};
  cg_error err = {0};
  cg_tuning_entry e = entry("GPU", "regblock", 15, 16);
  ck_assert_int_eq(cg_tuning_put(&good, &e, &err), CG_OK);
  ck_assert_int_eq(cg_tuning_save(path, &good, &err), CG_OK);
  cg_tuning_free(&good);
  size_t size = 0;
  char *text = cg_test_read_file(path, &size);
  static const struct {
    const char *from, *to, *message;
  } edits[] = {
      {"\"size_class\":\t15", "\"size_class\":\t1.5", "\"size_class\" is not a whole number"},
      {"\"size_class\":\t15", "\"size_class\":\t-1", "\"size_class\" is not a whole number"},
      {"\"candidates\":\t4", "\"candidates\":\t0", "\"candidates\" is not a whole number"},
      {"\"TS\":\t16", "\"TS\":\t\"16\"", "parameter \"TS\" is not a whole number"},
      {"\"TS\":\t16", "\"TS\":\t16.5", "parameter \"TS\" is not a whole number"},
      {"\"TS\":\t16", "\"ABCDEFGHIJKLMNOPQ\":\t16", "names have 1..15 characters"},
      {"\"best_ms\":\t1.5", "\"best_ms\":\t\"fast\"", "\"best_ms\" or \"default_ms\""},
  };
  for (size_t i = 0; i < sizeof edits / sizeof edits[0]; ++i) {
    const char *at = strstr(text, edits[i].from);
    ck_assert_msg(at, "edit %zu: '%s' not in:\n%s", i, edits[i].from, text);
    char edited[8192];
    snprintf(edited, sizeof edited, "%.*s%s%s", (int)(at - text), text, edits[i].to,
             at + strlen(edits[i].from));
    cg_test_write_file(path, edited);
    cg_tuning t = {0};
    ck_assert_int_eq(cg_tuning_load(path, &t, &err), CG_BAD_INPUT);
    ck_assert_msg(strstr(err.msg, edits[i].message), "edit %zu: %s", i, err.msg);
  }
  free(text);
  /* a directory where the file should be */
  cg_tuning t = {0};
  ck_assert_int_eq(cg_tuning_load(dir, &t, &err), CG_BAD_INPUT);
  ck_assert_msg(strstr(err.msg, "is not a regular file"), "%s", err.msg);
  cg_test_rmtree(dir);
}
END_TEST

/* The search of saxpy's work-group size on each device: the defaults first, the best no slower
 * than them in this search, its setting one of the space's values, and the entry keyed to the
 * device and the job's size class. */
START_TEST(test_search) {
  cg_device_list list;
  cg_test_devices(&list);
  const cg_device_info *info = &list.items[_i];
  cg_job job;
  cg_job_init(&job, cg_workload_find("saxpy"));
  cg_error err = {0};
  ck_assert_int_eq(cg_params_set(&job.params, "n", 4099, &err), CG_OK);
  ck_assert_int_eq(cg_params_set(&job.params, "runs", 3, &err), CG_OK);
  const cg_selection sel = {.seed = cg_test_seed()};
  cg_tuning_entry e;
  const cg_rc rc = cg_tune_variant(&job, &sel, info, "cl", "float4", 30, NULL, NULL, &e, &err);
  ck_assert_msg(rc == CG_OK, "%s: %s", info->name, err.msg);
  ck_assert_str_eq(e.device, info->name);
  ck_assert_str_eq(e.driver, info->driver_version);
  ck_assert_str_eq(e.workload, "saxpy");
  ck_assert_str_eq(e.variant, "float4");
  ck_assert_int_eq(e.size_class, cg_size_class(job.workload->flops_per_iter(&job.params)));
  ck_assert_int_ge(e.candidates, 2);
  ck_assert(isfinite(e.best_ms) && e.best_ms > 0);
  ck_assert_msg(isfinite(e.default_ms) && e.best_ms <= e.default_ms, "best %g, defaults %g",
                e.best_ms, e.default_ms);
  ck_assert_int_eq(e.params.count, 1);
  ck_assert_str_eq(e.params.items[0].name, "WG");
  const cg_tune_space *space =
      cg_impl_tune_space(cg_impl_find(cg_backend_find("cl"), "saxpy"), "float4");
  ck_assert_ptr_nonnull(space);
  bool listed = false;
  for (int k = 0; k < space->axes[0].count; ++k)
    listed |= space->axes[0].values[k] == e.params.items[0].value;
  /* the defaults' own choice is kept when nothing beat it */
  ck_assert_msg(listed || e.best_ms == e.default_ms, "WG=%d", e.params.items[0].value);
  ck_assert_int_eq(e.params.items[0].origin, CG_ORIGIN_TUNED);
  /* nothing to tune */
  ck_assert_int_eq(cg_tune_variant(&job, &sel, info, "clblast", "float4", 1, NULL, NULL, &e, &err),
                   CG_UNSUPPORTED);
  cg_device_list_free(&list);
}
END_TEST

/* The kernel parameter a record of saxpy's cl backend ran with, and its origin. */
static int record_wg(const cg_device_info *info, const cg_tuning *tuning,
                     const cg_kernel_overrides *overrides, int n, cg_origin *origin) {
  cg_job job;
  cg_job_init(&job, cg_workload_find("saxpy"));
  cg_error err = {0};
  ck_assert_int_eq(cg_params_set(&job.params, "n", n, &err), CG_OK);
  ck_assert_int_eq(cg_params_set(&job.params, "runs", 1, &err), CG_OK);
  static const char *const backends[] = {"cl", NULL};
  const cg_selection sel = {.backends = backends, .seed = cg_test_seed(), .overrides = overrides,
                            .tuning = tuning};
  cg_report report;
  cg_report_init(&report, 0, NULL);
  ck_assert_int_eq(cg_engine_run(&job, &sel, info, &report, NULL, NULL, &err), CG_OK);
  ck_assert_int_eq(report.count, 1);
  const cg_record *r = &report.records[0];
  ck_assert_msg(r->status == CG_STATUS_OK, "%s", r->reason);
  int wg = -1;
  for (int k = 0; k < r->kernel.nparams; ++k)
    if (strcmp(r->kernel.params[k].name, "WG") == 0) {
      wg = r->kernel.params[k].value;
      *origin = r->kernel.params[k].origin;
    }
  cg_report_free(&report);
  return wg;
}

START_TEST(test_engine_applies) {
  cg_device_list list;
  cg_test_devices(&list);
  const cg_device_info *info = &list.items[_i];
  const int n = 5003;
  cg_origin origin = CG_ORIGIN_OVERRIDE, dflt_origin = CG_ORIGIN_OVERRIDE;
  /* the implementation's own choice: default, or a fallback where the device allows less */
  const int dflt = record_wg(info, NULL, NULL, n, &dflt_origin);
  ck_assert(dflt_origin == CG_ORIGIN_DEFAULT || dflt_origin == CG_ORIGIN_FALLBACK);
  /* a setting unlike the default, and one the device takes */
  const int tuned = dflt > 1 ? dflt / 2 : 2;
  cg_tuning_entry e = {.best_ms = 1, .default_ms = 2, .candidates = 2};
  snprintf(e.device, sizeof e.device, "%s", info->name);
  snprintf(e.platform, sizeof e.platform, "%s", info->platform);
  snprintf(e.driver, sizeof e.driver, "%s", info->driver_version);
  snprintf(e.workload, sizeof e.workload, "saxpy");
  snprintf(e.backend, sizeof e.backend, "cl");
  snprintf(e.variant, sizeof e.variant, "float4");
  cg_job job;
  cg_job_init(&job, cg_workload_find("saxpy"));
  cg_error err = {0};
  ck_assert_int_eq(cg_params_set(&job.params, "n", n, &err), CG_OK);
  e.size_class = cg_size_class(job.workload->flops_per_iter(&job.params));
  ck_assert_int_eq(cg_kernel_overrides_add(&e.params, "WG", tuned, CG_ORIGIN_TUNED, &err), CG_OK);
  /* a parameter the kernel does not take is not passed on */
  ck_assert_int_eq(cg_kernel_overrides_add(&e.params, "TS", 3, CG_ORIGIN_TUNED, &err), CG_OK);
  cg_tuning t = {0};
  ck_assert_int_eq(cg_tuning_put(&t, &e, &err), CG_OK);

  ck_assert_int_eq(record_wg(info, &t, NULL, n, &origin), tuned);
  ck_assert_int_eq(origin, CG_ORIGIN_TUNED);
  /* the command line wins */
  cg_kernel_overrides cli = {0};
  ck_assert_int_eq(cg_kernel_overrides_parse(&cli, "WG=1", &err), CG_OK);
  ck_assert_int_eq(record_wg(info, &t, &cli, n, &origin), 1);
  ck_assert_int_eq(origin, CG_ORIGIN_OVERRIDE);
  /* another size class: the default */
  ck_assert_int_eq(record_wg(info, &t, NULL, 64 * n, &origin), dflt);
  ck_assert_int_eq(origin, dflt_origin);
  /* another driver version: the default */
  snprintf(t.entries[0].driver, sizeof t.entries[0].driver, "other %.100s", info->driver_version);
  ck_assert_int_eq(record_wg(info, &t, NULL, n, &origin), dflt);
  ck_assert_int_eq(origin, dflt_origin);
  cg_tuning_free(&t);
  cg_device_list_free(&list);
}
END_TEST

static Suite *tune_suite(void) {
  Suite *s = suite_create("tune");
  TCase *file = tcase_create("file");
  tcase_add_test(file, test_size_class);
  tcase_add_test(file, test_file_round_trip);
  tcase_add_test(file, test_file_refused);
  suite_add_tcase(s, file);
  const int devices = cg_test_device_count();
  if (devices > 0) {
    TCase *dev = tcase_create("devices");
    tcase_set_timeout(dev, 120);
    tcase_add_loop_test(dev, test_search, 0, devices);
    tcase_add_loop_test(dev, test_engine_applies, 0, devices);
    suite_add_tcase(s, dev);
  }
  return s;
}

int main(void) { return cg_test_main(tune_suite, false); }
