/* Check suite of the program module: the embedded kernels against the .cl files of cl/, kernel
 * sources read from a directory, and program builds (good and broken) on every device. */
#include <CL/cl.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clgauge/device.h"
#include "clgauge/program.h"
#include "test_util.h"

#ifndef CLGAUGE_SOURCE_DIR
#error "CLGAUGE_SOURCE_DIR must name the source tree"
#endif
#define KERNEL_SOURCE_DIR CLGAUGE_SOURCE_DIR "/cl"

/* Options the cl backend passes; the build must succeed with them on every device. */
static const char matmul_options[] = "-DTS=16 -DWPT=4 -DBK=16";

/* ---- embedded sources ---- */

START_TEST(test_embedded_equal_files) {
  int n = 0;
  for (const cg_embedded_kernel *k = cg_embedded_kernels; k->name; ++k, ++n) {
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", KERNEL_SOURCE_DIR, k->name);
    size_t size = 0;
    char *file = cg_test_read_file(path, &size);
    ck_assert_msg(file != NULL, "embedded kernel %s has no file %s", k->name, path);
    ck_assert_msg(k->size == size, "%s: embedded %zu bytes, file %zu", k->name, k->size, size);
    ck_assert_msg(memcmp(k->source, file, size) == 0, "%s differs from %s", k->name, path);
    ck_assert_msg(k->source[k->size] == '\0', "%s is not NUL-terminated", k->name);
    ck_assert_msg(strlen(k->source) == k->size, "%s holds a NUL byte", k->name);
    ck_assert_ptr_eq(cg_embedded_kernel_find(k->name), k);
    free(file);
  }
  ck_assert_int_gt(n, 0);
}
END_TEST

START_TEST(test_every_file_embedded) {
  DIR *dir = opendir(KERNEL_SOURCE_DIR);
  ck_assert_msg(dir != NULL, "cannot open %s", KERNEL_SOURCE_DIR);
  int files = 0;
  for (struct dirent *e; (e = readdir(dir));) {
    size_t len = strlen(e->d_name);
    if (len < 4 || strcmp(e->d_name + len - 3, ".cl") != 0) continue;
    files++;
    ck_assert_msg(cg_embedded_kernel_find(e->d_name) != NULL, "cl/%s is not embedded",
                  e->d_name);
  }
  closedir(dir);
  int embedded = 0;
  for (const cg_embedded_kernel *k = cg_embedded_kernels; k->name; ++k) embedded++;
  ck_assert_msg(files == embedded, "%d files in cl/, %d embedded", files, embedded);
  ck_assert_ptr_nonnull(cg_embedded_kernel_find("matmul.cl"));
  ck_assert_ptr_nonnull(cg_embedded_kernel_find("stamp.cl"));
  ck_assert_ptr_null(cg_embedded_kernel_find("no-such-kernel.cl"));
  ck_assert_ptr_null(cg_embedded_kernel_find("matmul"));
}
END_TEST

START_TEST(test_source_embedded) {
  const char *dirs[] = {NULL, ""}; /* both mean: the embedded copy */
  for (int d = 0; d < 2; ++d) {
    char *source = NULL;
    size_t size = 0;
    cg_error err = {0};
    ck_assert_msg(cg_kernel_source(dirs[d], "matmul.cl", &source, &size, &err) == CG_OK, "%s",
                  err.msg);
    const cg_embedded_kernel *k = cg_embedded_kernel_find("matmul.cl");
    ck_assert_uint_eq(size, k->size);
    ck_assert_msg(memcmp(source, k->source, size + 1) == 0, "not the embedded copy");
    ck_assert_ptr_ne(source, k->source); /* a copy the caller may free */
    free(source);
  }
  char *source = NULL;
  size_t size = 0;
  cg_error err = {0};
  ck_assert_int_ne(cg_kernel_source(NULL, "no-such-kernel.cl", &source, &size, &err), CG_OK);
  ck_assert_msg(strstr(err.msg, "'no-such-kernel.cl'") != NULL, "message: %s", err.msg);
}
END_TEST

