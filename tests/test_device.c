/* Check suite of the device module: enumeration, every form of device selection, error names,
 * and opening a device. Every OpenCL object is created inside a test (Check forks each test). */
#include <CL/cl.h>
#include <clblast_c.h>
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "clgauge/clock.h"
#include "clgauge/device.h"
#include "clgauge/early.h"
#include "clgauge/error.h"
#include "clgauge/random.h"
#include "test_util.h"

/* ---- enumeration ---- */

static void check_text(const char *what, const char *text, int index) {
  ck_assert_msg(text[0] != '\0', "device %d: %s is empty", index, what);
  ck_assert_msg(strcmp(text, "?") != 0, "device %d: %s could not be queried", index, what);
}

START_TEST(test_enumeration_fields) {
  cg_device_list list;
  cg_test_devices(&list);
  ck_assert_int_gt(list.platforms, 0);
  ck_assert_msg(isfinite(list.query_ms) && list.query_ms >= 0, "query_ms %g", list.query_ms);
  for (int i = 0; i < list.count; ++i) {
    const cg_device_info *d = &list.items[i];
    ck_assert_msg(d->index == i, "device at position %d has index %d", i, d->index);
    ck_assert_msg(d->platform_index >= 0 && d->platform_index < list.platforms,
                  "device %d: platform index %d of %d platforms", i, d->platform_index,
                  list.platforms);
    ck_assert_msg(d->id != NULL && d->platform_id != NULL, "device %d: NULL ids", i);
    check_text("name", d->name, i);
    check_text("vendor", d->vendor, i);
    check_text("platform", d->platform, i);
    check_text("platform version", d->platform_version, i);
    check_text("driver version", d->driver_version, i);
    ck_assert_msg(strncmp(d->version, "OpenCL ", 7) == 0, "device %d: version '%s'", i,
                  d->version);
    ck_assert_msg(strncmp(d->c_version, "OpenCL C ", 9) == 0, "device %d: C version '%s'", i,
                  d->c_version);
    ck_assert_msg(d->type != 0, "device %d: no type", i);
    ck_assert_msg(d->compute_units > 0, "device %d: 0 compute units", i);
    ck_assert_msg(d->global_mem > 0 && d->max_alloc > 0 && d->local_mem > 0,
                  "device %d: memory sizes %llu/%llu/%llu", i,
                  (unsigned long long)d->global_mem, (unsigned long long)d->max_alloc,
                  (unsigned long long)d->local_mem);
    ck_assert_msg(d->max_alloc <= d->global_mem, "device %d: max allocation above global memory",
                  i);
    ck_assert_msg(d->max_work_group >= 1, "device %d: max work-group 0", i);
    if (d->type & (CL_DEVICE_TYPE_GPU | CL_DEVICE_TYPE_CPU | CL_DEVICE_TYPE_ACCELERATOR))
      ck_assert_msg(strcmp(cg_device_type_name(d->type), "other") != 0, "device %d: type name",
                    i);

    /* The recorded fields are what the driver says now. */
    char name[256] = "";
    ck_assert_int_eq(clGetDeviceInfo(d->id, CL_DEVICE_NAME, sizeof name, name, NULL), CL_SUCCESS);
    ck_assert_str_eq(name, d->name);
    cl_platform_id platform = NULL;
    ck_assert_int_eq(
        clGetDeviceInfo(d->id, CL_DEVICE_PLATFORM, sizeof platform, &platform, NULL), CL_SUCCESS);
    ck_assert_msg(platform == d->platform_id, "device %d: platform id differs from the driver's",
                  i);
  }
  cg_device_list_free(&list);
  ck_assert_int_eq(list.count, 0);
  ck_assert_ptr_null(list.items);
}
END_TEST

START_TEST(test_enumeration_indexes_consistent) {
  cg_device_list list;
  cg_test_devices(&list);
  for (int i = 0; i < list.count; ++i) {
    const cg_device_info *d = &list.items[i];
    if (i == 0) continue;
    const cg_device_info *prev = &list.items[i - 1];
    /* Platforms in order, devices numbered 0.. within their platform. */
    ck_assert_msg(d->platform_index >= prev->platform_index, "platform order at %d", i);
    if (d->platform_index == prev->platform_index) {
      ck_assert_int_eq(d->device_index, prev->device_index + 1);
      ck_assert_msg(d->platform_id == prev->platform_id, "platform id changes within platform");
      ck_assert_str_eq(d->platform, prev->platform);
    } else {
      ck_assert_int_eq(d->device_index, 0);
    }
  }
  ck_assert_int_eq(list.items[0].device_index, 0);

  /* The number of devices per platform is what the driver reports. */
  for (int i = 0; i < list.count; ++i) {
    if (list.items[i].device_index != 0) continue;
    cl_uint n = 0;
    ck_assert_int_eq(
        clGetDeviceIDs(list.items[i].platform_id, CL_DEVICE_TYPE_ALL, 0, NULL, &n), CL_SUCCESS);
    int listed = 0;
    for (int j = 0; j < list.count; ++j)
      listed += list.items[j].platform_index == list.items[i].platform_index;
    ck_assert_int_eq(listed, (int)n);
  }
  cg_device_list_free(&list);
}
END_TEST

