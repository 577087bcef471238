/* Check suite of tuning: the size classes; the tuning file written and read back, and refused
 * when malformed, of another schema or with bad entries; the search on every device (the best no
 * slower than the defaults in the same search, every setting it keeps one of the space's, a
 * shape-bound value kept only where the implementation would not choose it); and the engine
 * applying an entry (origin tuned), the command line winning over it, other size classes,
 * devices and variants left at their defaults, and a tuned matmul split used only where the
 * shape leaves a tail and the model holds it. CLBlast's Xgemm parameters: CLBlast's
 * tuner's JSON read (a fixture the tuner wrote on PoCL) and refused when it is not one, an entry
 * of them through the tuning file, the engine applying them to clblast records (origin tuned,
 * still verified) and refusing an untuned record after them in the same process, and the tuner
 * run for a device where it is installed. */
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
#include "clgauge/xgemm_tuner.h"
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
  /* the same key replaces an entry that does not say which choice it replaced */
  cg_tuning_entry a2 = entry("GPU A", "regblock", 15, 4);
  ck_assert_int_eq(cg_kernel_overrides_add(&a2.replaces, "TS", 16, CG_ORIGIN_TUNED, &err), CG_OK);
  ck_assert_int_eq(cg_tuning_put(&t, &a2, &err), CG_OK);
  ck_assert_int_eq(t.count, 3);
  /* and one that replaced another choice stands beside it; the same choice again replaces */
  cg_tuning_entry a3 = entry("GPU A", "regblock", 15, 2);
  ck_assert_int_eq(cg_kernel_overrides_add(&a3.replaces, "TS", 8, CG_ORIGIN_TUNED, &err), CG_OK);
  ck_assert_int_eq(cg_tuning_put(&t, &a3, &err), CG_OK);
  a3.params.items[0].value = 1;
  ck_assert_int_eq(cg_tuning_put(&t, &a3, &err), CG_OK);
  ck_assert_int_eq(t.count, 4);
  ck_assert_int_eq(cg_tuning_save(path, &t, &err), CG_OK);
  cg_tuning back = {0};
  ck_assert_msg(cg_tuning_load(path, &back, &err) == CG_OK, "%s", err.msg);
  ck_assert_int_eq(back.count, 4);
  const cg_device_info ga = device_named("GPU A"), gb = device_named("GPU B");
  const cg_tuning_entry *e = cg_tuning_find(&back, &ga, "matmul", "cl", "regblock", 15, NULL);
  ck_assert_ptr_nonnull(e);
  ck_assert_int_eq(e->params.count, 1);
  ck_assert_str_eq(e->params.items[0].name, "TS");
  ck_assert_int_eq(e->params.items[0].value, 4);
  ck_assert_int_eq(e->params.items[0].origin, CG_ORIGIN_TUNED);
  ck_assert_double_eq(e->best_ms, 1.5);
  ck_assert_double_eq(e->default_ms, 2.5);
  ck_assert_int_eq(e->candidates, 4);
  ck_assert_str_eq(e->shape, "n=1000");
  ck_assert_int_eq(e->replaces.count, 1);
  ck_assert_str_eq(e->replaces.items[0].name, "TS");
  ck_assert_int_eq(e->replaces.items[0].value, 16);
  /* the entry whose choice agrees with the implementation's own here; none where none does */
  cg_kernel_overrides own = {0};
  ck_assert_int_eq(cg_kernel_overrides_add(&own, "TS", 8, CG_ORIGIN_DEFAULT, &err), CG_OK);
  ck_assert_int_eq(cg_kernel_overrides_add(&own, "WG", 3, CG_ORIGIN_DEFAULT, &err), CG_OK);
  e = cg_tuning_find(&back, &ga, "matmul", "cl", "regblock", 15, &own);
  ck_assert_ptr_nonnull(e);
  ck_assert_int_eq(e->params.items[0].value, 1);
  own.items[0].value = 4;
  ck_assert_ptr_null(cg_tuning_find(&back, &ga, "matmul", "cl", "regblock", 15, &own));
  char differs[64];
  ck_assert(!cg_tuning_replaces_agree(&back.entries[0].replaces, &own, differs, sizeof differs));
  ck_assert_str_eq(differs, "TS=16 (here 4)");
  e = cg_tuning_find(&back, &ga, "matmul", "cl", "regblock", 15, NULL);
  e = cg_tuning_find(&back, &gb, "matmul", "cl", "regblock", 15, NULL);
  ck_assert_ptr_nonnull(e);
  ck_assert(isnan(e->default_ms));
  ck_assert_int_eq(e->replaces.count, 0); /* none recorded: none written, none read */
  ck_assert_int_eq(e->params.items[0].value, 32);
  /* every other part of the key misses */
  ck_assert_ptr_null(cg_tuning_find(&back, &gb, "matmul", "cl", "tiled", 15, NULL));
  ck_assert_ptr_null(cg_tuning_find(&back, &ga, "matmul", "cl", "regblock", 16, NULL));
  ck_assert_ptr_null(cg_tuning_find(&back, &ga, "mlp", "cl", "regblock", 15, NULL));
  ck_assert_ptr_null(cg_tuning_find(&back, &ga, "matmul", "clblast", "regblock", 15, NULL));
  cg_device_info other_driver = ga;
  snprintf(other_driver.driver_version, sizeof other_driver.driver_version, "1.2.4");
  ck_assert_ptr_null(cg_tuning_find(&back, &other_driver, "matmul", "cl", "regblock", 15, NULL));
  ck_assert_ptr_null(cg_tuning_find(NULL, &ga, "matmul", "cl", "regblock", 15, NULL));
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
  ck_assert_int_eq(cg_kernel_overrides_add(&e.replaces, "KWG", 8, CG_ORIGIN_TUNED, &err), CG_OK);
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
      {"\"KWG\":\t8", "\"KWG\":\t8.5", "\"replaces\": parameter \"KWG\" is not a whole number"},
      {"\"replaces\":\t{", "\"replaces\":\t3, \"other\":\t{", "\"replaces\" is not an object"},
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
  const cg_device_info *info = cg_test_device_at(&list, _i);
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
  /* saxpy's choice does not follow the shape: its class keeps one entry, recording no choice */
  ck_assert_int_eq(e.replaces.count, 0);
  /* nothing to tune */
  ck_assert_int_eq(cg_tune_variant(&job, &sel, info, "clblast", "float4", 1, NULL, NULL, &e, &err),
                   CG_UNSUPPORTED);
  cg_device_list_free(&list);
}
END_TEST

