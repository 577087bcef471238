/* Check suite of the work-group limits the OpenCL backends choose within: the choosing functions
 * on made-up devices (one dimension narrower than the work-group, no local memory, emulated
 * local memory), and the limits read from every device and from a built kernel. */
#include <CL/cl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/opencl/opencl_backend.h"
#include "clgauge/device.h"
#include "clgauge/program.h"
#include "test_util.h"

static cg_cl_group_limits limits(size_t items, size_t dim0, size_t dim1, uint64_t local) {
  const size_t dims[2] = {dim0, dim1};
  return cg_cl_limits_of(items, dims, CL_LOCAL, local);
}

/* ---- the choosing functions ---- */

START_TEST(test_local_mem_type) {
  const size_t dims[2] = {1024, 1024};
  ck_assert_uint_eq(cg_cl_limits_of(1024, dims, CL_LOCAL, 32768).local_mem, 32768);
  /* emulated in global memory (PoCL, rusticl): still what a work-group may declare */
  ck_assert_uint_eq(cg_cl_limits_of(1024, dims, CL_GLOBAL, 524288).local_mem, 524288);
  /* a custom device without local memory may still report a size */
  ck_assert_uint_eq(cg_cl_limits_of(1024, dims, CL_NONE, 32768).local_mem, 0);
  const cg_cl_group_limits l = cg_cl_limits_of(256, (const size_t[2]){64, 8}, CL_LOCAL, 1);
  ck_assert_uint_eq(l.items, 256);
  ck_assert_uint_eq(l.dim[0], 64);
  ck_assert_uint_eq(l.dim[1], 8);
}
END_TEST

START_TEST(test_square_edge) {
  const struct {
    size_t items, dim0, dim1, cap, edge;
  } cases[] = {
      {1024, 1024, 1024, 16, 16}, /* a common GPU: the cap */
      {256, 256, 256, 16, 16},    {255, 255, 255, 16, 8}, {64, 64, 64, 16, 8},
      {32, 32, 32, 16, 4},        /* rusticl's kernels */
      {1024, 8, 1024, 16, 8},     /* the first dimension narrower than the square */
      {1024, 1024, 2, 16, 2},     /* the second */
      {1024, 1024, 1024, 5, 4},   /* a cap that is no power of two */
      {1, 1, 1, 16, 1},           {1024, 1024, 1024, 0, 1}, {3, 3, 3, 16, 1},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
    const cg_cl_group_limits l = limits(cases[i].items, cases[i].dim0, cases[i].dim1, 1);
    const size_t e = cg_cl_square_edge(&l, cases[i].cap);
    ck_assert_msg(e == cases[i].edge, "%zu items, %zu x %zu, cap %zu: edge %zu, expected %zu",
                  cases[i].items, cases[i].dim0, cases[i].dim1, cases[i].cap, e, cases[i].edge);
  }
}
END_TEST

START_TEST(test_row_width) {
  const struct {
    size_t items, dim0, cap, width;
  } cases[] = {
      {1024, 1024, 256, 256}, {1024, 256, 1024, 256}, /* the first dimension narrower */
      {1024, 48, 1024, 32},   {100, 1024, 1024, 64},  {1024, 1024, 100, 64},
      {32, 1024, 256, 32},    {1, 1, 256, 1},         {0, 0, 256, 1},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
    const cg_cl_group_limits l = limits(cases[i].items, cases[i].dim0, 1, 1);
    const size_t w = cg_cl_row_width(&l, cases[i].cap);
    ck_assert_msg(w == cases[i].width, "%zu items, first dimension %zu, cap %zu: %zu, expected %zu",
                  cases[i].items, cases[i].dim0, cases[i].cap, w, cases[i].width);
  }
}
END_TEST

/* ---- on every device ---- */

