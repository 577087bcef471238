/* Check suite of the program module: the embedded kernels against the .cl files of cl/, kernel
 * sources read from a directory (special files refused), program builds (good and broken), the
 * binary cache's entries (parsed without a device) and the binary cache on every device: damaged,
 * truncated and special entries, and a cache that cannot be written. */
#define _DEFAULT_SOURCE /* syscall(), for capget and capset */
#include <CL/cl.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "clgauge/binary_cache.h"
#include "clgauge/device.h"
#include "clgauge/files.h"
#include "clgauge/program.h"
#include "clgauge/random.h"
#include "clgauge/reference.h"
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

/* Special files where a kernel source is read: refused with the reason, never read from (a FIFO
 * with no writer would block the build for ever; a directory once made malloc ask for 2^63
 * bytes). This case runs under Check's 4-second timeout. */
START_TEST(test_source_special_files) {
  char dir[256], path[512];
  cg_test_tempdir(dir, sizeof dir);
  snprintf(path, sizeof path, "%s/matmul.cl", dir);
  const char *kinds[] = {"a FIFO", "a directory"};
  for (int kind = 0; kind < 2; ++kind) {
    ck_assert_int_eq(kind == 0 ? mkfifo(path, 0600) : mkdir(path, 0700), 0);
    char *source = (char *)"untouched";
    size_t size = 12345;
    cg_error err = {0};
    ck_assert_int_eq(cg_kernel_source(dir, "matmul.cl", &source, &size, &err), CG_BAD_INPUT);
    char expected[700];
    snprintf(expected, sizeof expected, "cannot read '%s': %s (kernel file)", path, kinds[kind]);
    ck_assert_str_eq(err.msg, expected);
    ck_assert_str_eq(source, "untouched");
    ck_assert_uint_eq(size, 12345);
    ck_assert_int_eq(remove(path), 0);
  }
  cg_test_rmtree(dir);
}
END_TEST

/* cg_file_read itself: a device refused, an empty file read as empty, a file named through a
 * symbolic link read as the file. */
START_TEST(test_file_read_kinds) {
  char *data = (char *)"untouched";
  size_t size = 12345;
  cg_error err = {0};
  ck_assert_int_eq(cg_file_read("/dev/zero", &data, &size, &err), CG_BAD_INPUT);
  ck_assert_str_eq(err.msg, "cannot read '/dev/zero': a device");
  ck_assert_str_eq(data, "untouched");
  char dir[256], path[512], link[512];
  cg_test_tempdir(dir, sizeof dir);
  snprintf(path, sizeof path, "%s/empty.cl", dir);
  cg_test_write_file(path, "");
  ck_assert_msg(cg_file_read(path, &data, &size, &err) == CG_OK, "%s", err.msg);
  ck_assert_uint_eq(size, 0);
  ck_assert_str_eq(data, "");
  free(data);
  cg_test_write_file(path, "__kernel void k(void) {}\n");
  snprintf(link, sizeof link, "%s/link.cl", dir);
  ck_assert_int_eq(symlink(path, link), 0);
  ck_assert_msg(cg_file_read(link, &data, &size, &err) == CG_OK, "%s", err.msg);
  ck_assert_str_eq(data, "__kernel void k(void) {}\n");
  free(data);
  cg_test_rmtree(dir);
}
END_TEST

/* ---- the binary cache's entries, without a device ---- */

/* An entry as the cache writes it, malloc'd: the header, then the body; *header its length. */
static unsigned char *make_entry(uint64_t key, const unsigned char *body, size_t size,
                                 size_t *header) {
  char line[128];
  const int h = cg_cache_entry_header(line, sizeof line, key, body, size);
  ck_assert(h > 0 && (size_t)h < sizeof line);
  unsigned char *e = malloc((size_t)h + size);
  ck_assert_ptr_nonnull(e);
  memcpy(e, line, (size_t)h);
  memcpy(e + h, body, size);
  *header = (size_t)h;
  return e;
}

enum { BODY = 300 };

static void random_body(unsigned char *body, uint64_t *key) {
  cg_rng rng;
  cg_rng_seed(&rng, cg_test_seed());
  for (int i = 0; i < BODY; ++i) body[i] = (unsigned char)cg_rng_next(&rng);
  *key = cg_rng_next(&rng);
}

START_TEST(test_entry_whole) {
  unsigned char body[BODY];
  uint64_t key = 0;
  random_body(body, &key);
  size_t header = 0;
  unsigned char *e = make_entry(key, body, BODY, &header);
  char expected[64];
  snprintf(expected, sizeof expected, "clgauge-program-binary 2 %016llx %d ",
           (unsigned long long)key, BODY);
  ck_assert_msg(memcmp(e, expected, strlen(expected)) == 0, "header: %.*s", (int)header, e);
  ck_assert_uint_eq(header, strlen(expected) + 17);
  ck_assert_int_eq(e[header - 1], '\n');
  cg_cache_entry entry;
  ck_assert_int_eq(cg_cache_entry_parse(e, header + BODY, &entry), CG_ENTRY_OK);
  ck_assert_uint_eq(entry.key, key);
  ck_assert_ptr_eq(entry.body, e + header);
  ck_assert_uint_eq(entry.size, BODY);
  free(e);
}
END_TEST