/* The flat index of `clgauge list` is only useful if the order is the same every time. */
START_TEST(test_enumeration_stable) {
  cg_device_list a, b;
  cg_test_devices(&a);
  cg_test_devices(&b);
  ck_assert_int_eq(a.count, b.count);
  ck_assert_int_eq(a.platforms, b.platforms);
  for (int i = 0; i < a.count; ++i) {
    ck_assert_str_eq(a.items[i].name, b.items[i].name);
    ck_assert_str_eq(a.items[i].platform, b.items[i].platform);
    ck_assert_msg(a.items[i].id == b.items[i].id, "device %d: id differs between queries", i);
  }
  cg_device_list_free(&a);
  cg_device_list_free(&b);
}
END_TEST

/* ---- selection ---- */

static int select_ok(const cg_device_list *list, const char *selector) {
  cg_error err = {0};
  int index = -12345;
  cg_rc rc = cg_device_select(list, selector, &index, &err);
  ck_assert_msg(rc == CG_OK, "selector '%s': rc %d: %s", selector ? selector : "(null)", rc,
                err.msg);
  ck_assert_msg(index >= 0 && index < list->count, "selector '%s': index %d of %d",
                selector ? selector : "(null)", index, list->count);
  return index;
}

static void select_bad(const cg_device_list *list, const char *selector) {
  cg_error err = {0};
  int index = -12345;
  cg_rc rc = cg_device_select(list, selector, &index, &err);
  ck_assert_msg(rc == CG_BAD_INPUT, "selector '%s': expected CG_BAD_INPUT, got rc %d (index %d)",
                selector, rc, index);
  ck_assert_int_eq(err.rc, CG_BAD_INPUT);
  ck_assert_msg(index == -12345, "selector '%s': index written on failure", selector);
  char quoted[300];
  snprintf(quoted, sizeof quoted, "'%s'", selector);
  ck_assert_msg(strstr(err.msg, quoted) != NULL, "selector '%s' not named in: %s", selector,
                err.msg);
  ck_assert_msg(strchr(err.msg, '\n') == NULL, "message is not one line: %s", err.msg);
  /* An input error speaks to the user: no source location. */
  ck_assert_msg(strstr(err.msg, ".c:") == NULL, "source location in a user message: %s",
                err.msg);
}

START_TEST(test_select_default) {
  cg_device_list list;
  cg_test_devices(&list);
  int expected = 0;
  for (int i = list.count - 1; i >= 0; --i)
    if (list.items[i].type & CL_DEVICE_TYPE_GPU) expected = i;
  ck_assert_int_eq(select_ok(&list, NULL), expected);
  ck_assert_int_eq(select_ok(&list, ""), expected);
  cg_device_list_free(&list);
}
END_TEST

START_TEST(test_select_flat_index) {
  cg_device_list list;
  cg_test_devices(&list);
  ck_assert_int_eq(select_ok(&list, "0"), 0);
  for (int i = 0; i < list.count; ++i) {
    char sel[16];
    snprintf(sel, sizeof sel, "%d", i);
    ck_assert_int_eq(select_ok(&list, sel), i);
    ck_assert_int_eq(list.items[select_ok(&list, sel)].index, i);
  }
  cg_device_list_free(&list);
}
END_TEST

START_TEST(test_select_platform_device) {
  cg_device_list list;
  cg_test_devices(&list);
  for (int i = 0; i < list.count; ++i) {
    char sel[32];
    snprintf(sel, sizeof sel, "%d:%d", list.items[i].platform_index, list.items[i].device_index);
    ck_assert_msg(select_ok(&list, sel) == i, "selector '%s' did not give device %d", sel, i);
  }
  cg_device_list_free(&list);
}
END_TEST

static int first_of_type(const cg_device_list *list, cl_device_type type) {
  for (int i = 0; i < list->count; ++i)
    if (list->items[i].type & type) return i;
  return -1;
}

START_TEST(test_select_type) {
  cg_device_list list;
  cg_test_devices(&list);
  static const struct {
    const char *word, *upper;
    cl_device_type type;
  } types[] = {{"cpu", "CPU", CL_DEVICE_TYPE_CPU},
               {"gpu", "GPU", CL_DEVICE_TYPE_GPU},
               {"accelerator", "Accelerator", CL_DEVICE_TYPE_ACCELERATOR}};
  for (size_t t = 0; t < sizeof types / sizeof types[0]; ++t) {
    int expected = first_of_type(&list, types[t].type);
    if (expected >= 0) {
      ck_assert_int_eq(select_ok(&list, types[t].word), expected);
      ck_assert_int_eq(select_ok(&list, types[t].upper), expected);
    } else {
      select_bad(&list, types[t].word);
    }
  }
  cg_device_list_free(&list);
}
END_TEST

/* The first device whose vendor, name, platform name or platform/device version contains the
 * text (device.h), by an independent check. */
static int first_matching(const cg_device_list *list, const char *text) {
  for (int i = 0; i < list->count; ++i) {
    const cg_device_info *d = &list->items[i];
    if (cg_test_contains_nocase(d->vendor, text) || cg_test_contains_nocase(d->name, text) ||
        cg_test_contains_nocase(d->platform, text) ||
        cg_test_contains_nocase(d->platform_version, text) ||
        cg_test_contains_nocase(d->version, text))
      return i;
  }
  return -1;
}