/* An entry without parameters for that device (its name, platform and driver), workload, backend
 * and variant. */
static cg_tuning_entry entry_on(const cg_device_info *info, const char *workload,
                                const char *backend, const char *variant) {
  cg_tuning_entry e = {.best_ms = 1, .default_ms = 2, .candidates = 2};
  snprintf(e.device, sizeof e.device, "%s", info->name);
  snprintf(e.platform, sizeof e.platform, "%s", info->platform);
  snprintf(e.driver, sizeof e.driver, "%s", info->driver_version);
  snprintf(e.workload, sizeof e.workload, "%s", workload);
  snprintf(e.backend, sizeof e.backend, "%s", backend);
  snprintf(e.variant, sizeof e.variant, "%s", variant);
  return e;
}

/* The job's one record of that backend (and variant, where not NULL) on the device, with a
 * tuning file and command-line overrides (each may be NULL): its status, its kernel configuration
 * and its reason; an ok record verified. */
static cg_status variant_record(const cg_job *job, const char *backend, const char *variant,
                                const cg_device_info *info, const cg_tuning *tuning,
                                const cg_kernel_overrides *overrides, cg_kernel_config *ran,
                                char *reason, size_t reason_size) {
  const char *const backends[] = {backend, NULL}, *const variants[] = {variant, NULL};
  const cg_selection sel = {.backends = backends, .variants = variant ? variants : NULL,
                            .seed = cg_test_seed(), .overrides = overrides, .tuning = tuning};
  cg_report report;
  cg_report_init(&report, 0, NULL);
  cg_error err = {0};
  ck_assert_int_eq(cg_engine_run(job, &sel, info, &report, NULL, NULL, &err), CG_OK);
  ck_assert_int_eq(report.count, 1);
  const cg_record *r = &report.records[0];
  const cg_status status = r->status;
  *ran = r->kernel;
  /* the reason of a failed record, the compile phase's warning of one that ran */
  snprintf(reason, reason_size, "%s", status == CG_STATUS_OK ? r->compile_warning : r->reason);
  if (status == CG_STATUS_OK)
    ck_assert_msg(r->verify_error <= r->verify_tolerance, "rel err %g", r->verify_error);
  cg_report_free(&report);
  return status;
}

static cg_status one_record(const cg_job *job, const char *backend, const cg_device_info *info,
                            const cg_tuning *tuning, const cg_kernel_overrides *overrides,
                            cg_kernel_config *ran, char *reason, size_t reason_size) {
  return variant_record(job, backend, NULL, info, tuning, overrides, ran, reason, reason_size);
}

/* The kernel parameter a record of saxpy's cl backend ran with, and its origin; its compile
 * warning in warning[0..size) where warning is not NULL. */
static int record_wg(const cg_device_info *info, const cg_tuning *tuning,
                     const cg_kernel_overrides *overrides, int n, cg_origin *origin,
                     char *warning, size_t size) {
  cg_job job;
  cg_job_init(&job, cg_workload_find("saxpy"));
  cg_error err = {0};
  ck_assert_int_eq(cg_params_set(&job.params, "n", n, &err), CG_OK);
  ck_assert_int_eq(cg_params_set(&job.params, "runs", 1, &err), CG_OK);
  cg_kernel_config ran;
  char reason[1024];
  ck_assert_msg(one_record(&job, "cl", info, tuning, overrides, &ran, reason, sizeof reason) ==
                    CG_STATUS_OK,
                "%s", reason);
  if (warning) snprintf(warning, size, "%s", reason);
  int wg = -1;
  for (int k = 0; k < ran.nparams; ++k)
    if (strcmp(ran.params[k].name, "WG") == 0) {
      wg = ran.params[k].value;
      *origin = ran.params[k].origin;
    }
  return wg;
}

/* A matmul job of m x k times k x n with that many runs. */
static cg_job matmul_job(int m, int n, int k, int runs) {
  cg_job job;
  cg_job_init(&job, cg_workload_find("matmul"));
  cg_error err = {0};
  ck_assert_int_eq(cg_params_set(&job.params, "n", n, &err), CG_OK); /* sets m and k too */
  ck_assert_int_eq(cg_params_set(&job.params, "m", m, &err), CG_OK);
  ck_assert_int_eq(cg_params_set(&job.params, "k", k, &err), CG_OK);
  ck_assert_int_eq(cg_params_set(&job.params, "runs", runs, &err), CG_OK);
  return job;
}

