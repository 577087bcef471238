/* Check suite of the OpenCL 1.1 path of the clblast linear (the host waits for each pinned
 * upload, where OpenCL 1.2 puts a barrier in the compute queue): this suite builds the linear
 * implementations again with CLGAUGE_OPENCL_1_1_PATHS, which takes that path on any device, so
 * that it runs without a 1.1 device; what only a 1.1 driver does stays untested. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/opencl/cl_linear_common.h"
#include "clgauge/backend.h"
#include "clgauge/device.h"
#include "clgauge/engine.h"
#include "clgauge/kernel_config.h"
#include "clgauge/linear.h"
#include "clgauge/report.h"
#include "test_util.h"

#ifndef CLGAUGE_OPENCL_1_1_PATHS
#error "this suite tests the build with CLGAUGE_OPENCL_1_1_PATHS"
#endif

static int device_count(void) {
  int n = cg_test_device_count();
  return n > 0 ? n : 0;
}

/* The implementation this suite runs takes the 1.1 path on every device. */
START_TEST(test_path_taken) {
  cg_device_list list;
  const cg_device_info *info = cg_test_device_at(&list, _i);
  const cg_backend *clblast = cg_backend_find("clblast");
  ck_assert_ptr_nonnull(clblast);
  const cg_impl *impl = cg_impl_find(clblast, "linear");
  ck_assert_ptr_nonnull(impl);
  cg_error err = {0};
  void *device = NULL;
  const char *no_time = NULL;
  ck_assert_msg(clblast->open(info, &device, &no_time, &err) == CG_OK, "%s", err.msg);
  const cg_linear_setup setup = {.shape = {.samples = 20, .features = 5, .classes = 3,
                                           .batch = 4},
                                 .lr = 0.05f};
  const cg_backend_env env = {.device = device};
  void *state = NULL;
  cg_prepared prep = {0};
  ck_assert_msg(impl->prepare(&env, "sgemm", "pinned", &setup, &state, &prep, &err) == CG_OK,
                "%s: %s", info->name, err.msg);
  const cg_linear_device *l = state;
  ck_assert_msg(!l->cl12, "%s (%s): the 1.2 path", info->name, info->version);
  impl->release(state);
  clblast->close(device);
  cg_device_list_free(&list);
}
END_TEST

/* Pinned records with one batch per upload (a host wait before every batch's first product) and
 * with groups of three, verified by the engine against the host reference. */
START_TEST(test_pinned_verified) {
  cg_device_list list;
  const cg_device_info *info = cg_test_device_at(&list, _i);
  cg_error err = {0};
  for (int group = 1; group <= 3; group += 2) {
    cg_job job;
    cg_job_init(&job, &cg_workload_linear);
    const struct {
      const char *name;
      double value;
    } values[] = {{"samples", 61}, {"features", 9}, {"classes", 4}, {"batch", 8}, {"epochs", 2}};
    for (size_t i = 0; i < sizeof values / sizeof values[0]; ++i)
      ck_assert_msg(cg_params_set(&job.params, values[i].name, values[i].value, &err) == CG_OK,
                    "%s: %s", values[i].name, err.msg);
    ck_assert_int_eq(cg_job_select_modes(&job, "pinned", &err), CG_OK);
    static const char *const backends[] = {"clblast", NULL};
    cg_kernel_overrides overrides;
    memset(&overrides, 0, sizeof overrides);
    char text[32];
    snprintf(text, sizeof text, "GROUP=%d", group);
    ck_assert_msg(cg_kernel_overrides_parse(&overrides, text, &err) == CG_OK, "%s", err.msg);
    const cg_selection sel = {.backends = backends, .seed = cg_test_seed(),
                              .overrides = &overrides};
    ck_assert_msg(cg_engine_validate(&job, &sel, info, &err) == CG_OK, "%s", err.msg);
    cg_report report;
    cg_report_init(&report, 0, NULL);
    ck_assert_msg(cg_engine_run(&job, &sel, info, &report, NULL, NULL, &err) == CG_OK, "%s",
                  err.msg);
    int pinned = 0;
    for (int i = 0; i < report.count; ++i) {
      const cg_record *r = &report.records[i];
      if (strcmp(r->backend, "clblast") != 0) continue;
      ck_assert_str_eq(r->mode, "pinned");
      ck_assert_msg(r->status == CG_STATUS_OK, "%s, %s: %s (seed %llu)", info->name, text,
                    r->reason, (unsigned long long)sel.seed);
      ck_assert_int_eq(r->nlosses, 2);
      ++pinned;
    }
    ck_assert_int_eq(pinned, 1);
    cg_report_free(&report);
  }
  cg_device_list_free(&list);
}
END_TEST

static Suite *linear_cl11_suite(void) {
  Suite *s = suite_create("linear_opencl_1_1");
  TCase *tc = tcase_create("host_wait");
  tcase_set_timeout(tc, CG_TEST_OPENCL_TIMEOUT);
  tcase_add_loop_test(tc, test_path_taken, 0, device_count());
  tcase_add_loop_test(tc, test_pinned_verified, 0, device_count());
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return cg_test_main(linear_cl11_suite, true); }
