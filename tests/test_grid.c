/* Check suite of the device-wide barrier (cl/grid_sync.cl, src/opencl/grid.c): the include that
 * shares its source, the barrier on every device (correct whenever it reports no failure, and
 * never hanging where not every work-group is resident), and the residency check. */
#include <CL/cl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clgauge/device.h"
#include "clgauge/grid.h"
#include "clgauge/program.h"
#include "test_util.h"

#ifndef CLGAUGE_SOURCE_DIR
#error "CLGAUGE_SOURCE_DIR must name the source tree"
#endif
#define KERNEL_SOURCE_DIR CLGAUGE_SOURCE_DIR "/cl"

/* ---- the include ---- */

START_TEST(test_include_expanded) {
  const char *dirs[] = {NULL, KERNEL_SOURCE_DIR};
  for (int d = 0; d < 2; ++d) {
    char *src = NULL;
    size_t size = 0;
    cg_error err = {0};
    ck_assert_msg(cg_kernel_source(dirs[d], "grid_discover.cl", &src, &size, &err) == CG_OK,
                  "%s", err.msg);
    ck_assert_uint_eq(strlen(src), size);
    ck_assert_ptr_null(strstr(src, "\n#include \"grid_sync.cl\""));
    ck_assert_ptr_nonnull(strstr(src, "inline int cg_grid_sync("));
    /* the included text from line 1, the including file's line 3 after it */
    ck_assert_ptr_nonnull(strstr(src, "#line 1\n/* A device-wide barrier"));
    ck_assert_ptr_nonnull(strstr(src, "\n#line 3\n"));
    ck_assert_ptr_nonnull(strstr(src, "__kernel void grid_discover("));
    free(src);
  }
}
END_TEST

START_TEST(test_include_refused) {
  char dir[256], path[300];
  cg_test_tempdir(dir, sizeof dir);
  snprintf(path, sizeof path, "%s/a.cl", dir);
  cg_test_write_file(path, "#include \"b.cl\"\nkernel void k(void) {}\n");
  snprintf(path, sizeof path, "%s/b.cl", dir);
  cg_test_write_file(path, "#include \"c.cl\"\n");
  snprintf(path, sizeof path, "%s/c.cl", dir);
  cg_test_write_file(path, "/* nothing */\n");
  char *src = NULL;
  size_t size = 0;
  cg_error err = {0};
  ck_assert_int_eq(cg_kernel_source(dir, "a.cl", &src, &size, &err), CG_BAD_INPUT);
  ck_assert_msg(strstr(err.msg, "b.cl") && strstr(err.msg, "one level"), "%s", err.msg);
  /* a missing included file is named */
  snprintf(path, sizeof path, "%s/a.cl", dir);
  cg_test_write_file(path, "#include \"missing.cl\"\n");
  err = (cg_error){0};
  ck_assert_int_ne(cg_kernel_source(dir, "a.cl", &src, &size, &err), CG_OK);
  ck_assert_msg(strstr(err.msg, "missing.cl"), "%s", err.msg);
  cg_test_rmtree(dir);
}
END_TEST

/* ---- the barrier ---- */

static cg_device *open_device(const cg_device_info *info) {
  cg_device *dev = NULL;
  cg_error err = {0};
  ck_assert_msg(cg_device_open(info, &dev, &err) == CG_OK, "%s: %s", info->name, err.msg);
  return dev;
}

/* grid_test with `groups` groups of `local` work-items over `rounds` barriers: whether the
 * launch failed, and (failed or not) every group's count of wrong slots must be zero. */
static bool run_grid_test(cg_device *dev, cl_program program, int groups, size_t local,
                          int rounds, int spin) {
  const cg_device_info *info = cg_device_get_info(dev);
  cl_command_queue q = cg_device_queue(dev);
  cl_context ctx = cg_device_context(dev);
  cl_int code = CL_SUCCESS;
  cg_error err = {0};
  cl_kernel k = clCreateKernel(program, "grid_test", &code);
  ck_assert_int_eq(code, CL_SUCCESS);
  cg_grid g;
  ck_assert_msg(cg_grid_create(dev, &g, &err) == CG_OK, "%s", err.msg);
  cl_mem seen = clCreateBuffer(ctx, CL_MEM_READ_WRITE, 2 * (size_t)groups * sizeof(cl_int), NULL,
                               &code);
  ck_assert_int_eq(code, CL_SUCCESS);
  cl_mem wrong = clCreateBuffer(ctx, CL_MEM_READ_WRITE, (size_t)groups * sizeof(cl_int), NULL,
                                &code);
  ck_assert_int_eq(code, CL_SUCCESS);
  ck_assert_int_eq(clSetKernelArg(k, 0, sizeof(cl_mem), &g.state), CL_SUCCESS);
  ck_assert_int_eq(clSetKernelArg(k, 1, sizeof spin, &spin), CL_SUCCESS);
  ck_assert_int_eq(clSetKernelArg(k, 2, sizeof rounds, &rounds), CL_SUCCESS);
  ck_assert_int_eq(clSetKernelArg(k, 3, sizeof(cl_mem), &seen), CL_SUCCESS);
  ck_assert_int_eq(clSetKernelArg(k, 4, sizeof(cl_mem), &wrong), CL_SUCCESS);
  const size_t global = (size_t)groups * local;
  ck_assert_int_eq(clEnqueueNDRangeKernel(q, k, 1, NULL, &global, &local, 0, NULL, NULL),
                   CL_SUCCESS);
  ck_assert_msg(cg_grid_read_failure(q, &g, &err) == CG_OK, "%s", err.msg);
  cl_int *counts = malloc((size_t)groups * sizeof *counts);
  ck_assert_int_eq(clEnqueueReadBuffer(q, wrong, CL_TRUE, 0, (size_t)groups * sizeof *counts,
                                       counts, 0, NULL, NULL),
                   CL_SUCCESS);
  for (int i = 0; i < groups; ++i)
    ck_assert_msg(counts[i] == 0, "%s (%s): failed %d: %d groups of %zu, %d rounds: group %d saw %d wrong slots",
                  info->name, info->platform, (int)cg_grid_failed(&g), groups, local, rounds, i, counts[i]);
  const bool failed = cg_grid_failed(&g);
  free(counts);
  clReleaseMemObject(seen);
  clReleaseMemObject(wrong);
  cg_grid_release(&g);
  clReleaseKernel(k);
  return failed;
}