/* The search of the pipelined matmul, which also tries SPLITS (shape-bound): the entry holds
 * SPLITS only where the implementation, given the entry's other parameters, would not choose
 * that value by itself (checked by running them without it), and records as `replaces` the
 * searched parameters the implementation chose by itself at the shape (not those the device made
 * smaller). A short search: the defaults, a few candidates and the confirmation. */
START_TEST(test_search_shape_bound) {
  cg_device_list list;
  const cg_device_info *info = cg_test_device_at(&list, _i);
  cg_job job = matmul_job(16, 48, 300, 3);
  cg_error err = {0};
  const cg_selection sel = {.seed = cg_test_seed()};
  cg_tuning_entry e;
  const cg_rc rc = cg_tune_variant(&job, &sel, info, "cl", "pipelined", 4, NULL, NULL, &e, &err);
  ck_assert_msg(rc == CG_OK, "%s: %s", info->name, err.msg);
  cg_kernel_overrides rest = {0};
  int splits = 0;
  for (int i = 0; i < e.params.count; ++i) {
    if (strcmp(e.params.items[i].name, "SPLITS") == 0)
      splits = e.params.items[i].value;
    else
      ck_assert_int_eq(cg_kernel_overrides_add(&rest, e.params.items[i].name,
                                               e.params.items[i].value, CG_ORIGIN_OVERRIDE, &err),
                       CG_OK);
  }
  ck_assert_msg(rest.count >= 2, "%d parameters besides SPLITS", rest.count);
  cg_kernel_config ran;
  char why[1024];
  ck_assert_int_eq(cg_params_set(&job.params, "runs", 1, &err), CG_OK);
  ck_assert_msg(variant_record(&job, "cl", "pipelined", info, NULL, NULL, &ran, why,
                               sizeof why) == CG_STATUS_OK,
                "%s", why);
  int own = 0;
  for (int p = 0; p < ran.nparams; ++p) {
    cg_origin origin = CG_ORIGIN_DEFAULT;
    const int v = cg_kernel_override(&e.replaces, ran.params[p].name, -1, &origin);
    const bool searched = strcmp(ran.params[p].name, "TAIL") != 0;
    if (searched && ran.params[p].origin == CG_ORIGIN_DEFAULT) {
      ++own;
      ck_assert_msg(v == ran.params[p].value, "replaces %s=%d, the default ran %d",
                    ran.params[p].name, v, ran.params[p].value);
    } else {
      ck_assert_msg(origin == CG_ORIGIN_DEFAULT, "replaces %s, not the implementation's own",
                    ran.params[p].name);
    }
  }
  ck_assert_int_eq(e.replaces.count, own);
  ck_assert_int_ge(own, 3);
  if (splits > 0) {
    ck_assert_msg(variant_record(&job, "cl", "pipelined", info, NULL, &rest, &ran, why,
                                 sizeof why) == CG_STATUS_OK,
                  "%s", why);
    for (int p = 0; p < ran.nparams; ++p)
      if (strcmp(ran.params[p].name, "SPLITS") == 0)
        ck_assert_msg(ran.params[p].value != splits,
                      "SPLITS=%d kept, the implementation's own choice", splits);
  }
  cg_device_list_free(&list);
}
END_TEST

START_TEST(test_engine_applies) {
  cg_device_list list;
  const cg_device_info *info = cg_test_device_at(&list, _i);
  const int n = 5003;
  cg_origin origin = CG_ORIGIN_OVERRIDE, dflt_origin = CG_ORIGIN_OVERRIDE;
  /* the implementation's own choice: default, or a fallback where the device allows less */
  const int dflt = record_wg(info, NULL, NULL, n, &dflt_origin, NULL, 0);
  ck_assert(dflt_origin == CG_ORIGIN_DEFAULT || dflt_origin == CG_ORIGIN_FALLBACK);
  /* a setting unlike the default, and one the device takes */
  const int tuned = dflt > 1 ? dflt / 2 : 2;
  cg_tuning_entry e = entry_on(info, "saxpy", "cl", "float4");
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

  ck_assert_int_eq(record_wg(info, &t, NULL, n, &origin, NULL, 0), tuned);
  ck_assert_int_eq(origin, CG_ORIGIN_TUNED);
  /* the command line wins */
  cg_kernel_overrides cli = {0};
  ck_assert_int_eq(cg_kernel_overrides_parse(&cli, "WG=1", &err), CG_OK);
  ck_assert_int_eq(record_wg(info, &t, &cli, n, &origin, NULL, 0), 1);
  ck_assert_int_eq(origin, CG_ORIGIN_OVERRIDE);
  /* another size class: the default */
  ck_assert_int_eq(record_wg(info, &t, NULL, 64 * n, &origin, NULL, 0), dflt);
  ck_assert_int_eq(origin, dflt_origin);
  /* another driver version: the default */
  snprintf(t.entries[0].driver, sizeof t.entries[0].driver, "other %.100s", info->driver_version);
  ck_assert_int_eq(record_wg(info, &t, NULL, n, &origin, NULL, 0), dflt);
  ck_assert_int_eq(origin, dflt_origin);
  cg_tuning_free(&t);

  /* a setting the shape or the device refuses (a size class holds many shapes): the record runs
   * the defaults, ok, and its compile warning says so */
  cg_tuning_entry big = entry_on(info, "saxpy", "cl", "float4");
  big.size_class = e.size_class;
  ck_assert_int_eq(cg_kernel_overrides_add(&big.params, "WG", 1000000, CG_ORIGIN_TUNED, &err),
                   CG_OK);
  cg_tuning refused = {0};
  ck_assert_int_eq(cg_tuning_put(&refused, &big, &err), CG_OK);
  char warning[1024];
  ck_assert_int_eq(record_wg(info, &refused, NULL, n, &origin, warning, sizeof warning), dflt);
  ck_assert_int_eq(origin, dflt_origin);
  ck_assert_msg(strstr(warning, "tuning file's setting for this size class was refused here") &&
                    strstr(warning, "WG=1000000") && strstr(warning, "the defaults ran"),
                "warning: '%s'", warning);
  /* the command line's own refused setting still fails the record */
  ck_assert_int_eq(cg_kernel_overrides_parse(&cli, "WG=1000000", &err), CG_OK);
  cg_kernel_config ran;
  ck_assert_int_eq(cg_params_set(&job.params, "runs", 1, &err), CG_OK);
  ck_assert_int_eq(one_record(&job, "cl", info, &refused, &cli, &ran, warning, sizeof warning),
                   CG_STATUS_ERROR);
  cg_tuning_free(&refused);
  cg_device_list_free(&list);
}
END_TEST


