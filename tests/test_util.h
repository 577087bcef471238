/* Helpers shared by the Check test suites: the no-device skip, the runner, fresh seeds,
 * temporary directories and files, and per-test OpenCL device enumeration. */
#ifndef CLGAUGE_TEST_UTIL_H
#define CLGAUGE_TEST_UTIL_H

#include <check.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "clgauge/backend.h"
#include "clgauge/device.h"

/* The exit status that ctest's SKIP_RETURN_CODE turns into "skipped". */
enum { CG_TEST_SKIP = 77 };

/* Per-test timeout (seconds) for test cases that create OpenCL contexts or compile kernels;
 * Check's default of 4 s is far too short for a cold driver. CK_TIMEOUT_MULTIPLIER still applies. */
enum { CG_TEST_OPENCL_TIMEOUT = 240 };

/* Number of OpenCL devices, counted once in a forked child, so that the calling process (the
 * one Check forks every test from) never initialises an OpenCL driver: driver state does not
 * survive a fork. -1 when the child could not enumerate. Cached after the first call. */
int cg_test_device_count(void);

/* main() of every suite: exits 77 when the suite needs OpenCL and no device exists, otherwise
 * runs the suite (Check forks each test) and returns 0 when every test passed. */
int cg_test_main(Suite *(*make_suite)(void), bool needs_opencl);

/* A seed for fresh random inputs: $CLGAUGE_TEST_SEED when set (to replay a failure), else
 * derived from the clock, the process id and a counter. Tests print it in failure messages. */
uint64_t cg_test_seed(void);

/* Enumerate devices inside a test; fails the test when enumeration fails or finds none. */
void cg_test_devices(cg_device_list *list);
/* The same for a test that uses list->items[index] alone (an index below the device count, as a
 * loop test's): its device, which it fails the test when there is none. Rusticl starts its
 * llvmpipe device in every process that lists the platforms, used or not (0.5 s here, about 1 s
 * under AddressSanitizer): where each of rusticl's devices comes after `index`, the list is read
 * without them (RUSTICL_ENABLE unset in the test's process), the devices up to `index` the same.
 * Call it before anything else of OpenCL in the test. */
const cg_device_info *cg_test_device_at(cg_device_list *list, int index);

/* A new empty directory under $TMPDIR (or /tmp); path has room for 256 bytes. Fails the test on
 * error. cg_test_rmtree removes it with everything inside. */
void cg_test_tempdir(char *path, size_t size);
void cg_test_rmtree(const char *path);

/* Whole file as a NUL-terminated malloc'd buffer, or NULL (errno set) when it cannot be read. */
char *cg_test_read_file(const char *path, size_t *size);
/* Write text to path; fails the test on error. */
void cg_test_write_file(const char *path, const char *text);
bool cg_test_exists(const char *path);
/* Number of entries in a directory other than . and .., or -1. */
int cg_test_dir_entries(const char *path);

/* Case-insensitive substring test, written independently of the library's. */
bool cg_test_contains_nocase(const char *haystack, const char *needle);

/* What a looped backend test runs: one implementation's variant of a workload on one device.
 * Host combos come first (device -1, once each), then every OpenCL combo on device 0, on device
 * 1, ... The device count comes from a forked child (cg_test_device_count), so building a suite
 * touches no driver. */
typedef struct cg_test_combo {
  const cg_impl *impl;
  const cg_backend *backend;
  const char *variant;
  int device; /* index in the device list; -1 for host backends */
} cg_test_combo;
int cg_test_combo_count(const char *workload, bool with_host);
/* Variants of the workload over the host backends (opencl false) or the OpenCL ones. */
int cg_test_variant_count(const char *workload, bool opencl);
cg_test_combo cg_test_combo_at(const char *workload, int index, bool with_host);
/* "backend/variant on <device name>" */
const char *cg_test_combo_name(const cg_test_combo *c, const cg_device_list *list, char *buf,
                               size_t n);

#endif