/* Any byte of the body changed, any one bit of it: the checksum fails. */
START_TEST(test_entry_damaged_body) {
  unsigned char body[BODY];
  uint64_t key = 0;
  random_body(body, &key);
  size_t header = 0;
  unsigned char *e = make_entry(key, body, BODY, &header);
  for (size_t i = 0; i < BODY; ++i) {
    e[header + i] ^= (unsigned char)(1u << (i % 8));
    cg_cache_entry entry = {.key = 7};
    ck_assert_msg(cg_cache_entry_parse(e, header + BODY, &entry) == CG_ENTRY_DAMAGED,
                  "byte %zu of the body changed unnoticed", i);
    ck_assert_uint_eq(entry.key, 7); /* untouched */
    e[header + i] ^= (unsigned char)(1u << (i % 8));
  }
  ck_assert_int_eq(cg_cache_entry_parse(e, header + BODY, &(cg_cache_entry){0}), CG_ENTRY_OK);
  free(e);
}
END_TEST

/* Every prefix of an entry is truncated; a byte more is damage. */
START_TEST(test_entry_truncated) {
  unsigned char body[BODY];
  uint64_t key = 0;
  random_body(body, &key);
  size_t header = 0;
  unsigned char *e = make_entry(key, body, BODY, &header);
  cg_cache_entry entry;
  for (size_t n = 0; n < header + BODY; ++n) {
    /* a copy of exactly n bytes, so that a read past them shows under a sanitizer */
    unsigned char *cut = malloc(n ? n : 1);
    memcpy(cut, e, n);
    ck_assert_msg(cg_cache_entry_parse(cut, n, &entry) == CG_ENTRY_TRUNCATED,
                  "%zu of %zu bytes not seen as truncated", n, header + BODY);
    free(cut);
  }
  unsigned char *longer = malloc(header + BODY + 1);
  memcpy(longer, e, header + BODY);
  longer[header + BODY] = 0;
  ck_assert_int_eq(cg_cache_entry_parse(longer, header + BODY + 1, &entry), CG_ENTRY_DAMAGED);
  free(longer);
  free(e);
}
END_TEST

/* One byte of the header changed, to anything: refused, or (a digit of the key) parsed as
 * another program's entry, which the cache ignores. */
START_TEST(test_entry_header_changed) {
  unsigned char body[BODY];
  uint64_t key = 0;
  random_body(body, &key);
  size_t header = 0;
  unsigned char *e = make_entry(key, body, BODY, &header);
  const size_t key_at = strlen("clgauge-program-binary 2 ");
  for (size_t i = 0; i < header; ++i) {
    const unsigned char was = e[i];
    for (int c = 0; c < 256; ++c) {
      if (c == was) continue;
      e[i] = (unsigned char)c;
      cg_cache_entry entry = {0};
      const cg_cache_verdict v = cg_cache_entry_parse(e, header + BODY, &entry);
      const bool other_key = v == CG_ENTRY_OK && entry.key != key && i >= key_at &&
                             i < key_at + 16;
      ck_assert_msg(v != CG_ENTRY_OK || other_key, "byte %zu of the header set to %d: accepted",
                    i, c);
    }
    e[i] = was;
  }
  free(e);
}
END_TEST