START_TEST(test_select_substring) {
  cg_device_list list;
  cg_test_devices(&list);
  for (int i = 0; i < list.count; ++i) {
    const cg_device_info *d = &list.items[i];
    /* Whole name, upper-cased name, and a middle piece of the name. */
    char upper[256], piece[16];
    snprintf(upper, sizeof upper, "%s", d->name);
    for (char *c = upper; *c; ++c) *c = (char)toupper((unsigned char)*c);
    size_t len = strlen(d->name);
    snprintf(piece, sizeof piece, "%.7s", d->name + (len > 6 ? len / 2 - 3 : 0));
    const char *sels[] = {d->name, upper, piece, d->vendor};
    for (size_t s = 0; s < sizeof sels / sizeof sels[0]; ++s) {
      if (sels[s][0] >= '0' && sels[s][0] <= '9' && strspn(sels[s], "0123456789:") ==
                                                       strlen(sels[s]))
        continue; /* would read as an index */
      if (strcasecmp(sels[s], "cpu") == 0 || strcasecmp(sels[s], "gpu") == 0) continue;
      int expected = first_matching(&list, sels[s]);
      ck_assert_msg(expected >= 0, "internal: '%s' matches nothing", sels[s]);
      ck_assert_msg(select_ok(&list, sels[s]) == expected, "selector '%s': expected device %d",
                    sels[s], expected);
    }
  }
  cg_device_list_free(&list);
}
END_TEST

/* The names people type: "pocl" for PoCL (its device names are "pthread-<cpu>" and its platform
 * "Portable Computing Language", so only the platform vendor "The pocl project" or the version
 * "OpenCL 3.0 PoCL ..." carries the word), "llvmpipe" for rusticl. `clgauge matmul --help` names
 * "pocl" as an example of a --device selector. */
START_TEST(test_select_driver_names) {
  cg_device_list list;
  cg_test_devices(&list);
  int checked = 0;
  for (int i = 0; i < list.count; ++i) {
    const cg_device_info *d = &list.items[i];
    if (cg_test_contains_nocase(d->platform_version, "pocl")) {
      for (const char *const *s = (const char *const[]){"pocl", "PoCL", NULL}; *s; ++s) {
        cg_error err = {0};
        int index = -1;
        cg_rc rc = cg_device_select(&list, *s, &index, &err);
        ck_assert_msg(rc == CG_OK, "selector '%s' finds no PoCL device (device %d is '%s' on "
                      "'%s', %s): %s", *s, i, d->name, d->platform, d->platform_version, err.msg);
        ck_assert_msg(cg_test_contains_nocase(list.items[index].platform_version, "pocl"),
                      "selector '%s' gave device %d, not a PoCL device", *s, index);
      }
      checked++;
    }
    if (cg_test_contains_nocase(d->name, "llvmpipe")) {
      int index = select_ok(&list, "llvmpipe");
      ck_assert_msg(cg_test_contains_nocase(list.items[index].name, "llvmpipe"), "llvmpipe");
      ck_assert_int_eq(select_ok(&list, "LLVMpipe"), index);
      checked++;
    }
  }
  if (!checked) printf("no PoCL or llvmpipe device: driver-name selectors not exercised\n");
  cg_device_list_free(&list);
}
END_TEST

START_TEST(test_select_bad) {
  cg_device_list list;
  cg_test_devices(&list);
  char past_end[16], past_platforms[32], past_devices[32];
  snprintf(past_end, sizeof past_end, "%d", list.count);
  snprintf(past_platforms, sizeof past_platforms, "%d:0", list.platforms);
  snprintf(past_devices, sizeof past_devices, "0:%d", list.count + 1);
  const char *bad[] = {"99",   "0:99", "9:0",         "no-such-device", "-1", past_end,
                       "99999999999999999999", past_platforms, past_devices};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) select_bad(&list, bad[i]);
  cg_device_list_free(&list);
}
END_TEST

START_TEST(test_type_names) {
  ck_assert_str_eq(cg_device_type_name(CL_DEVICE_TYPE_GPU), "GPU");
  ck_assert_str_eq(cg_device_type_name(CL_DEVICE_TYPE_CPU), "CPU");
  ck_assert_str_eq(cg_device_type_name(CL_DEVICE_TYPE_ACCELERATOR), "accelerator");
  ck_assert_str_eq(cg_device_type_name(CL_DEVICE_TYPE_GPU | CL_DEVICE_TYPE_DEFAULT), "GPU");
  ck_assert_str_eq(cg_device_type_name(CL_DEVICE_TYPE_CUSTOM), "other");
  ck_assert_str_eq(cg_device_type_name(0), "other");
}
END_TEST

START_TEST(test_select_empty_list) {
  /* No device at all: a plain list, no OpenCL needed. */
  cg_device_list list = {.items = NULL, .count = 0, .platforms = 2};
  cg_error err = {0};
  int index = -7;
  ck_assert_int_eq(cg_device_select(&list, NULL, &index, &err), CG_UNSUPPORTED);
  ck_assert_int_eq(index, -7);
  ck_assert_msg(strstr(err.msg, "no OpenCL device") != NULL, "message: %s", err.msg);
  ck_assert_msg(strstr(err.msg, "2 platforms") != NULL, "message: %s", err.msg);
  ck_assert_int_eq(cg_device_select(&list, "0", &index, &err), CG_UNSUPPORTED);
}
END_TEST

/* Device lists, on a made-up list of three devices on two platforms (no OpenCL needed): "all",
 * indexes, platform:device pairs and names in the order given, a device named twice once, and
 * an item that matches nothing, an empty item or "all" inside a list refused, naming it. */