/* The value of parameter `name` in a record's configuration, and its origin. */
static int param_in(const cg_kernel_config *ran, const char *name, cg_origin *origin) {
  for (int p = 0; p < ran->nparams; ++p)
    if (strcmp(ran->params[p].name, name) == 0) {
      *origin = ran->params[p].origin;
      return ran->params[p].value;
    }
  ck_abort_msg("%s not in the record", name);
  return -1;
}

/* The pipelined matmul record of m x k times k x n, with a tuning entry for its size class of
 * 16x16 blocks (4x4 work-items: every device takes them) and SPLITS=splits (none where splits is
 * 0), recording the default it replaced as `replaces` ("MWG=64,SPLITS=1"; NULL: not recorded),
 * and the command line's overrides (NULL for none): the parameter `name` it ran with and its
 * origin, and its compile warning. */
static int pipelined_param_replacing(const cg_device_info *info, int m, int n, int k, int splits,
                                     const char *replaces, const char *cli, const char *name,
                                     cg_origin *origin, char *warning, size_t size) {
  const cg_job job = matmul_job(m, n, k, 1);
  cg_error err = {0};
  cg_tuning t = {0};
  if (splits > 0) {
    cg_tuning_entry e = entry_on(info, "matmul", "cl", "pipelined");
    e.size_class = cg_size_class(job.workload->flops_per_iter(&job.params));
    ck_assert_int_eq(cg_kernel_overrides_add(&e.params, "MWG", 16, CG_ORIGIN_TUNED, &err), CG_OK);
    ck_assert_int_eq(cg_kernel_overrides_add(&e.params, "NWG", 16, CG_ORIGIN_TUNED, &err), CG_OK);
    ck_assert_int_eq(cg_kernel_overrides_add(&e.params, "SPLITS", splits, CG_ORIGIN_TUNED, &err),
                     CG_OK);
    if (replaces) ck_assert_int_eq(cg_kernel_overrides_parse(&e.replaces, replaces, &err), CG_OK);
    ck_assert_int_eq(cg_tuning_put(&t, &e, &err), CG_OK);
  }
  cg_kernel_overrides o = {0};
  if (cli) ck_assert_int_eq(cg_kernel_overrides_parse(&o, cli, &err), CG_OK);
  cg_kernel_config ran;
  char reason[1024];
  ck_assert_msg(variant_record(&job, "cl", "pipelined", info, &t, cli ? &o : NULL, &ran, reason,
                               sizeof reason) == CG_STATUS_OK,
                "%dx%dx%d, SPLITS=%d: %s", m, k, n, splits, reason);
  cg_tuning_free(&t);
  if (warning) snprintf(warning, size, "%s", reason);
  return param_in(&ran, name, origin);
}

static int pipelined_param(const cg_device_info *info, int m, int n, int k, int splits,
                           const char *cli, const char *name, cg_origin *origin, char *warning,
                           size_t size) {
  return pipelined_param_replacing(info, m, n, k, splits, NULL, cli, name, origin, warning, size);
}

/* A tuned SPLITS (the parts each block of the last wave takes) on every device, with tuned 16x16
 * blocks: where the shape leaves a tail (one block past a wave of one per compute unit) and the
 * model holds the split, its parts ran (origin tuned, TAIL 1, verified); where the blocks fill
 * their waves, unsplit (fallback); where the model would take longer with the parts than without
 * (16 parts of 16 of k for a tail of all but one compute unit's blocks), the default split, with
 * a warning naming the tuned value; SPLITS=1 tuned runs unsplit (tuned); the command line wins. */