/* Headers that are not the writer's form, each beside a body that would otherwise fit. */
START_TEST(test_entry_malformed_header) {
  const unsigned char body[] = "0123456789";
  char sum[20];
  {
    char line[128];
    cg_cache_entry_header(line, sizeof line, 1, body, 10);
    snprintf(sum, sizeof sum, "%.16s", line + strlen(line) - 17);
  }
  const struct {
    const char *format;
    cg_cache_verdict verdict;
  } cases[] = {
      {"clgauge-program-binary 2 0000000000000001 10 %s\n", CG_ENTRY_OK},
      {"clgauge-program-binary 1 0000000000000001 10\n", CG_ENTRY_FOREIGN},
      {"clgauge-program-binary 3 0000000000000001 10 %s\n", CG_ENTRY_FOREIGN},
      {"\x7f" "ELF binary of some other kind\n", CG_ENTRY_FOREIGN},
      {"clgauge-program-binary 2 000000000000000A 10 %s\n", CG_ENTRY_DAMAGED},
      {"clgauge-program-binary 2 1 10 %s\n", CG_ENTRY_DAMAGED},
      {"clgauge-program-binary 2 0000000000000001 010 %s\n", CG_ENTRY_DAMAGED},
      {"clgauge-program-binary 2 0000000000000001 +10 %s\n", CG_ENTRY_DAMAGED},
      {"clgauge-program-binary 2 0000000000000001 10  %s\n", CG_ENTRY_DAMAGED},
      {"clgauge-program-binary 2 0000000000000001 99999999999999999999 %s\n", CG_ENTRY_DAMAGED},
      {"clgauge-program-binary 2 0000000000000001 10 %s \n", CG_ENTRY_DAMAGED},
      {"clgauge-program-binary 2 0000000000000001 10 %s\r\n", CG_ENTRY_DAMAGED},
      {"clgauge-program-binary 2 0000000000000001 10 0000000000000000\n", CG_ENTRY_DAMAGED},
      {"clgauge-program-binary 2 0000000000000001 1000000000000000000000000000000000\n",
       CG_ENTRY_DAMAGED},
      {"clgauge-program-binary 2 0000000000000001 11 %s\n", CG_ENTRY_TRUNCATED},
      {"clgauge-program-binary 2 0000000000000001 9 %s\n", CG_ENTRY_DAMAGED},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
    char entry_bytes[256];
    int n = snprintf(entry_bytes, sizeof entry_bytes, cases[i].format, sum);
    memcpy(entry_bytes + n, body, 10);
    cg_cache_entry entry;
    ck_assert_msg(cg_cache_entry_parse(entry_bytes, (size_t)n + 10, &entry) == cases[i].verdict,
                  "case %zu (%s): verdict %d, not %d", i, cases[i].format,
                  cg_cache_entry_parse(entry_bytes, (size_t)n + 10, &entry), cases[i].verdict);
  }
  /* an empty body is never written, so never read either */
  char line[128];
  const int n = cg_cache_entry_header(line, sizeof line, 1, body, 0);
  ck_assert_int_eq(cg_cache_entry_parse(line, (size_t)n, &(cg_cache_entry){0}), CG_ENTRY_DAMAGED);
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
      const cg_program_store store = {dirs[d], NULL};
      cg_build_result result = {.origin = CG_BUILT_FROM_CACHE, .warning = "untouched"};
      cg_rc rc = cg_program_build(dev, &store, "matmul.cl", matmul_options, &program, &result,
                                  &err);
      ck_assert_msg(rc == CG_OK, "device %d (%s): %s", i, info->name, err.msg);
      ck_assert_ptr_nonnull(program);
      ck_assert_int_eq(result.origin, CG_BUILT_FROM_SOURCE);
      ck_assert_str_eq(result.warning, "");
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
    ck_assert_msg(cg_program_build(dev, NULL, "stamp.cl", NULL, &stamp, NULL, &err) == CG_OK,
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
    const cg_program_store store = {dir, NULL};
    cg_rc rc = cg_program_build(dev, &store, "matmul.cl", matmul_options, &program, NULL, &err);
    ck_assert_msg(rc == CG_ERROR, "device %d (%s): a broken kernel built (rc %d)", i, info->name,
                  rc);
    ck_assert_ptr_eq(program, (cl_program)(&list));
    ck_assert_int_eq(err.code, CL_BUILD_PROGRAM_FAILURE);
    const char *head = "clBuildProgram failed: CL_BUILD_PROGRAM_FAILURE";
    ck_assert_msg(strncmp(err.msg, head, strlen(head)) == 0, "device %d: message: %s", i,
                  err.msg);
    ck_assert_msg(strstr(err.msg, "src/opencl/program.c:") != NULL,
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
  const cg_program_store store = {dir, NULL};
  ck_assert_int_eq(cg_program_build(dev, &store, "matmul.cl", NULL, &program, NULL, &err),
                   CG_BAD_INPUT);
  ck_assert_ptr_null(program);
  ck_assert_msg(strstr(err.msg, dir) != NULL, "directory not named: %s", err.msg);
  cg_device_close(dev);
  cg_device_list_free(&list);
  cg_test_rmtree(dir);
}
END_TEST

/* ---- the binary cache ---- */

/* Run matmul_naive of the program on fresh random inputs (17x31x7: primes, no tile fits) and
 * compare with the host reference: a program loaded from the cache must compute, not only load. */
static void expect_naive_correct(cg_device *dev, cl_program program, const char *what) {
  enum { M = 17, N = 31, K = 7 };
  float A[M * K], B[K * N], C[M * N], ref[M * N];
  cg_rng rng;
  cg_rng_seed(&rng, cg_test_seed());
  cg_rng_fill_normal(&rng, A, M * K);
  cg_rng_fill_normal(&rng, B, K * N);
  for (int i = 0; i < M * N; ++i) C[i] = NAN; /* poisoned: unwritten elements show */
  cg_ref_sgemm(M, N, K, A, B, ref);
  cl_context ctx = cg_device_context(dev);
  cl_command_queue q = cg_device_queue(dev);
  cl_int code = CL_SUCCESS;
  cl_kernel kernel = clCreateKernel(program, "matmul_naive", &code);
  ck_assert_msg(code == CL_SUCCESS, "%s: clCreateKernel %d", what, code);
  cl_mem a = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof A, A, &code);
  cl_mem b = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof B, B, &code);
  cl_mem c = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof C, C, &code);
  ck_assert_msg(code == CL_SUCCESS, "%s: clCreateBuffer %d", what, code);
  const cl_int m = M, n = N, k = K;
  clSetKernelArg(kernel, 0, sizeof m, &m);
  clSetKernelArg(kernel, 1, sizeof n, &n);
  clSetKernelArg(kernel, 2, sizeof k, &k);
  clSetKernelArg(kernel, 3, sizeof a, &a);
  clSetKernelArg(kernel, 4, sizeof b, &b);
  clSetKernelArg(kernel, 5, sizeof c, &c);
  const size_t global[2] = {N, M};
  ck_assert_int_eq(clEnqueueNDRangeKernel(q, kernel, 2, NULL, global, NULL, 0, NULL, NULL),
                   CL_SUCCESS);
  ck_assert_int_eq(clEnqueueReadBuffer(q, c, CL_TRUE, 0, sizeof C, C, 0, NULL, NULL),
                   CL_SUCCESS);
  double e = cg_rel_error(C, ref, M * N);
  ck_assert_msg(e <= cg_matmul_tolerance(K), "%s: relative error %g", what, e);
  clReleaseMemObject(a);
  clReleaseMemObject(b);
  clReleaseMemObject(c);
  clReleaseKernel(kernel);
}