START_TEST(test_select_many) {
  cg_device_info items[3];
  memset(items, 0, sizeof items);
  const char *names[] = {"alpha gpu", "beta cpu", "gamma cpu"};
  const int platform[] = {0, 1, 1}, device[] = {0, 0, 1};
  for (int i = 0; i < 3; ++i) {
    items[i].index = i;
    items[i].platform_index = platform[i];
    items[i].device_index = device[i];
    snprintf(items[i].name, sizeof items[i].name, "%s", names[i]);
    items[i].type = i == 0 ? CL_DEVICE_TYPE_GPU : CL_DEVICE_TYPE_CPU;
  }
  cg_device_list list = {.items = items, .count = 3, .platforms = 2};
  cg_error err = {0};
  int idx[3] = {-1, -1, -1}, count = -1;
  ck_assert_int_eq(cg_device_select_many(&list, "all", idx, &count, &err), CG_OK);
  ck_assert_int_eq(count, 3);
  ck_assert(idx[0] == 0 && idx[1] == 1 && idx[2] == 2);
  ck_assert_int_eq(cg_device_select_many(&list, "2,0", idx, &count, &err), CG_OK);
  ck_assert(count == 2 && idx[0] == 2 && idx[1] == 0);
  ck_assert_int_eq(cg_device_select_many(&list, "1:1,0:0,gamma", idx, &count, &err), CG_OK);
  ck_assert(count == 2 && idx[0] == 2 && idx[1] == 0);
  ck_assert_int_eq(cg_device_select_many(&list, "beta,alpha", idx, &count, &err), CG_OK);
  ck_assert(count == 2 && idx[0] == 1 && idx[1] == 0);
  ck_assert(cg_device_selector_is_list("all") && cg_device_selector_is_list("0,1") &&
            !cg_device_selector_is_list("0") && !cg_device_selector_is_list(NULL));
  const char *bad[][2] = {{"0,delta", "'delta'"},
                          {"0,,1", "an empty item"},
                          {"0,", "an empty item"},
                          {"0,all", "'all' stands alone"},
                          {"0,7", "'7'"}};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
    err = (cg_error){0};
    ck_assert_int_eq(cg_device_select_many(&list, bad[i][0], idx, &count, &err), CG_BAD_INPUT);
    ck_assert_msg(strstr(err.msg, bad[i][1]), "%s: %s", bad[i][0], err.msg);
  }
}
END_TEST

/* ---- error names ---- */

typedef struct named_code {
  int code;
  const char *name;
} named_code;
#define NAMED(c) {c, #c}

START_TEST(test_error_names_opencl) {
  ck_assert_str_eq(cg_cl_error_name(-11), "CL_BUILD_PROGRAM_FAILURE");
  ck_assert_str_eq(cg_cl_error_name(0), "CL_SUCCESS");
  ck_assert_str_eq(cg_cl_error_name(-1001), "CL_PLATFORM_NOT_FOUND_KHR");
  static const named_code codes[] = {
      NAMED(CL_DEVICE_NOT_FOUND), NAMED(CL_DEVICE_NOT_AVAILABLE), NAMED(CL_COMPILER_NOT_AVAILABLE),
      NAMED(CL_MEM_OBJECT_ALLOCATION_FAILURE), NAMED(CL_OUT_OF_RESOURCES),
      NAMED(CL_OUT_OF_HOST_MEMORY), NAMED(CL_PROFILING_INFO_NOT_AVAILABLE),
      NAMED(CL_MEM_COPY_OVERLAP), NAMED(CL_IMAGE_FORMAT_MISMATCH),
      NAMED(CL_IMAGE_FORMAT_NOT_SUPPORTED), NAMED(CL_BUILD_PROGRAM_FAILURE), NAMED(CL_MAP_FAILURE),
      NAMED(CL_MISALIGNED_SUB_BUFFER_OFFSET), NAMED(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST),
      NAMED(CL_COMPILE_PROGRAM_FAILURE), NAMED(CL_LINKER_NOT_AVAILABLE),
      NAMED(CL_LINK_PROGRAM_FAILURE), NAMED(CL_DEVICE_PARTITION_FAILED),
      NAMED(CL_KERNEL_ARG_INFO_NOT_AVAILABLE), NAMED(CL_INVALID_VALUE),
      NAMED(CL_INVALID_DEVICE_TYPE), NAMED(CL_INVALID_PLATFORM), NAMED(CL_INVALID_DEVICE),
      NAMED(CL_INVALID_CONTEXT), NAMED(CL_INVALID_QUEUE_PROPERTIES),
      NAMED(CL_INVALID_COMMAND_QUEUE), NAMED(CL_INVALID_HOST_PTR), NAMED(CL_INVALID_MEM_OBJECT),
      NAMED(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR), NAMED(CL_INVALID_IMAGE_SIZE),
      NAMED(CL_INVALID_SAMPLER), NAMED(CL_INVALID_BINARY), NAMED(CL_INVALID_BUILD_OPTIONS),
      NAMED(CL_INVALID_PROGRAM), NAMED(CL_INVALID_PROGRAM_EXECUTABLE),
      NAMED(CL_INVALID_KERNEL_NAME), NAMED(CL_INVALID_KERNEL_DEFINITION), NAMED(CL_INVALID_KERNEL),
      NAMED(CL_INVALID_ARG_INDEX), NAMED(CL_INVALID_ARG_VALUE), NAMED(CL_INVALID_ARG_SIZE),
      NAMED(CL_INVALID_KERNEL_ARGS), NAMED(CL_INVALID_WORK_DIMENSION),
      NAMED(CL_INVALID_WORK_GROUP_SIZE), NAMED(CL_INVALID_WORK_ITEM_SIZE),
      NAMED(CL_INVALID_GLOBAL_OFFSET), NAMED(CL_INVALID_EVENT_WAIT_LIST), NAMED(CL_INVALID_EVENT),
      NAMED(CL_INVALID_OPERATION), NAMED(CL_INVALID_GL_OBJECT), NAMED(CL_INVALID_BUFFER_SIZE),
      NAMED(CL_INVALID_MIP_LEVEL), NAMED(CL_INVALID_GLOBAL_WORK_SIZE), NAMED(CL_INVALID_PROPERTY),
      NAMED(CL_INVALID_IMAGE_DESCRIPTOR), NAMED(CL_INVALID_COMPILER_OPTIONS),
      NAMED(CL_INVALID_LINKER_OPTIONS), NAMED(CL_INVALID_DEVICE_PARTITION_COUNT)};
  for (size_t i = 0; i < sizeof codes / sizeof codes[0]; ++i)
    ck_assert_msg(strcmp(cg_cl_error_name(codes[i].code), codes[i].name) == 0,
                  "code %d: '%s', expected '%s'", codes[i].code, cg_cl_error_name(codes[i].code),
                  codes[i].name);
}
END_TEST