START_TEST(test_tuned_split) {
  cg_device_list list;
  const cg_device_info *info = cg_test_device_at(&list, _i);
  const int units = (int)cg_device_units(info);
  cg_origin origin = CG_ORIGIN_DEFAULT;
  char warning[1024];
  const int n_tail = 16 * (units + 1), n_full = 32 * units, n_near = 16 * (2 * units - 1);
  if (units >= 2) {
    ck_assert_int_eq(pipelined_param(info, 16, n_tail, 600, 3, NULL, "SPLITS", &origin, NULL, 0),
                     3);
    ck_assert_int_eq(origin, CG_ORIGIN_TUNED);
    ck_assert_int_eq(pipelined_param(info, 16, n_tail, 600, 3, NULL, "TAIL", &origin, NULL, 0),
                     1);
    ck_assert_int_eq(pipelined_param(info, 16, n_near, 256, 16, NULL, "SPLITS", &origin,
                                     warning, sizeof warning),
                     1);
    ck_assert_int_eq(origin, CG_ORIGIN_DEFAULT);
    ck_assert_msg(strstr(warning, "tuned SPLITS=16") && strstr(warning, "the default split ran"),
                  "warning: '%s'", warning);
    ck_assert_int_eq(pipelined_param(info, 16, n_tail, 600, 1, NULL, "SPLITS", &origin, NULL, 0),
                     1);
    ck_assert_int_eq(origin, CG_ORIGIN_TUNED);
    ck_assert_int_eq(pipelined_param(info, 16, n_tail, 600, 3, "SPLITS=2", "SPLITS", &origin,
                                     NULL, 0),
                     2);
    ck_assert_int_eq(origin, CG_ORIGIN_OVERRIDE);
  }
  ck_assert_int_eq(pipelined_param(info, 16, n_full, 600, 3, NULL, "SPLITS", &origin, NULL, 0),
                   1);
  ck_assert_int_eq(origin, CG_ORIGIN_FALLBACK);
  ck_assert_int_eq(pipelined_param(info, 16, n_full, 600, 3, NULL, "MWG", &origin, NULL, 0), 16);
  ck_assert_int_eq(origin, CG_ORIGIN_TUNED);
  cg_device_list_free(&list);
}
END_TEST

/* "MWG=64,NWG=64,...": the values of origin default (the implementation's own choice, not the
 * device's fallbacks), the one at index `bump` (-1: none) raised by `by`. */
static void replaces_text(const char *const *names, const int *values, const cg_origin *origins,
                          int count, int bump, int by, char *out, size_t size) {
  size_t len = 0;
  out[0] = '\0';
  for (int i = 0; i < count && len < size; ++i)
    if (origins[i] == CG_ORIGIN_DEFAULT) {
      const int w = snprintf(out + len, size - len, "%s%s=%d", len ? "," : "", names[i],
                             values[i] + (i == bump ? by : 0));
      len += w > 0 ? (size_t)w : 0;
    }
}

/* A tuned setting of the pipelined matmul applies where the default it replaced when it was tuned
 * (the entry's `replaces`: the parameters the implementation chose itself, not those the device
 * made smaller) is the default here too: tuned 16x16 blocks in 2 parts run where the entry says
 * they replaced this shape's own choice, or says nothing; where it names another k-slice (KWG)
 * or split, the default runs, with a warning naming what differs; of two entries for the size
 * class, the one that replaced this shape's choice applies. */
START_TEST(test_tuned_where_replaced) {
  cg_device_list list;
  const cg_device_info *info = cg_test_device_at(&list, _i);
  const int m = 16, n = 48, k = 300;
  static const char *const names[] = {"MWG", "NWG", "KWG", "WM", "WN", "VW", "PAD", "SPLITS"};
  enum { NNAMES = sizeof names / sizeof names[0], KWG = 2, SPLITS = 7 };
  int own[NNAMES];
  cg_origin origin[NNAMES];
  char warning[1024], differs[64];
  const cg_job job = matmul_job(m, n, k, 1);
  cg_kernel_config ran;
  ck_assert_msg(variant_record(&job, "cl", "pipelined", info, NULL, NULL, &ran, warning,
                               sizeof warning) == CG_STATUS_OK,
                "%s", warning);
  for (int i = 0; i < NNAMES; ++i) own[i] = param_in(&ran, names[i], &origin[i]);
  /* the implementation's own choice (not the device's fallbacks), with one value changed */
  char here[160], other_kwg[160], other_split[160];
  replaces_text(names, own, origin, NNAMES, -1, 0, here, sizeof here);
  replaces_text(names, own, origin, NNAMES, KWG, 8, other_kwg, sizeof other_kwg);
  replaces_text(names, own, origin, NNAMES, SPLITS, 2, other_split, sizeof other_split);
  ck_assert_msg(origin[KWG] == CG_ORIGIN_DEFAULT && origin[SPLITS] == CG_ORIGIN_DEFAULT,
                "KWG and SPLITS are the implementation's own: %s", here);
  cg_origin o;
  ck_assert_int_eq(pipelined_param_replacing(info, m, n, k, 2, here, NULL, "MWG", &o, NULL, 0),
                   16);
  ck_assert_int_eq(o, CG_ORIGIN_TUNED);
  ck_assert_int_eq(pipelined_param_replacing(info, m, n, k, 2, other_kwg, NULL, "MWG", &o,
                                             warning, sizeof warning),
                   own[0]);
  ck_assert_int_eq(o, origin[0]);
  snprintf(differs, sizeof differs, "KWG=%d (here %d)", own[KWG] + 8, own[KWG]);
  ck_assert_msg(strstr(warning, "tuned where the default had") && strstr(warning, differs) &&
                    !strstr(warning, "MWG=") && strstr(warning, "the defaults ran"),
                "warning: '%s'", warning);
  ck_assert_int_eq(pipelined_param_replacing(info, m, n, k, 2, other_split, NULL, "NWG", &o,
                                             warning, sizeof warning),
                   own[1]);
  ck_assert_int_eq(o, origin[1]);
  snprintf(differs, sizeof differs, "SPLITS=%d (here %d)", own[SPLITS] + 2, own[SPLITS]);
  ck_assert_msg(strstr(warning, differs), "warning: '%s'", warning);
  /* the entry of another choice first, then this shape's: the second applies */
  cg_error err = {0};
  cg_tuning t = {0};
  const char *const settings[2][2] = {{"MWG=32,NWG=16", other_kwg}, {"MWG=16,NWG=16", here}};
  for (int i = 0; i < 2; ++i) {
    cg_tuning_entry e = entry_on(info, "matmul", "cl", "pipelined");
    e.size_class = cg_size_class(job.workload->flops_per_iter(&job.params));
    ck_assert_int_eq(cg_kernel_overrides_parse(&e.params, settings[i][0], &err), CG_OK);
    ck_assert_int_eq(cg_kernel_overrides_parse(&e.replaces, settings[i][1], &err), CG_OK);
    ck_assert_int_eq(cg_tuning_put(&t, &e, &err), CG_OK);
  }
  ck_assert_int_eq(t.count, 2);
  ck_assert_msg(variant_record(&job, "cl", "pipelined", info, &t, NULL, &ran, warning,
                               sizeof warning) == CG_STATUS_OK,
                "%s", warning);
  ck_assert_str_eq(ran.params[0].name, "MWG");
  ck_assert_int_eq(ran.params[0].value, 16);
  ck_assert_int_eq(ran.params[0].origin, CG_ORIGIN_TUNED);
  cg_tuning_free(&t);
  cg_device_list_free(&list);
}
END_TEST