/* A build through the cache that must succeed and compute right; the warning (empty when none)
 * into warning when given, else there must be none. */
static cg_build_origin build_cached_warn(cg_device *dev, const cg_program_store *store,
                                         const char *options, const char *what, char *warning,
                                         size_t warning_size) {
  cl_program program = NULL;
  cg_build_result result = {.origin = (cg_build_origin)-1};
  cg_error err = {0};
  ck_assert_msg(cg_program_build(dev, store, "matmul.cl", options, &program, &result, &err) ==
                    CG_OK,
                "%s: %s", what, err.msg);
  expect_naive_correct(dev, program, what);
  clReleaseProgram(program);
  if (warning)
    snprintf(warning, warning_size, "%s", result.warning);
  else
    ck_assert_msg(result.warning[0] == '\0', "%s: warning: %s", what, result.warning);
  return result.origin;
}

static cg_build_origin build_cached(cg_device *dev, const cg_program_store *store,
                                    const char *options, const char *what) {
  return build_cached_warn(dev, store, options, what, NULL, 0);
}

/* Whether a file name is an entry's description (binary_cache.h), which the counts below leave
 * out: they count entries, and anything else a store may leave. */
static bool is_description(const char *name) {
  const size_t n = strlen(name);
  return n > 4 && strcmp(name + n - 4, ".txt") == 0;
}

/* The files in dir but the descriptions. */
static int cache_files(const char *dir) {
  DIR *d = opendir(dir);
  ck_assert_ptr_nonnull(d);
  int n = 0;
  for (struct dirent *e; (e = readdir(d));)
    n += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0 && !is_description(e->d_name);
  closedir(d);
  return n;
}

/* The single entry in dir (the test leaves one there at a time). */
static void only_file(const char *dir, char *path, size_t size) {
  DIR *d = opendir(dir);
  ck_assert_ptr_nonnull(d);
  int n = 0;
  for (struct dirent *e; (e = readdir(d));)
    if (e->d_name[0] != '.' && !is_description(e->d_name)) {
      snprintf(path, size, "%s/%s", dir, e->d_name);
      n++;
    }
  closedir(d);
  ck_assert_int_eq(n, 1);
}

START_TEST(test_binary_cache) {
  cg_device_list list;
  cg_test_devices(&list);
  for (int i = 0; i < list.count; ++i) {
    const cg_device_info *info = &list.items[i];
    char dir[256], path[1024], what[400];
    cg_test_tempdir(dir, sizeof dir);
    cg_device *dev = open_device(info);
    const cg_program_store store = {NULL, dir};

    snprintf(what, sizeof what, "%s, first build", info->name);
    ck_assert_int_eq(build_cached(dev, &store, matmul_options, what), CG_BUILT_FROM_SOURCE);
    ck_assert_msg(cache_files(dir) == 1, "%s: %d files in the cache", info->name,
                  cache_files(dir));
    snprintf(what, sizeof what, "%s, second build", info->name);
    ck_assert_int_eq(build_cached(dev, &store, matmul_options, what), CG_BUILT_FROM_CACHE);

    /* Other options are another program: built from source, kept beside the first. */
    snprintf(what, sizeof what, "%s, other options", info->name);
    ck_assert_int_eq(build_cached(dev, &store, "-DTS=8 -DWPT=4 -DBK=8", what),
                     CG_BUILT_FROM_SOURCE);
    ck_assert_int_eq(cache_files(dir), 2);
    cg_test_rmtree(dir);
    cg_test_tempdir(dir, sizeof dir);

    /* A damaged file is rebuilt from source and replaced by a good one. */
    snprintf(what, sizeof what, "%s, after damage", info->name);
    ck_assert_int_eq(build_cached(dev, &store, matmul_options, what), CG_BUILT_FROM_SOURCE);
    only_file(dir, path, sizeof path);
    size_t size = 0;
    char *bin = cg_test_read_file(path, &size);
    ck_assert_ptr_nonnull(bin);
    ck_assert_uint_gt(size, 64);
    memset(bin + size / 2, 0xA5, size - size / 2);
    FILE *f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    ck_assert_uint_eq(fwrite(bin, 1, size / 2 + 10, f), size / 2 + 10); /* truncated, garbled */
    fclose(f);
    free(bin);
    char warning[1024];
    ck_assert_int_eq(build_cached_warn(dev, &store, matmul_options, what, warning, sizeof warning),
                     CG_BUILT_FROM_SOURCE);
    ck_assert_msg(strstr(warning, path) && strstr(warning, "rebuilt from source"),
                  "%s: warning '%s'", what, warning);
    snprintf(what, sizeof what, "%s, after the rebuild", info->name);
    ck_assert_int_eq(build_cached(dev, &store, matmul_options, what), CG_BUILT_FROM_CACHE);
    ck_assert_int_eq(cache_files(dir), 1);

    /* A changed source is another program too. */
    char kdir[256], kpath[512];
    cg_test_tempdir(kdir, sizeof kdir);
    snprintf(kpath, sizeof kpath, "%s/matmul.cl", kdir);
    size_t ksize = 0;
    char *source = cg_test_read_file(KERNEL_SOURCE_DIR "/matmul.cl", &ksize);
    ck_assert_ptr_nonnull(source);
    char *changed = malloc(ksize + 64);
    snprintf(changed, ksize + 64, "%s\n/* changed */\n", source);
    cg_test_write_file(kpath, changed);
    free(source);
    free(changed);
    const cg_program_store changed_store = {kdir, dir};
    snprintf(what, sizeof what, "%s, changed source", info->name);
    ck_assert_int_eq(build_cached(dev, &changed_store, matmul_options, what),
                     CG_BUILT_FROM_SOURCE);
    ck_assert_int_eq(cache_files(dir), 2);

    cg_device_close(dev);
    cg_test_rmtree(kdir);
    cg_test_rmtree(dir);
  }
  cg_device_list_free(&list);
}
END_TEST