START_TEST(test_error_names_clblast) {
  ck_assert_str_eq(cg_cl_error_name(-2046), "CLBlastInvalidLocalMemUsage");
  /* Every code CLBlast adds, with the name it has in clblast_c.h. */
  static const named_code codes[] = {
      NAMED(CLBlastNotImplemented),         NAMED(CLBlastInvalidMatrixA),
      NAMED(CLBlastInvalidMatrixB),         NAMED(CLBlastInvalidMatrixC),
      NAMED(CLBlastInvalidVectorX),         NAMED(CLBlastInvalidVectorY),
      NAMED(CLBlastInvalidDimension),       NAMED(CLBlastInvalidLeadDimA),
      NAMED(CLBlastInvalidLeadDimB),        NAMED(CLBlastInvalidLeadDimC),
      NAMED(CLBlastInvalidIncrementX),      NAMED(CLBlastInvalidIncrementY),
      NAMED(CLBlastInsufficientMemoryA),    NAMED(CLBlastInsufficientMemoryB),
      NAMED(CLBlastInsufficientMemoryC),    NAMED(CLBlastInsufficientMemoryX),
      NAMED(CLBlastInsufficientMemoryY),    NAMED(CLBlastInsufficientMemoryTemp),
      NAMED(CLBlastInvalidBatchCount),      NAMED(CLBlastInvalidOverrideKernel),
      NAMED(CLBlastMissingOverrideParameter), NAMED(CLBlastInvalidLocalMemUsage),
      NAMED(CLBlastNoHalfPrecision),        NAMED(CLBlastNoDoublePrecision),
      NAMED(CLBlastInvalidVectorScalar),    NAMED(CLBlastInsufficientMemoryScalar),
      NAMED(CLBlastDatabaseError),          NAMED(CLBlastUnknownError),
      NAMED(CLBlastUnexpectedError)};
  for (size_t i = 0; i < sizeof codes / sizeof codes[0]; ++i)
    ck_assert_msg(strcmp(cg_cl_error_name(codes[i].code), codes[i].name) == 0,
                  "code %d: '%s', expected '%s'", codes[i].code, cg_cl_error_name(codes[i].code),
                  codes[i].name);
  /* The codes CLBlast shares with OpenCL read as OpenCL's names. */
  ck_assert_str_eq(cg_cl_error_name(CLBlastOpenCLBuildProgramFailure), "CL_BUILD_PROGRAM_FAILURE");
  ck_assert_str_eq(cg_cl_error_name(CLBlastInvalidLocalThreadsTotal),
                   "CL_INVALID_WORK_GROUP_SIZE");
}
END_TEST

START_TEST(test_error_names_unknown) {
  ck_assert_str_eq(cg_cl_error_name(-9999), "CL_UNKNOWN_ERROR(-9999)");
  ck_assert_str_eq(cg_cl_error_name(12345), "CL_UNKNOWN_ERROR(12345)");
  ck_assert_str_eq(cg_cl_error_name(-2000), "CL_UNKNOWN_ERROR(-2000)");
  /* No two codes share a name. */
  enum { LO = -2100, HI = 0 };
  static const char *seen[HI - LO + 1];
  for (int c = LO; c <= HI; ++c) {
    const char *name = cg_cl_error_name(c);
    ck_assert_ptr_nonnull(name);
    ck_assert_msg(name[0] != '\0', "empty name for %d", c);
    if (strncmp(name, "CL_UNKNOWN_ERROR(", 17) == 0) {
      ck_assert_int_eq(atoi(name + 17), c);
      continue;
    }
    for (int p = LO; p < c; ++p)
      ck_assert_msg(!seen[p - LO] || strcmp(seen[p - LO], name) != 0,
                    "codes %d and %d are both named %s", p, c, name);
    seen[c - LO] = name;
  }
}
END_TEST