/* ---- CLBlast's Xgemm parameters ---- */

static const char fixture[] = CLGAUGE_SOURCE_DIR "/tests/data/clblast_xgemm_1_32.json";
/* Its fastest result (time 0.118 ms of 9), in the order of cg_xgemm_params: GEMMK KREG KWG KWI
 * MDIMA MDIMC MWG NDIMB NDIMC NWG SA SB STRM STRN VWM VWN. */
static const int fixture_best[CG_XGEMM_NPARAMS] = {0, 1, 32, 2, 8, 8, 64, 8,
                                                   8, 64, 1, 1, 0, 0,  4, 4};

START_TEST(test_xgemm_read) {
  cg_xgemm_best best;
  cg_error err = {0};
  ck_assert_msg(cg_xgemm_tuner_read(fixture, &best, &err) == CG_OK, "%s", err.msg);
  for (int p = 0; p < CG_XGEMM_NPARAMS; ++p)
    ck_assert_msg(best.values[p] == fixture_best[p], "%s: %d, not %d", cg_xgemm_params[p],
                  best.values[p], fixture_best[p]);
  ck_assert_double_eq_tol(best.ms, 0.118, 1e-9);
  ck_assert_int_eq(best.results, 9);
  ck_assert_int_eq(best.m, 128);
  ck_assert_int_eq(best.n, 128);
  ck_assert_int_eq(best.k, 128);
  ck_assert_ptr_null(cg_xgemm_params[CG_XGEMM_NPARAMS]);
  ck_assert_ptr_null(cg_xgemm_clblast_names[CG_XGEMM_NPARAMS]);

  char dir[256], path[320];
  cg_test_tempdir(dir, sizeof dir);
  snprintf(path, sizeof path, "%s/xgemm.json", dir);
  static const struct {
    const char *text, *says;
  } bad[] = {
      {"not json", "not a JSON object"},
      {"{\"precision\": \"64\", \"results\": []}", "\"precision\" is not 32"},
      {"{\"precision\": \"32\"}", "no \"results\""},
      {"{\"precision\": \"32\", \"results\": []}", "no configuration"},
      {"{\"precision\": \"32\", \"results\": [{\"kernel\": \"Xgemm\", \"time\": 1, \"parameters\": "
       "{\"MWG\": 64}}]}",
       "no whole GEMMK"},
      {"{\"precision\": \"32\", \"results\": [{\"kernel\": \"XgemmDirect\", \"time\": 1, "
       "\"parameters\": {}}]}",
       "result 0 is not an Xgemm result"},
  };
  for (size_t b = 0; b < sizeof bad / sizeof bad[0]; ++b) {
    cg_test_write_file(path, bad[b].text);
    memset(&err, 0, sizeof err);
    ck_assert_int_eq(cg_xgemm_tuner_read(path, &best, &err), CG_BAD_INPUT);
    ck_assert_msg(strstr(err.msg, path) && strstr(err.msg, bad[b].says), "'%s': %s", bad[b].text,
                  err.msg);
  }
  cg_test_rmtree(dir);
}
END_TEST

/* An entry of the clblast backend with the 16 parameters comes back as written. */
START_TEST(test_xgemm_entry_round_trip) {
  char dir[256], path[320];
  cg_test_tempdir(dir, sizeof dir);
  snprintf(path, sizeof path, "%s/tuning.json", dir);
  cg_tuning_entry e = entry("GPU A", "sgemm", 15, 8);
  snprintf(e.backend, sizeof e.backend, "clblast");
  memset(&e.params, 0, sizeof e.params);
  cg_error err = {0};
  for (int p = 0; p < CG_XGEMM_NPARAMS; ++p)
    ck_assert_int_eq(
        cg_kernel_overrides_add(&e.params, cg_xgemm_params[p], fixture_best[p], CG_ORIGIN_TUNED,
                                &err),
        CG_OK);
  cg_tuning t = {0}, back = {0};
  ck_assert_int_eq(cg_tuning_put(&t, &e, &err), CG_OK);
  ck_assert_int_eq(cg_tuning_save(path, &t, &err), CG_OK);
  ck_assert_msg(cg_tuning_load(path, &back, &err) == CG_OK, "%s", err.msg);
  const cg_device_info ga = device_named("GPU A");
  const cg_tuning_entry *got = cg_tuning_find(&back, &ga, "matmul", "clblast", "sgemm", 15, NULL);
  ck_assert_ptr_nonnull(got);
  ck_assert_ptr_null(cg_tuning_find(&back, &ga, "matmul", "cl", "sgemm", 15, NULL));
  ck_assert_int_eq(got->params.count, CG_XGEMM_NPARAMS);
  for (int p = 0; p < CG_XGEMM_NPARAMS; ++p) {
    cg_origin origin = CG_ORIGIN_DEFAULT;
    ck_assert_int_eq(cg_kernel_override(&got->params, cg_xgemm_params[p], -1, &origin),
                     fixture_best[p]);
    ck_assert_int_eq(origin, CG_ORIGIN_TUNED);
  }
  cg_tuning_free(&back);
  cg_tuning_free(&t);
  cg_test_rmtree(dir);
}
END_TEST