/* Write size bytes to path, replacing it. */
static void write_bytes(const char *path, const void *data, size_t size) {
  FILE *f = fopen(path, "wb");
  ck_assert_msg(f != NULL, "cannot create %s: %s", path, strerror(errno));
  ck_assert_uint_eq(fwrite(data, 1, size, f), size);
  ck_assert_int_eq(fclose(f), 0);
}

/* The cache entry at path is whole and checks (the writer's own). */
static void expect_entry_whole(const char *path, const char *what) {
  size_t size = 0;
  char *data = cg_test_read_file(path, &size);
  ck_assert_msg(data != NULL, "%s: no entry at %s", what, path);
  cg_cache_entry entry;
  ck_assert_msg(cg_cache_entry_parse(data, size, &entry) == CG_ENTRY_OK,
                "%s: entry %s is not whole", what, path);
  free(data);
}

/* A fresh cache in dir holding the one entry of matmul.cl with matmul_options; its path. */
static void fill_cache(cg_device *dev, const char *dir, char *path, size_t size, const char *what) {
  const cg_program_store store = {NULL, dir};
  ck_assert_int_eq(build_cached(dev, &store, matmul_options, what), CG_BUILT_FROM_SOURCE);
  only_file(dir, path, size);
  expect_entry_whole(path, what);
}

/* After the entry was spoilt: rebuilt from source with a warning naming the entry and what was
 * wrong with it (and without reaching the driver: a damaged binary crashed PoCL), the entry
 * replaced by a whole one, served next time. */
static void expect_rebuilt_and_replaced(cg_device *dev, const char *dir, const char *path,
                                        const char *what, const char *wrong) {
  const cg_program_store store = {NULL, dir};
  char warning[1024];
  ck_assert_int_eq(build_cached_warn(dev, &store, matmul_options, what, warning, sizeof warning),
                   CG_BUILT_FROM_SOURCE);
  char expected[1200];
  snprintf(expected, sizeof expected, "binary cache: entry '%s' %s", path, wrong);
  ck_assert_msg(strncmp(warning, expected, strlen(expected)) == 0 &&
                    strstr(warning, "rebuilt from source"),
                "%s: warning '%s', expected '%s...'", what, warning, expected);
  ck_assert_int_eq(cache_files(dir), 1);
  expect_entry_whole(path, what);
  ck_assert_int_eq(build_cached(dev, &store, matmul_options, what), CG_BUILT_FROM_CACHE);
}

/* A header that stays valid over a body that does not: its checksum catches it. */
START_TEST(test_binary_cache_damaged_body) {
  cg_device_list list;
  cg_test_devices(&list);
  for (int i = 0; i < list.count; ++i) {
    char dir[256], path[1024], what[400];
    cg_test_tempdir(dir, sizeof dir);
    cg_device *dev = open_device(&list.items[i]);
    snprintf(what, sizeof what, "%s, damaged body", list.items[i].name);
    fill_cache(dev, dir, path, sizeof path, what);
    size_t size = 0;
    char *data = cg_test_read_file(path, &size);
    cg_cache_entry entry;
    ck_assert_int_eq(cg_cache_entry_parse(data, size, &entry), CG_ENTRY_OK);
    const size_t header = (size_t)(entry.body - (const unsigned char *)data);
    for (size_t b = header; b < size; b += 7) data[b] ^= 0x5a; /* every 7th byte of the body */
    write_bytes(path, data, size);
    ck_assert_int_eq(cg_cache_entry_parse(data, size, &entry), CG_ENTRY_DAMAGED);
    free(data);
    expect_rebuilt_and_replaced(dev, dir, path, what, "damaged");
    cg_device_close(dev);
    cg_test_rmtree(dir);
  }
  cg_device_list_free(&list);
}
END_TEST

/* Entries cut short in the body and in the header, and one of the previous format (a header
 * without a checksum): stale, rebuilt and replaced. */