START_TEST(test_source_from_directory) {
  char dir[256], path[512], text[256];
  cg_test_tempdir(dir, sizeof dir);
  uint64_t seed = cg_test_seed();
  snprintf(text, sizeof text, "/* marker %llu */\n__kernel void stamp(void) {}\n",
           (unsigned long long)seed);
  snprintf(path, sizeof path, "%s/stamp.cl", dir);
  cg_test_write_file(path, text);
  char *source = NULL;
  size_t size = 0;
  cg_error err = {0};
  ck_assert_msg(cg_kernel_source(dir, "stamp.cl", &source, &size, &err) == CG_OK, "%s", err.msg);
  ck_assert_uint_eq(size, strlen(text));
  ck_assert_str_eq(source, text);
  free(source);

  /* The real directory gives the same bytes as the embedded copy. */
  ck_assert_msg(cg_kernel_source(KERNEL_SOURCE_DIR, "matmul.cl", &source, &size, &err) == CG_OK,
                "%s", err.msg);
  ck_assert_uint_eq(size, cg_embedded_kernel_find("matmul.cl")->size);
  ck_assert_str_eq(source, cg_embedded_kernel_find("matmul.cl")->source);
  free(source);
  cg_test_rmtree(dir);
}
END_TEST

START_TEST(test_source_missing_file) {
  char dir[256], missing[600];
  cg_test_tempdir(dir, sizeof dir);
  const char *dirs[] = {dir, "/nonexistent-dir/kernels"};
  for (int d = 0; d < 2; ++d) {
    char *source = (char *)"untouched";
    size_t size = 12345;
    cg_error err = {0};
    ck_assert_int_eq(cg_kernel_source(dirs[d], "matmul.cl", &source, &size, &err), CG_BAD_INPUT);
    snprintf(missing, sizeof missing, "'%s/matmul.cl'", dirs[d]);
    ck_assert_msg(strstr(err.msg, missing) != NULL, "path %s not named in: %s", missing,
                  err.msg);
    ck_assert_str_eq(source, "untouched");
    ck_assert_uint_eq(size, 12345);
  }
  cg_test_rmtree(dir);
}
END_TEST

/* ---- builds on every device ---- */

static cg_device *open_device(const cg_device_info *info) {
  cg_device *dev = NULL;
  cg_error err = {0};
  ck_assert_msg(cg_device_open(info, &dev, &err) == CG_OK, "%s: %s", info->name, err.msg);
  return dev;
}

START_TEST(test_build_good) {
  cg_device_list list;
  cg_test_devices(&list);
  for (int i = 0; i < list.count; ++i) {
    const cg_device_info *info = &list.items[i];
    cg_device *dev = open_device(info);
    const char *dirs[] = {NULL, KERNEL_SOURCE_DIR};
    for (int d = 0; d < 2; ++d) {
      cl_program program = NULL;
      cg_error err = {0};
      cg_rc rc = cg_program_build(dev, dirs[d], "matmul.cl", matmul_options, &program, &err);
      ck_assert_msg(rc == CG_OK, "device %d (%s): %s", i, info->name, err.msg);
      ck_assert_ptr_nonnull(program);
      cl_build_status status = CL_BUILD_NONE;
      ck_assert_int_eq(clGetProgramBuildInfo(program, info->id, CL_PROGRAM_BUILD_STATUS,
                                             sizeof status, &status, NULL),
                       CL_SUCCESS);
      ck_assert_int_eq(status, CL_BUILD_SUCCESS);
      const char *kernels[] = {"matmul_naive", "matmul_tiled", "matmul_regblock"};
      for (int k = 0; k < 3; ++k) {
        cl_int code = CL_SUCCESS;
        cl_kernel kernel = clCreateKernel(program, kernels[k], &code);
        ck_assert_msg(code == CL_SUCCESS, "device %d: kernel %s: %d", i, kernels[k], code);
        clReleaseKernel(kernel);
      }
      clReleaseProgram(program);
    }
    cl_program stamp = NULL;
    cg_error err = {0};
    ck_assert_msg(cg_program_build(dev, NULL, "stamp.cl", NULL, &stamp, &err) == CG_OK,
                  "device %d: stamp.cl: %s", i, err.msg);
    clReleaseProgram(stamp);
    cg_device_close(dev);
  }
  cg_device_list_free(&list);
}
END_TEST