START_TEST(test_barrier_every_device) {
  cg_device_list list;
  cg_test_devices(&list);
  for (int i = 0; i < list.count; ++i) {
    const cg_device_info *info = &list.items[i];
    cg_device *dev = open_device(info);
    cl_program program = NULL;
    cg_error err = {0};
    ck_assert_msg(cg_program_build(dev, NULL, "grid_discover.cl", NULL, &program, NULL, &err) ==
                      CG_OK,
                  "%s: %s", info->name, err.msg);
    size_t allowed = 1;
    cl_kernel k = clCreateKernel(program, "grid_test", NULL);
    clGetKernelWorkGroupInfo(k, info->id, CL_KERNEL_WORK_GROUP_SIZE, sizeof allowed, &allowed,
                             NULL);
    clReleaseKernel(k);
    const size_t local = allowed < 8 ? allowed : 8;
    /* one group always passes; a few may, or fail without a wrong slot */
    ck_assert_msg(!run_grid_test(dev, program, 1, local, 37, CG_GRID_SPIN), "%s: one group failed",
                  info->name);
    for (int groups = 2; groups <= 3; ++groups) {
      const bool failed = run_grid_test(dev, program, groups, local, 101, CG_GRID_SPIN);
      printf("%s (%s): %d groups of %zu, 101 barriers: %s\n", info->name, info->platform, groups, local,
             failed ? "failed (not resident at once)" : "passed");
    }
    /* far more groups than any CPU driver runs at once: fails, and never hangs */
    if (!(info->type & CL_DEVICE_TYPE_GPU))
      ck_assert_msg(run_grid_test(dev, program, 4096, 1, 3, 1 << 12), "%s: 4096 groups passed",
                    info->name);
    clReleaseProgram(program);
    cg_device_close(dev);
  }
  cg_device_list_free(&list);
}
END_TEST

START_TEST(test_residency_every_device) {
  cg_device_list list;
  cg_test_devices(&list);
  for (int i = 0; i < list.count; ++i) {
    const cg_device_info *info = &list.items[i];
    cg_device *dev = open_device(info);
    cg_error err = {0};
    cg_grid_verdict v;
    ck_assert_msg(cg_grid_residency(dev, NULL, (cg_grid_shape){1, 1, 64}, &v, &err) == CG_OK,
                  "%s: %s", info->name, err.msg);
    ck_assert_msg(v.resident, "%s: one group not resident: %s", info->name, v.why);
    /* more groups than fit any device at once */
    const cg_grid_shape many = {1u << 16, 1, 4};
    ck_assert_msg(cg_grid_residency(dev, NULL, many, &v, &err) == CG_OK, "%s", err.msg);
    ck_assert_msg(!v.resident, "%s: 65536 groups resident: %s", info->name, v.why);
    printf("%s (%s): %s\n", info->name, info->platform, v.why);
    ck_assert_msg(strstr(v.why, "65536 work-groups"), "%s", v.why);
    /* remembered: the same answer */
    cg_grid_verdict again;
    ck_assert_msg(cg_grid_residency(dev, NULL, many, &again, &err) == CG_OK, "%s", err.msg);
    ck_assert_str_eq(again.why, v.why);
    /* beyond the device's local memory: no launch */
    const cg_grid_shape big = {2, 1, (size_t)info->local_mem + 1};
    ck_assert_msg(cg_grid_residency(dev, NULL, big, &v, &err) == CG_OK, "%s", err.msg);
    ck_assert_msg(!v.resident && strstr(v.why, "not established"), "%s", v.why);
    err = (cg_error){0};
    ck_assert_int_eq(cg_grid_residency(dev, NULL, (cg_grid_shape){0, 1, 0}, &v, &err),
                     CG_BAD_INPUT);
    ck_assert_msg(strstr(err.msg, "0 work-groups"), "%s", err.msg);
    cg_device_close(dev);
  }
  cg_device_list_free(&list);
}
END_TEST

Suite *cg_grid_suite(void) {
  Suite *s = suite_create("grid");
  TCase *tc = tcase_create("include");
  tcase_add_test(tc, test_include_expanded);
  tcase_add_test(tc, test_include_refused);
  suite_add_tcase(s, tc);
  tc = tcase_create("barrier");
  tcase_set_timeout(tc, CG_TEST_OPENCL_TIMEOUT);
  tcase_add_test(tc, test_barrier_every_device);
  tcase_add_test(tc, test_residency_every_device);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return cg_test_main(cg_grid_suite, true); }