START_TEST(test_binary_cache_truncated_entry) {
  cg_device_list list;
  cg_test_devices(&list);
  for (int i = 0; i < list.count; ++i) {
    char dir[256], path[1024], what[400];
    cg_test_tempdir(dir, sizeof dir);
    cg_device *dev = open_device(&list.items[i]);
    snprintf(what, sizeof what, "%s, truncated", list.items[i].name);
    fill_cache(dev, dir, path, sizeof path, what);
    size_t size = 0;
    char *data = cg_test_read_file(path, &size);
    cg_cache_entry entry;
    ck_assert_int_eq(cg_cache_entry_parse(data, size, &entry), CG_ENTRY_OK);
    const size_t header = (size_t)(entry.body - (const unsigned char *)data);
    const size_t cuts[] = {header + entry.size / 2, header + entry.size - 1, header - 5, 0};
    for (int c = 0; c < 4; ++c) {
      write_bytes(path, data, cuts[c]);
      expect_rebuilt_and_replaced(dev, dir, path, what, "truncated");
    }
    /* version 1: "clgauge-program-binary 1 <key> <size>\n" and the body */
    char old[128];
    const int n = snprintf(old, sizeof old, "clgauge-program-binary 1 %016llx %zu\n",
                           (unsigned long long)entry.key, entry.size);
    ck_assert_int_eq(cg_cache_entry_parse(old, (size_t)n, &entry), CG_ENTRY_FOREIGN);
    char *v1 = malloc((size_t)n + entry.size);
    memcpy(v1, old, (size_t)n);
    memcpy(v1 + n, data + header, entry.size);
    write_bytes(path, v1, (size_t)n + entry.size);
    free(v1);
    snprintf(what, sizeof what, "%s, entry of format 1", list.items[i].name);
    expect_rebuilt_and_replaced(dev, dir, path, what, "not an entry of this format");
    free(data);
    cg_device_close(dev);
    cg_test_rmtree(dir);
  }
  cg_device_list_free(&list);
}
END_TEST

/* A FIFO or a directory where the entry goes: never read (a FIFO would block), left as it is,
 * and the build succeeds with a warning naming the path. */
START_TEST(test_binary_cache_special_entry) {
  cg_device_list list;
  cg_test_devices(&list);
  cg_device *dev = open_device(&list.items[0]);
  for (int kind = 0; kind < 2; ++kind) {
    char dir[256], path[1024], what[400], warning[1024];
    cg_test_tempdir(dir, sizeof dir);
    snprintf(what, sizeof what, "%s at the entry's path", kind == 0 ? "a FIFO" : "a directory");
    fill_cache(dev, dir, path, sizeof path, what);
    ck_assert_int_eq(unlink(path), 0);
    ck_assert_int_eq(kind == 0 ? mkfifo(path, 0600) : mkdir(path, 0700), 0);
    const cg_program_store store = {NULL, dir};
    for (int twice = 0; twice < 2; ++twice) {
      ck_assert_int_eq(build_cached_warn(dev, &store, matmul_options, what, warning,
                                         sizeof warning),
                       CG_BUILT_FROM_SOURCE);
      char quoted[1100];
      snprintf(quoted, sizeof quoted, "'%s'", path);
      ck_assert_msg(strstr(warning, quoted) && strstr(warning, "not stored") &&
                        strncmp(warning, "binary cache: ", 14) == 0,
                    "%s: warning: '%s'", what, warning);
      struct stat st;
      ck_assert_int_eq(lstat(path, &st), 0);
      ck_assert_msg(kind == 0 ? S_ISFIFO(st.st_mode) : S_ISDIR(st.st_mode), "%s: replaced", what);
      ck_assert_int_eq(cache_files(dir), 1); /* no temporary file left behind */
    }
    cg_test_rmtree(dir);
  }
  cg_device_close(dev);
  cg_device_list_free(&list);
}
END_TEST

/* The capabilities of this process, and the same with CAP_DAC_OVERRIDE taken out of the
 * effective set: without it root, too, is held to a directory's permission bits. */
static void dac_override_set(bool on, struct __user_cap_data_struct saved[2]) {
  struct __user_cap_header_struct h = {_LINUX_CAPABILITY_VERSION_3, 0};
  if (!on) ck_assert_int_eq(syscall(SYS_capget, &h, saved), 0);
  struct __user_cap_data_struct d[2] = {saved[0], saved[1]};
  if (!on) d[0].effective &= ~(1u << CAP_DAC_OVERRIDE);
  ck_assert_msg(syscall(SYS_capset, &h, d) == 0, "capset: %s", strerror(errno));
}

/* A cache directory that cannot be written (it was checked up front; permissions change): every
 * build succeeds from source, with a warning naming the entry's path; nothing is left there. */