/* Line 4 of the file holds the error, so that the build log can point at it. */
static const char broken_source[] =
    "/* A kernel that does not compile, on purpose. */\n"
    "__kernel void matmul_naive(__global float *C) {\n"
    "  const int i = get_global_id(0);\n"
    "  C[i] = clgauge_undeclared_identifier * 2.0f;\n"
    "}\n";

START_TEST(test_build_broken) {
  char dir[256], path[512];
  cg_test_tempdir(dir, sizeof dir);
  snprintf(path, sizeof path, "%s/matmul.cl", dir);
  cg_test_write_file(path, broken_source);
  cg_device_list list;
  cg_test_devices(&list);
  for (int i = 0; i < list.count; ++i) {
    const cg_device_info *info = &list.items[i];
    cg_device *dev = open_device(info);
    cl_program program = (cl_program)(&list); /* must stay untouched */
    cg_error err = {0};
    cg_rc rc = cg_program_build(dev, dir, "matmul.cl", matmul_options, &program, &err);
    ck_assert_msg(rc == CG_ERROR, "device %d (%s): a broken kernel built (rc %d)", i, info->name,
                  rc);
    ck_assert_ptr_eq(program, (cl_program)(&list));
    ck_assert_int_eq(err.code, CL_BUILD_PROGRAM_FAILURE);
    const char *head = "clBuildProgram failed: CL_BUILD_PROGRAM_FAILURE";
    ck_assert_msg(strncmp(err.msg, head, strlen(head)) == 0, "device %d: message: %s", i,
                  err.msg);
    ck_assert_msg(strstr(err.msg, "src/runtime/program.c:") != NULL,
                  "device %d: no source location in: %s", i, err.msg);
    ck_assert_msg(strstr(err.msg, "matmul.cl") != NULL, "device %d: file not named: %s", i,
                  err.msg);
    const char *log = strstr(err.msg, "build log");
    ck_assert_msg(log != NULL, "device %d: no build log in: %s", i, err.msg);
    ck_assert_msg(strstr(log, "clgauge_undeclared_identifier") != NULL,
                  "device %d: the log does not name the culprit: %s", i, log);
    /* The compiler's line reference ("<source>:4:10: error: ...") is the file's own line. */
    ck_assert_msg(strstr(log, ":4:") != NULL, "device %d: no reference to line 4 in: %s", i,
                  log);
    cg_device_close(dev);
  }
  cg_device_list_free(&list);
  cg_test_rmtree(dir);
}
END_TEST

START_TEST(test_build_missing_file) {
  char dir[256];
  cg_test_tempdir(dir, sizeof dir);
  cg_device_list list;
  cg_test_devices(&list);
  cg_device *dev = open_device(&list.items[0]);
  cl_program program = NULL;
  cg_error err = {0};
  ck_assert_int_eq(cg_program_build(dev, dir, "matmul.cl", NULL, &program, &err), CG_BAD_INPUT);
  ck_assert_ptr_null(program);
  ck_assert_msg(strstr(err.msg, dir) != NULL, "directory not named: %s", err.msg);
  cg_device_close(dev);
  cg_device_list_free(&list);
  cg_test_rmtree(dir);
}
END_TEST

Suite *cg_program_suite(void) {
  Suite *s = suite_create("program");
  TCase *tc = tcase_create("sources");
  tcase_add_test(tc, test_embedded_equal_files);
  tcase_add_test(tc, test_every_file_embedded);
  tcase_add_test(tc, test_source_embedded);
  tcase_add_test(tc, test_source_from_directory);
  tcase_add_test(tc, test_source_missing_file);
  suite_add_tcase(s, tc);

  tc = tcase_create("build");
  tcase_set_timeout(tc, CG_TEST_OPENCL_TIMEOUT);
  tcase_add_test(tc, test_build_good);
  tcase_add_test(tc, test_build_broken);
  tcase_add_test(tc, test_build_missing_file);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return cg_test_main(cg_program_suite, true); }