START_TEST(test_device_limits) {
  cg_device_list list;
  cg_test_devices(&list);
  const cg_device_info *info = &list.items[_i];
  cg_error err = {0};
  cg_cl_group_limits l;
  ck_assert_msg(cg_cl_device_limits(info, &l, &err) == CG_OK, "%s: %s", info->name, err.msg);
  size_t dims[3] = {0, 0, 0};
  ck_assert_int_eq(clGetDeviceInfo(info->id, CL_DEVICE_MAX_WORK_ITEM_SIZES, sizeof dims, dims,
                                   NULL),
                   CL_SUCCESS);
  cl_device_local_mem_type type = CL_NONE;
  ck_assert_int_eq(
      clGetDeviceInfo(info->id, CL_DEVICE_LOCAL_MEM_TYPE, sizeof type, &type, NULL), CL_SUCCESS);
  ck_assert_uint_eq(l.items, info->max_work_group);
  ck_assert_msg(l.dim[0] == dims[0] && l.dim[1] == dims[1], "%s: %zu x %zu, the device %zu x %zu",
                info->name, l.dim[0], l.dim[1], dims[0], dims[1]);
  ck_assert_uint_eq(l.local_mem, type == CL_NONE ? 0 : info->local_mem);
  cg_device_list_free(&list);
}
END_TEST

/* A kernel's limits: its work-group within the device's, and the local memory left beside the
 * tiles it declares (matmul_tiled at TS=16: two 16 x 16 tiles of floats). */
START_TEST(test_kernel_limits) {
  cg_device_list list;
  cg_test_devices(&list);
  const cg_device_info *info = &list.items[_i];
  cg_error err = {0};
  cg_device *dev = NULL;
  ck_assert_msg(cg_device_open(info, &dev, &err) == CG_OK, "%s: %s", info->name, err.msg);
  cl_program program = NULL;
  ck_assert_msg(cg_program_build(dev, NULL, "matmul.cl", "-DTS=16 -DWPT=1 -DBK=16", &program,
                                 NULL, &err) == CG_OK,
                "%s: %s", info->name, err.msg);
  cl_int code = CL_SUCCESS;
  cl_kernel naive = clCreateKernel(program, "matmul_naive", &code);
  ck_assert_int_eq(code, CL_SUCCESS);
  cl_kernel tiled = clCreateKernel(program, "matmul_tiled", &code);
  ck_assert_int_eq(code, CL_SUCCESS);
  cg_cl_group_limits dev_limits;
  ck_assert_int_eq(cg_cl_device_limits(info, &dev_limits, &err), CG_OK);

  cg_cl_group_limits l = dev_limits;
  uint64_t used = 1;
  ck_assert_msg(cg_cl_kernel_limits(info, tiled, &l, &used, &err) == CG_OK, "%s", err.msg);
  const uint64_t tiles = 2 * 16 * 16 * sizeof(float);
  ck_assert_msg(used >= tiles, "%s: matmul_tiled uses %llu bytes of local memory, declares %llu",
                info->name, (unsigned long long)used, (unsigned long long)tiles);
  ck_assert_uint_eq(l.local_mem, dev_limits.local_mem - used);
  size_t wg = 0;
  ck_assert_int_eq(clGetKernelWorkGroupInfo(tiled, info->id, CL_KERNEL_WORK_GROUP_SIZE,
                                            sizeof wg, &wg, NULL),
                   CL_SUCCESS);
  ck_assert_uint_eq(l.items, wg < dev_limits.items ? wg : dev_limits.items);
  ck_assert_msg(l.dim[0] == dev_limits.dim[0] && l.dim[1] == dev_limits.dim[1], "%s", info->name);

  /* matmul_naive declares none; a NULL kernel_local is fine */
  l = dev_limits;
  ck_assert_int_eq(cg_cl_kernel_limits(info, naive, &l, NULL, &err), CG_OK);
  ck_assert_msg(l.local_mem + tiles > dev_limits.local_mem, "%s: %llu of %llu bytes left beside "
                "matmul_naive", info->name, (unsigned long long)l.local_mem,
                (unsigned long long)dev_limits.local_mem);
  clReleaseKernel(naive);
  clReleaseKernel(tiled);
  clReleaseProgram(program);
  cg_device_close(dev);
  cg_device_list_free(&list);
}
END_TEST

static Suite *limits_suite(void) {
  Suite *s = suite_create("limits");
  TCase *tc = tcase_create("choose");
  tcase_add_test(tc, test_local_mem_type);
  tcase_add_test(tc, test_square_edge);
  tcase_add_test(tc, test_row_width);
  suite_add_tcase(s, tc);
  tc = tcase_create("devices");
  tcase_set_timeout(tc, CG_TEST_OPENCL_TIMEOUT);
  const int devices = cg_test_device_count();
  tcase_add_loop_test(tc, test_device_limits, 0, devices > 0 ? devices : 0);
  tcase_add_loop_test(tc, test_kernel_limits, 0, devices > 0 ? devices : 0);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return cg_test_main(limits_suite, false); }