START_TEST(test_error_recording) {
  cg_error err = {0};
  ck_assert_int_eq(cg_fail_cl(&err, -5, "clFinish", "src/x.c", 12), CG_ERROR);
  ck_assert_str_eq(err.msg, "clFinish failed: CL_OUT_OF_RESOURCES (src/x.c:12)");
  ck_assert_int_eq(err.code, -5);
  ck_assert_int_eq(err.rc, CG_ERROR);
  /* Codes that mean "the device cannot" are unsupported, not broken. */
  ck_assert_int_eq(cg_fail_cl(&err, -2046, "CLBlastSgemm", "a.c", 1), CG_UNSUPPORTED);
  ck_assert_str_eq(err.msg, "CLBlastSgemm failed: CLBlastInvalidLocalMemUsage (a.c:1)");
  ck_assert_int_eq(cg_fail(&err, CG_BAD_INPUT, "a.c", 3, "--n %d: bad", 5), CG_BAD_INPUT);
  ck_assert_str_eq(err.msg, "--n 5: bad");
  ck_assert_int_eq(err.code, 0);
  cg_error_append(&err, "; more");
  ck_assert_str_eq(err.msg, "--n 5: bad; more");
  /* A message longer than the buffer is cut, never overrun. */
  char big[6000];
  memset(big, 'x', sizeof big - 1);
  big[sizeof big - 1] = '\0';
  cg_error_append(&err, big);
  ck_assert_uint_eq(strlen(err.msg), sizeof err.msg - 1);
  cg_error_clear(&err);
  ck_assert_int_eq(err.rc, CG_OK);
  ck_assert_str_eq(err.msg, "");
  ck_assert_int_eq(cg_fail(NULL, CG_ERROR, "a.c", 1, "nothing"), CG_ERROR);
}
END_TEST

/* ---- opening ---- */

START_TEST(test_open_every_device) {
  cg_device_list list;
  cg_test_devices(&list);
  uint64_t seed = cg_test_seed();
  for (int i = 0; i < list.count; ++i) {
    const cg_device_info *d = &list.items[i];
    cg_device *dev = NULL;
    cg_error err = {0};
    ck_assert_msg(cg_device_open(d, &dev, &err) == CG_OK, "device %d (%s): %s", i, d->name,
                  err.msg);
    ck_assert_ptr_nonnull(dev);
    ck_assert_str_eq(cg_device_get_info(dev)->name, d->name);
    ck_assert_int_eq(cg_device_get_info(dev)->index, i);
    cl_context ctx = cg_device_context(dev);
    cl_command_queue queue = cg_device_queue(dev);
    ck_assert_ptr_nonnull(ctx);
    ck_assert_ptr_nonnull(queue);

    cl_context qctx = NULL;
    cl_device_id qdev = NULL;
    cl_command_queue_properties props = 0;
    ck_assert_int_eq(clGetCommandQueueInfo(queue, CL_QUEUE_CONTEXT, sizeof qctx, &qctx, NULL),
                     CL_SUCCESS);
    ck_assert_int_eq(clGetCommandQueueInfo(queue, CL_QUEUE_DEVICE, sizeof qdev, &qdev, NULL),
                     CL_SUCCESS);
    ck_assert_int_eq(
        clGetCommandQueueInfo(queue, CL_QUEUE_PROPERTIES, sizeof props, &props, NULL), CL_SUCCESS);
    ck_assert_msg(qctx == ctx && qdev == d->id, "device %d: queue of another context/device", i);
    ck_assert_msg(!(props & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE), "device %d: out-of-order", i);
    ck_assert_msg(!!(props & CL_QUEUE_PROFILING_ENABLE) == d->profiling,
                  "device %d: profiling %d on the queue, device supports %d", i,
                  !!(props & CL_QUEUE_PROFILING_ENABLE), d->profiling);
    cl_uint ndev = 0;
    ck_assert_int_eq(clGetContextInfo(ctx, CL_CONTEXT_NUM_DEVICES, sizeof ndev, &ndev, NULL),
                     CL_SUCCESS);
    ck_assert_uint_eq(ndev, 1);

    /* The context works: a round trip of fresh random data through a buffer. */
    enum { N = 1031 };
    float in[N], out[N];
    cg_rng rng;
    cg_rng_seed(&rng, seed);
    cg_rng_fill_normal(&rng, in, N);
    cl_int code = CL_SUCCESS;
    cl_mem buf = clCreateBuffer(ctx, CL_MEM_READ_WRITE, sizeof in, NULL, &code);
    ck_assert_msg(code == CL_SUCCESS, "clCreateBuffer: %s", cg_cl_error_name(code));
    ck_assert_int_eq(clEnqueueWriteBuffer(queue, buf, CL_TRUE, 0, sizeof in, in, 0, NULL, NULL),
                     CL_SUCCESS);
    memset(out, 0, sizeof out);
    ck_assert_int_eq(clEnqueueReadBuffer(queue, buf, CL_TRUE, 0, sizeof out, out, 0, NULL, NULL),
                     CL_SUCCESS);
    ck_assert_msg(memcmp(in, out, sizeof in) == 0, "device %d: buffer round trip (seed %llu)", i,
                  (unsigned long long)seed);
    clReleaseMemObject(buf);
    cg_device_close(dev);
  }
  cg_device_close(NULL);
  cg_device_list_free(&list);
}
END_TEST

/* ---- the head start: discovery and the opening on a thread (early.h) ---- */

/* The thread's list is the one a query gives, device by device. */
static void same_list(const cg_device_list *a, const cg_device_list *b) {
  ck_assert_int_eq(a->count, b->count);
  ck_assert_int_eq(a->platforms, b->platforms);
  ck_assert_int_eq(a->nempty, b->nempty);
  for (int i = 0; i < a->count; ++i) {
    ck_assert_msg(a->items[i].id == b->items[i].id, "device %d differs", i);
    ck_assert_str_eq(a->items[i].name, b->items[i].name);
    ck_assert_int_eq(a->items[i].platform_index, b->items[i].platform_index);
  }
}