START_TEST(test_binary_cache_unwritable) {
  cg_device_list list;
  cg_test_devices(&list);
  cg_device *dev = open_device(&list.items[0]);
  char dir[256], prefix[400], warning[1024];
  cg_test_tempdir(dir, sizeof dir);
  ck_assert_int_eq(chmod(dir, 0500), 0);
  struct __user_cap_data_struct saved[2];
  dac_override_set(false, saved);
  char probe[300];
  snprintf(probe, sizeof probe, "%s/probe", dir);
  const int fd = open(probe, O_WRONLY | O_CREAT | O_EXCL, 0600);
  ck_assert_msg(fd < 0 && errno == EACCES, "%s is still writable", dir);
  const cg_program_store store = {NULL, dir};
  for (int twice = 0; twice < 2; ++twice) {
    ck_assert_int_eq(build_cached_warn(dev, &store, matmul_options, "unwritable cache", warning,
                                       sizeof warning),
                     CG_BUILT_FROM_SOURCE);
    snprintf(prefix, sizeof prefix, "binary cache: cannot write '%s/matmul-", dir);
    ck_assert_msg(strncmp(warning, prefix, strlen(prefix)) == 0 && strstr(warning, "not stored"),
                  "warning: '%s'", warning);
    ck_assert_int_eq(cg_test_dir_entries(dir), 0);
  }
  dac_override_set(true, saved);
  ck_assert_int_eq(chmod(dir, 0700), 0);
  cg_test_rmtree(dir);
  cg_device_close(dev);
  cg_device_list_free(&list);
}
END_TEST

/* A driver update is another key: the entry of the old driver is not used (built from source,
 * stored beside it), and the listing names both drivers; clear removes clgauge's entries and
 * descriptions only. */
START_TEST(test_binary_cache_driver_version) {
  cg_device_list list;
  cg_test_devices(&list);
  const cg_device_info *info = &list.items[0];
  cg_device_info updated = *info;
  snprintf(updated.driver_version, sizeof updated.driver_version, "%.100s (updated)",
           info->driver_version);
  char dir[256], path[512];
  cg_test_tempdir(dir, sizeof dir);
  const cg_program_store store = {NULL, dir};
  cg_device *dev = open_device(info);
  ck_assert_int_eq(build_cached(dev, &store, matmul_options, "old driver"), CG_BUILT_FROM_SOURCE);
  ck_assert_int_eq(build_cached(dev, &store, matmul_options, "old driver"), CG_BUILT_FROM_CACHE);
  cg_device_close(dev);
  dev = open_device(&updated);
  ck_assert_int_eq(build_cached(dev, &store, matmul_options, "new driver"), CG_BUILT_FROM_SOURCE);
  ck_assert_int_eq(build_cached(dev, &store, matmul_options, "new driver"), CG_BUILT_FROM_CACHE);
  cg_device_close(dev);
  ck_assert_int_eq(cache_files(dir), 2);

  /* someone else's files, which clear must leave: one named like an entry */
  snprintf(path, sizeof path, "%s/matmul-0123456789abcdef.bin", dir);
  cg_test_write_file(path, "not an entry\n");
  snprintf(path, sizeof path, "%s/README", dir);
  cg_test_write_file(path, "mine\n");
  cg_cache_item *items = NULL;
  int n = 0;
  cg_error err = {0};
  ck_assert_int_eq(cg_binary_cache_list(dir, &items, &n, &err), CG_OK);
  ck_assert_int_eq(n, 2);
  bool old_seen = false, new_seen = false;
  for (int i = 0; i < n; ++i) {
    ck_assert_str_eq(items[i].kernel, "matmul.cl");
    ck_assert_str_eq(items[i].device, info->name);
    ck_assert_str_eq(items[i].platform, info->platform);
    ck_assert_msg(items[i].whole, "%s is not whole", items[i].file);
    ck_assert_uint_gt(items[i].bytes, 64);
    ck_assert_msg(items[i].age_s >= 0 && items[i].age_s < 3600, "age %g s", items[i].age_s);
    old_seen |= strcmp(items[i].driver, info->driver_version) == 0;
    new_seen |= strcmp(items[i].driver, updated.driver_version) == 0;
  }
  ck_assert_msg(old_seen && new_seen, "the listing lacks a driver");
  free(items);
  int removed = -1;
  ck_assert_int_eq(cg_binary_cache_clear(dir, &removed, &err), CG_OK);
  ck_assert_int_eq(removed, 2);
  ck_assert_int_eq(cg_test_dir_entries(dir), 2); /* the two files of someone else's */
  ck_assert_int_eq(cg_binary_cache_list(dir, &items, &n, &err), CG_OK);
  ck_assert_int_eq(n, 0);
  free(items);
  cg_test_rmtree(dir);
  cg_device_list_free(&list);
}
END_TEST

/* Two processes storing the same entry again and again at the same time (each removes it and
 * builds from source): whatever the interleaving, every build succeeds without a warning, and
 * what is left is one whole entry that loads and computes. */