/* One clblast matmul record on the device at an awkward shape (one_record). */
static cg_status clblast_record(const cg_device_info *info, const cg_tuning *tuning,
                                const cg_kernel_overrides *overrides, cg_kernel_config *ran,
                                char *reason, size_t reason_size) {
  cg_job job;
  cg_job_init(&job, cg_workload_find("matmul"));
  cg_error err = {0};
  ck_assert_int_eq(cg_params_set(&job.params, "m", 131, &err), CG_OK);
  ck_assert_int_eq(cg_params_set(&job.params, "n", 67, &err), CG_OK);
  ck_assert_int_eq(cg_params_set(&job.params, "k", 97, &err), CG_OK);
  ck_assert_int_eq(cg_params_set(&job.params, "loops", 1, &err), CG_OK);
  ck_assert_int_eq(cg_params_set(&job.params, "runs", 1, &err), CG_OK);
  return one_record(&job, "clblast", info, tuning, overrides, ran, reason, reason_size);
}

/* A tuning entry of CLBlast's parameters (the fixture's best) is applied to the device's clblast
 * record: its configuration lists the 16 with origin tuned, and it still verifies. CLBlast keeps
 * them for the rest of the process, so an untuned record after it is refused, saying why; an
 * incomplete set on the command line is refused naming what is missing. */
START_TEST(test_xgemm_applied) {
  cg_device_list list;
  const cg_device_info *info = cg_test_device_at(&list, _i);
  char reason[1024];
  cg_kernel_config ran;
  cg_kernel_overrides partial = {0};
  cg_error err = {0};
  ck_assert_int_eq(cg_kernel_overrides_parse(&partial, "XGEMM_MWG=64", &err), CG_OK);
  ck_assert_int_eq(clblast_record(info, NULL, &partial, &ran, reason, sizeof reason),
                   CG_STATUS_ERROR);
  ck_assert_msg(strstr(reason, "16 parameters together") && strstr(reason, "XGEMM_VWN") &&
                    !strstr(reason, "XGEMM_MWG,"),
                "%s", reason);

  const cg_status untuned = clblast_record(info, NULL, NULL, &ran, reason, sizeof reason);
  ck_assert_msg(untuned == CG_STATUS_OK, "untuned on %s: %s", info->name, reason);
  ck_assert_int_eq(ran.nparams, 0);

  cg_tuning_entry e = entry_on(info, "matmul", "clblast", "sgemm");
  e.size_class = cg_size_class(2.0 * 131 * 67 * 97);
  for (int p = 0; p < CG_XGEMM_NPARAMS; ++p)
    ck_assert_int_eq(cg_kernel_overrides_add(&e.params, cg_xgemm_params[p], fixture_best[p],
                                             CG_ORIGIN_TUNED, &err),
                     CG_OK);
  cg_tuning t = {0};
  ck_assert_int_eq(cg_tuning_put(&t, &e, &err), CG_OK);
  ck_assert_msg(clblast_record(info, &t, NULL, &ran, reason, sizeof reason) == CG_STATUS_OK,
                "tuned on %s: %s", info->name, reason);
  ck_assert_int_eq(ran.nparams, CG_XGEMM_NPARAMS);
  for (int p = 0; p < CG_XGEMM_NPARAMS; ++p) {
    ck_assert_str_eq(ran.params[p].name, cg_xgemm_params[p]);
    ck_assert_int_eq(ran.params[p].value, fixture_best[p]);
    ck_assert_int_eq(ran.params[p].origin, CG_ORIGIN_TUNED);
  }
  /* the same parameters again run; none after them is refused */
  ck_assert_int_eq(clblast_record(info, &t, NULL, &ran, reason, sizeof reason), CG_STATUS_OK);
  ck_assert_int_eq(clblast_record(info, NULL, NULL, &ran, reason, sizeof reason),
                   CG_STATUS_UNSUPPORTED);
  ck_assert_msg(strstr(reason, "--no-tuned") && strstr(reason, "XGEMM_MWG=64"), "%s", reason);
  cg_tuning_free(&t);
  cg_device_list_free(&list);
}
END_TEST

/* CLBlast's tuner on the first device, at a tiny shape and fraction, where it is installed (its
 * best has all 16 parameters); a program that is not there is CG_UNSUPPORTED, one that fails
 * before writing its results an error naming its log. */