/* Every device, selected by index: the thread opens it, the list is the query's, the device
 * taken works (a round trip of fresh data), its overlap is within its own time, and a second
 * take (or one of another device) falls back to the caller's own opening. */
START_TEST(test_early_open) {
  cg_device_list ref;
  cg_test_devices(&ref);
  for (int i = 0; i < ref.count; ++i) {
    char sel[16];
    snprintf(sel, sizeof sel, "%d", i);
    const uint64_t t0 = cg_now_ns();
    cg_early_start(sel, true);
    cg_device_list list;
    cg_error err = {0};
    double overlap = -1;
    ck_assert_msg(cg_early_list(&list, &overlap, &err) == CG_OK, "%s", err.msg);
    same_list(&list, &ref);
    ck_assert_msg(overlap >= 0 && overlap <= list.query_ms + 1e-6, "overlap %g of %g ms", overlap,
                  list.query_ms);
    const cg_device_info *d = &list.items[i];
    /* another device is not the one opened ahead */
    cg_device *other = NULL;
    cg_rc rc = CG_OK;
    if (list.count > 1)
      ck_assert(!cg_early_take(&list.items[(i + 1) % list.count], &other, &rc, &err));
    cg_device *dev = NULL;
    if (strstr(d->platform, "Oclgrind")) { /* opened by the caller: see early.c */
      ck_assert(!cg_early_take(d, &dev, &rc, &err));
      cg_early_end();
      cg_device_list_free(&list);
      continue;
    }
    ck_assert_msg(cg_early_take(d, &dev, &rc, &err), "device %d was not opened ahead", i);
    ck_assert_msg(rc == CG_OK, "device %d: %s", i, err.msg);
    const double waited = cg_ns_to_ms(cg_now_ns() - t0);
    const double ahead = cg_device_open_overlap_ms(dev);
    ck_assert_msg(ahead >= 0 && ahead <= waited, "overlap %g ms in %g ms", ahead, waited);
    ck_assert_ptr_eq(cg_device_get_info(dev)->id, d->id);
    enum { N = 613 };
    float in[N], out[N];
    cg_rng rng;
    cg_rng_seed(&rng, cg_test_seed() + (uint64_t)i);
    cg_rng_fill_normal(&rng, in, N);
    cl_int code = CL_SUCCESS;
    cl_mem buf = clCreateBuffer(cg_device_context(dev), CL_MEM_READ_WRITE, sizeof in, NULL, &code);
    ck_assert_msg(code == CL_SUCCESS, "clCreateBuffer: %s", cg_cl_error_name(code));
    ck_assert_int_eq(clEnqueueWriteBuffer(cg_device_queue(dev), buf, CL_TRUE, 0, sizeof in, in, 0,
                                          NULL, NULL),
                     CL_SUCCESS);
    ck_assert_int_eq(clEnqueueReadBuffer(cg_device_queue(dev), buf, CL_TRUE, 0, sizeof out, out,
                                         0, NULL, NULL),
                     CL_SUCCESS);
    ck_assert_msg(memcmp(in, out, sizeof in) == 0, "device %d: buffer round trip", i);
    clReleaseMemObject(buf);
    ck_assert(!cg_early_take(d, &other, &rc, &err)); /* taken once */
    cg_device_close(dev);
    cg_early_end();
    cg_device_list_free(&list);
  }
  cg_device_list_free(&ref);
}
END_TEST

/* A selector that picks nothing, a list of devices, or no opening asked for: the list as the
 * query gives it, nothing opened ahead, and the selection's own error unchanged. */
START_TEST(test_early_nothing_opened) {
  cg_device_list ref;
  cg_test_devices(&ref);
  const struct {
    const char *sel;
    bool open;
  } cases[] = {{"no-such-device", true}, {"999", true}, {"0,0", true}, {"all", true},
               {NULL, false}};
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
    cg_early_start(cases[c].sel, cases[c].open);
    cg_device_list list;
    cg_error err = {0};
    double overlap = -1;
    ck_assert_msg(cg_early_list(&list, &overlap, &err) == CG_OK, "%s", err.msg);
    same_list(&list, &ref);
    cg_device *dev = NULL;
    cg_rc rc = CG_OK;
    for (int i = 0; i < list.count; ++i)
      ck_assert_msg(!cg_early_take(&list.items[i], &dev, &rc, &err), "%s: device %d opened",
                    cases[c].sel ? cases[c].sel : "(none)", i);
    if (cases[c].sel && !cg_device_selector_is_list(cases[c].sel)) {
      int index = -1;
      cg_error a = {0}, b = {0};
      ck_assert_int_eq(cg_device_select(&list, cases[c].sel, &index, &a), CG_BAD_INPUT);
      ck_assert_int_eq(cg_device_select(&ref, cases[c].sel, &index, &b), CG_BAD_INPUT);
      ck_assert_str_eq(a.msg, b.msg);
    }
    cg_early_end();
    cg_device_list_free(&list);
  }
  /* without a start, the calls do the work themselves */
  cg_device_list list;
  cg_error err = {0};
  double overlap = -1;
  ck_assert_int_eq(cg_early_list(&list, &overlap, &err), CG_OK);
  ck_assert(overlap == 0);
  same_list(&list, &ref);
  cg_device *dev = NULL;
  cg_rc rc = CG_OK;
  ck_assert(!cg_early_take(&list.items[0], &dev, &rc, &err));
  cg_early_end();
  cg_device_list_free(&list);
  cg_device_list_free(&ref);
}
END_TEST