START_TEST(test_binary_cache_concurrent_writers) {
  char dir[256];
  cg_test_tempdir(dir, sizeof dir);
  pid_t pids[2];
  for (int w = 0; w < 2; ++w) {
    pids[w] = fork();
    ck_assert_int_ge(pids[w], 0);
    if (pids[w] == 0) {
      cg_device_list list;
      cg_test_devices(&list);
      cg_device *dev = open_device(&list.items[0]);
      const cg_program_store store = {NULL, dir};
      for (int round = 0; round < 4; ++round) {
        char path[512];
        DIR *d = opendir(dir);
        for (struct dirent *e; d && (e = readdir(d));)
          if (strstr(e->d_name, ".bin") && !strstr(e->d_name, ".tmp")) {
            snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
            unlink(path);
          }
        if (d) closedir(d);
        build_cached(dev, &store, matmul_options, "concurrent writer"); /* asserts no warning */
      }
      cg_device_close(dev);
      cg_device_list_free(&list);
      _exit(0);
    }
  }
  for (int w = 0; w < 2; ++w) {
    int status = 0;
    ck_assert_int_eq(waitpid(pids[w], &status, 0), pids[w]);
    ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "writer %d: status %d", w,
                  status);
  }
  cg_device_list list;
  cg_test_devices(&list);
  cg_device *dev = open_device(&list.items[0]);
  const cg_program_store store = {NULL, dir};
  /* the last writer's build stored an entry: whole, served and computing right */
  ck_assert_int_eq(cache_files(dir), 1);
  char path[1024];
  only_file(dir, path, sizeof path);
  expect_entry_whole(path, "after concurrent writers");
  ck_assert_int_eq(build_cached(dev, &store, matmul_options, "after concurrent writers"),
                   CG_BUILT_FROM_CACHE);
  cg_device_close(dev);
  cg_device_list_free(&list);
  cg_test_rmtree(dir);
}
END_TEST

/* The default place follows XDG_CACHE_HOME (absolute only), else HOME. */
START_TEST(test_binary_cache_default_dir) {
  char dir[512];
  cg_error err = {0};
  setenv("XDG_CACHE_HOME", "/x/cache", 1);
  setenv("HOME", "/home/u", 1);
  ck_assert_int_eq(cg_binary_cache_default_dir(dir, sizeof dir, &err), CG_OK);
  ck_assert_str_eq(dir, "/x/cache/clgauge");
  setenv("XDG_CACHE_HOME", "relative", 1);
  ck_assert_int_eq(cg_binary_cache_default_dir(dir, sizeof dir, &err), CG_OK);
  ck_assert_str_eq(dir, "/home/u/.cache/clgauge");
  unsetenv("XDG_CACHE_HOME");
  ck_assert_int_eq(cg_binary_cache_default_dir(dir, sizeof dir, &err), CG_OK);
  ck_assert_str_eq(dir, "/home/u/.cache/clgauge");
  unsetenv("HOME");
  ck_assert_int_eq(cg_binary_cache_default_dir(dir, sizeof dir, &err), CG_BAD_INPUT);
  /* a place under a file cannot be made */
  ck_assert_int_eq(cg_binary_cache_check("/dev/null/clgauge", &err), CG_BAD_INPUT);
  ck_assert_msg(strstr(err.msg, "/dev/null"), "message: %s", err.msg);
}
END_TEST

/* The driver-cache state follows the environment variables that switch the caches off. */
START_TEST(test_driver_cache_state) {
  cg_device_info nvidia = {.platform = "NVIDIA CUDA"};
  cg_device_info pocl = {.platform = "Portable Computing Language"};
  cg_device_info other = {.platform = "rusticl"};
  unsetenv("CUDA_CACHE_DISABLE");
  unsetenv("POCL_KERNEL_CACHE");
  ck_assert_str_eq(cg_driver_cache_state(&nvidia), "on");
  ck_assert_str_eq(cg_driver_cache_state(&pocl), "on");
  ck_assert_str_eq(cg_driver_cache_state(&other), "unknown");
  cg_driver_caches_disable();
  ck_assert_str_eq(cg_driver_cache_state(&nvidia), "off");
  ck_assert_str_eq(cg_driver_cache_state(&pocl), "off");
  ck_assert_str_eq(cg_driver_cache_state(&other), "unknown");
  ck_assert_str_eq(getenv("MESA_SHADER_CACHE_DISABLE"), "true");
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
  tcase_add_test(tc, test_source_special_files);
  tcase_add_test(tc, test_file_read_kinds);
  suite_add_tcase(s, tc);

  tc = tcase_create("cache entries");
  tcase_add_test(tc, test_entry_whole);
  tcase_add_test(tc, test_entry_damaged_body);
  tcase_add_test(tc, test_entry_truncated);
  tcase_add_test(tc, test_entry_header_changed);
  tcase_add_test(tc, test_entry_malformed_header);
  suite_add_tcase(s, tc);

  tc = tcase_create("build");
  tcase_set_timeout(tc, CG_TEST_OPENCL_TIMEOUT);
  tcase_add_test(tc, test_build_good);
  tcase_add_test(tc, test_build_broken);
  tcase_add_test(tc, test_build_missing_file);
  tcase_add_test(tc, test_binary_cache);
  tcase_add_test(tc, test_binary_cache_damaged_body);
  tcase_add_test(tc, test_binary_cache_truncated_entry);
  tcase_add_test(tc, test_binary_cache_special_entry);
  tcase_add_test(tc, test_binary_cache_unwritable);
  tcase_add_test(tc, test_binary_cache_driver_version);
  tcase_add_test(tc, test_binary_cache_concurrent_writers);
  suite_add_tcase(s, tc);

  tc = tcase_create("driver caches");
  tcase_add_test(tc, test_driver_cache_state);
  tcase_add_test(tc, test_binary_cache_default_dir);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return cg_test_main(cg_program_suite, true); }