START_TEST(test_xgemm_tuner_run) {
  cg_device_list list;
  cg_test_devices(&list);
  const cg_device_info *info = &list.items[0];
  char dir[256];
  cg_test_tempdir(dir, sizeof dir);
  cg_xgemm_tuner_job job = {.program = "clgauge-no-such-tuner", .platform = info->platform_index,
                            .device = info->device_index, .m = 100, .n = 1, .k = 7,
                            .fraction = 64, .budget_s = 120, .workdir = dir};
  cg_xgemm_best best;
  cg_error err = {0};
  ck_assert_int_eq(cg_xgemm_tuner_run(&job, &best, &err), CG_UNSUPPORTED);
  ck_assert_msg(strstr(err.msg, "clgauge-no-such-tuner") && strstr(err.msg, "clblast-utils"), "%s",
                err.msg);
  job.program = "false";
  memset(&err, 0, sizeof err);
  ck_assert_int_eq(cg_xgemm_tuner_run(&job, &best, &err), CG_ERROR);
  ck_assert_msg(strstr(err.msg, "tuner.log") && strstr(err.msg, "exit status 1"), "%s", err.msg);
  job.fraction = 0.5;
  memset(&err, 0, sizeof err);
  ck_assert_int_eq(cg_xgemm_tuner_run(&job, &best, &err), CG_BAD_INPUT);
  ck_assert_msg(strstr(err.msg, "0.5"), "%s", err.msg);
  job.fraction = 64;
  job.program = "clblast_tuner_xgemm";
  memset(&err, 0, sizeof err);
  const cg_rc rc = cg_xgemm_tuner_run(&job, &best, &err);
  if (rc != CG_UNSUPPORTED) { /* installed */
    ck_assert_msg(rc == CG_OK, "on %s: %s", info->name, err.msg);
    ck_assert_int_ge(best.results, 1);
    ck_assert_int_eq(best.m, 128);
    ck_assert_int_eq(best.n, 128);
    ck_assert_int_eq(best.k, 128);
    ck_assert(best.ms > 0);
    ck_assert_int_ge(best.values[6], 16); /* MWG */
  }
  cg_test_rmtree(dir);
  cg_device_list_free(&list);
}
END_TEST

/* Every implementation's search spaces as written: naxes counts exactly the axes listed (an axis
 * beyond it would be skipped without a word), each axis names a parameter the implementation takes
 * as --kernel-param, with 1 to CG_MAX_TUNE_VALUES values, none twice. */
START_TEST(test_spaces_well_formed) {
  int spaces = 0;
  for (const cg_impl *const *i = cg_impl_all(); *i; ++i)
    for (const cg_tune_space *t = (*i)->tune_spaces; t && t->variant; ++t) {
      ++spaces;
      const char *who = t->variant;
      ck_assert_msg(t->naxes >= 1 && t->naxes <= CG_MAX_TUNE_AXES, "%s/%s: %d axes",
                    (*i)->workload, who, t->naxes);
      for (int a = 0; a < CG_MAX_TUNE_AXES; ++a) {
        const cg_tune_axis *x = &t->axes[a];
        if (a >= t->naxes) {
          ck_assert_msg(!x->name, "%s/%s: axis %s beyond naxes %d", (*i)->workload, who, x->name,
                        t->naxes);
          continue;
        }
        ck_assert_msg(x->name && x->count >= 1 && x->count <= CG_MAX_TUNE_VALUES,
                      "%s/%s: axis %d", (*i)->workload, who, a);
        ck_assert_msg(cg_variant_index((*i)->kernel_params, x->name) >= 0,
                      "%s/%s: %s is not a parameter of the implementation", (*i)->workload, who,
                      x->name);
        for (int v = 0; v < x->count; ++v)
          for (int w = v + 1; w < x->count; ++w)
            ck_assert_msg(x->values[v] != x->values[w], "%s/%s: %s=%d twice", (*i)->workload, who,
                          x->name, x->values[v]);
      }
    }
  ck_assert_int_ge(spaces, 4);
  /* a shape-bound parameter is one the implementation's spaces search */
  int bound = 0;
  for (const cg_impl *const *i = cg_impl_all(); *i; ++i)
    for (const char *const *name = (*i)->shape_bound; name && *name; ++name, ++bound) {
      bool searched = false;
      for (const cg_tune_space *t = (*i)->tune_spaces; t && t->variant; ++t)
        for (int a = 0; a < t->naxes; ++a) searched |= strcmp(t->axes[a].name, *name) == 0;
      ck_assert_msg(searched, "%s: shape-bound %s is not searched", (*i)->workload, *name);
    }
  ck_assert_int_ge(bound, 1);
}
END_TEST

static Suite *tune_suite(void) {
  Suite *s = suite_create("tune");
  TCase *file = tcase_create("file");
  tcase_add_test(file, test_size_class);
  tcase_add_test(file, test_file_round_trip);
  tcase_add_test(file, test_file_refused);
  tcase_add_test(file, test_xgemm_read);
  tcase_add_test(file, test_xgemm_entry_round_trip);
  tcase_add_test(file, test_spaces_well_formed);
  suite_add_tcase(s, file);
  const int devices = cg_test_device_count();
  if (devices > 0) {
    TCase *dev = tcase_create("devices");
    tcase_set_timeout(dev, 120);
    tcase_add_loop_test(dev, test_search, 0, devices);
    tcase_add_loop_test(dev, test_search_shape_bound, 0, devices);
    tcase_add_loop_test(dev, test_engine_applies, 0, devices);
    tcase_add_loop_test(dev, test_tuned_split, 0, devices);
    tcase_add_loop_test(dev, test_tuned_where_replaced, 0, devices);
    tcase_add_loop_test(dev, test_xgemm_applied, 0, devices);
    tcase_add_test(dev, test_xgemm_tuner_run);
    suite_add_tcase(s, dev);
  }
  return s;
}

int main(void) { return cg_test_main(tune_suite, false); }