/* An opening nobody takes is released at the end, however far the thread has got. */
START_TEST(test_early_untaken) {
  cg_early_start(NULL, true);
  cg_early_end();
  cg_early_start(NULL, true);
  cg_device_list list;
  cg_error err = {0};
  double overlap = 0;
  ck_assert_int_eq(cg_early_list(&list, &overlap, &err), CG_OK);
  cg_early_end();
  cg_device_list_free(&list);
}
END_TEST

/* ---- several PoCL devices (ctest entry with POCL_DEVICES="pthread basic") ---- */

/* PoCL's device without threads ("basic", "cpu-minimal" from PoCL 6.0). */
static bool pocl_basic(const char *name) {
  return strstr(name, "basic") != NULL || strstr(name, "minimal") != NULL;
}

START_TEST(test_pocl_two_devices) {
  cg_device_list list;
  cg_test_devices(&list);
  int pocl[8], n = 0;
  for (int i = 0; i < list.count && n < 8; ++i)
    if (cg_test_contains_nocase(list.items[i].platform_version, "pocl")) pocl[n++] = i;
  ck_assert_msg(n == 2, "POCL_DEVICES='pthread basic' but PoCL shows %d devices", n);
  const cg_device_info *a = &list.items[pocl[0]], *b = &list.items[pocl[1]];
  ck_assert_int_eq(a->platform_index, b->platform_index);
  ck_assert_int_eq(a->device_index, 0);
  ck_assert_int_eq(b->device_index, 1);
  /* PoCL names them "pthread-CPU" and "basic-CPU" up to 5.0, "cpu-CPU" and "cpu-minimal-CPU"
   * from 6.0 */
  ck_assert_msg(pocl_basic(a->name) != pocl_basic(b->name), "device names '%s' and '%s'", a->name,
                b->name);
  for (int j = 0; j < 2; ++j) {
    const cg_device_info *d = &list.items[pocl[j]];
    char flat[16], pair[32];
    snprintf(flat, sizeof flat, "%d", pocl[j]);
    snprintf(pair, sizeof pair, "%d:%d", d->platform_index, d->device_index);
    ck_assert_int_eq(select_ok(&list, flat), pocl[j]);
    ck_assert_int_eq(select_ok(&list, pair), pocl[j]);
    /* by the word that tells it from the other; the threaded one of PoCL 6.0 has none */
    const char *word = strstr(d->name, "basic")     ? "basic"
                       : strstr(d->name, "minimal") ? "minimal"
                       : strstr(d->name, "pthread") ? "pthread"
                                                    : d->name;
    ck_assert_int_eq(select_ok(&list, word), pocl[j]);
    cg_device *dev = NULL;
    cg_error err = {0};
    ck_assert_msg(cg_device_open(d, &dev, &err) == CG_OK, "%s: %s", d->name, err.msg);
    cg_device_close(dev);
  }
  cg_device_list_free(&list);
}
END_TEST

Suite *cg_device_suite(void) {
  Suite *s = suite_create("device");
  TCase *tc = tcase_create("enumeration");
  tcase_set_timeout(tc, CG_TEST_OPENCL_TIMEOUT);
  tcase_add_test(tc, test_enumeration_fields);
  tcase_add_test(tc, test_enumeration_indexes_consistent);
  tcase_add_test(tc, test_enumeration_stable);
  suite_add_tcase(s, tc);

  tc = tcase_create("selection");
  tcase_set_timeout(tc, CG_TEST_OPENCL_TIMEOUT);
  tcase_add_test(tc, test_select_default);
  tcase_add_test(tc, test_select_flat_index);
  tcase_add_test(tc, test_select_platform_device);
  tcase_add_test(tc, test_select_type);
  tcase_add_test(tc, test_select_substring);
  tcase_add_test(tc, test_select_driver_names);
  tcase_add_test(tc, test_select_bad);
  tcase_add_test(tc, test_select_empty_list);
  tcase_add_test(tc, test_select_many);
  tcase_add_test(tc, test_type_names);
  suite_add_tcase(s, tc);

  tc = tcase_create("error_names");
  tcase_add_test(tc, test_error_names_opencl);
  tcase_add_test(tc, test_error_names_clblast);
  tcase_add_test(tc, test_error_names_unknown);
  tcase_add_test(tc, test_error_recording);
  suite_add_tcase(s, tc);

  tc = tcase_create("open");
  tcase_set_timeout(tc, CG_TEST_OPENCL_TIMEOUT);
  tcase_add_test(tc, test_open_every_device);
  suite_add_tcase(s, tc);

  tc = tcase_create("early");
  tcase_set_timeout(tc, CG_TEST_OPENCL_TIMEOUT);
  tcase_add_test(tc, test_early_open);
  tcase_add_test(tc, test_early_nothing_opened);
  tcase_add_test(tc, test_early_untaken);
  suite_add_tcase(s, tc);

  const char *pocl = getenv("POCL_DEVICES");
  if (pocl && strcmp(pocl, "pthread basic") == 0) {
    tc = tcase_create("pocl_two_devices");
    tcase_set_timeout(tc, CG_TEST_OPENCL_TIMEOUT);
    tcase_add_test(tc, test_pocl_two_devices);
    suite_add_tcase(s, tc);
  }
  return s;
}

int main(void) { return cg_test_main(cg_device_suite, true); }
