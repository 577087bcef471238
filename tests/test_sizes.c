/* Check suite of the size checks: the shared helper (64-bit and size_t overflow, the device's
 * allocation and memory, the kernels' int indexes, the host's memory), and every workload's
 * validate on devices described here (a small CPU driver, a GPU with 35 GiB allocations as the
 * H200 has, and one without limits), at given and at random shapes. Needs no OpenCL. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clgauge/engine.h"
#include "clgauge/random.h"
#include "clgauge/sizes.h"
#include "clgauge/workload.h"
#include "test_util.h"

static const double GIB = 1073741824.0;

static cg_device_info device(const char *name, double max_alloc_gib, double global_gib) {
  cg_device_info d;
  memset(&d, 0, sizeof d);
  snprintf(d.name, sizeof d.name, "%s", name);
  d.max_alloc = (uint64_t)(max_alloc_gib * GIB);
  d.global_mem = (uint64_t)(global_gib * GIB);
  d.max_work_group = 1024;
  return d;
}

/* rc is CG_BAD_INPUT with a one-line message holding every one of the NULL-terminated words. */
static void expect_refused(cg_rc rc, const cg_error *err, const char *const *words) {
  ck_assert_msg(rc == CG_BAD_INPUT, "expected a refusal naming '%s', got rc %d (%s)", words[0],
                rc, err->msg);
  for (int i = 0; words[i]; ++i)
    ck_assert_msg(strstr(err->msg, words[i]) != NULL, "'%s' not named in: %s", words[i],
                  err->msg);
  ck_assert_msg(strchr(err->msg, '\n') == NULL, "not one line: %s", err->msg);
}

/* ---- the helper ---- */

START_TEST(test_helper_overflow) {
  cg_size_check c;
  cg_error err = {0};
  cg_size_check_init(&c, NULL, "the arrays", "--rows %d", 7);
  /* 2^40 x 2^40 elements overflow 64 bits before any memory is compared */
  expect_refused(cg_size_array(&c, NULL, "matrix Q", CG_ON_HOST, 4, 1ull << 40, 1ull << 40, 1,
                               &err),
                 &err, (const char *[]){"--rows 7", "matrix Q", "64-bit", NULL});
  /* the count fits, the bytes do not */
  cg_size_check_init(&c, NULL, "the arrays", "--rows %d", 8);
  expect_refused(cg_size_array(&c, NULL, "matrix R", CG_ON_HOST, 16, 1ull << 31, 1ull << 31, 1,
                               &err),
                 &err, (const char *[]){"--rows 8", "matrix R", "64-bit", NULL});
  /* and copies of an array that fits, each */
  cg_size_check_init(&c, NULL, "the arrays", "--rows %d", 9);
  expect_refused(cg_size_array(&c, "--copies 5", "matrix S", CG_ON_HOST, 4, 1ull << 30,
                               1ull << 30, 1ull << 20, &err),
                 &err, (const char *[]){"--copies 5", "matrix S", "64-bit", NULL});
}
END_TEST

START_TEST(test_helper_device) {
  const cg_device_info gpu = device("Big GPU", 35, 140);
  cg_size_check c;
  cg_error err = {0};
  /* within one allocation but past the int indexes: refused only where the kernels index it */
  cg_size_check_init(&c, &gpu, "the arrays", "--n %d", 50000);
  ck_assert_int_eq(cg_size_array(&c, NULL, "B", CG_ON_DEVICE, 4, 50000, 50000, 1, &err), CG_OK);
  expect_refused(cg_size_array(&c, NULL, "A", CG_ON_DEVICE | CG_INT_INDEXED, 4, 50000, 50000, 1,
                               &err),
                 &err, (const char *[]){"--n 50000", "A", "2500000000", "2147483647", "Big GPU",
                                        NULL});
  /* the limit itself is fine, one more is not */
  cg_size_check_init(&c, &gpu, "the arrays", "--n %d", 1);
  ck_assert_int_eq(cg_size_array(&c, NULL, "A", CG_INT_INDEXED, 4, CG_INT_INDEX_MAX, 1, 1, &err),
                   CG_OK);
  expect_refused(cg_size_array(&c, NULL, "A", CG_INT_INDEXED, 4, CG_INT_INDEX_MAX + 1, 1, 1,
                               &err),
                 &err, (const char *[]){"2147483648", NULL});
  /* one allocation too many bytes */
  cg_size_check_init(&c, &gpu, "the arrays", "--n %d", 2);
  expect_refused(cg_size_array(&c, NULL, "C", CG_ON_DEVICE, 4, 1ull << 20, 10000, 1, &err), &err,
                 (const char *[]){"--n 2", "C needs", "per allocation", "Big GPU", NULL});
  /* each fits, together not */
  cg_size_check_init(&c, &gpu, "the arrays", "--n %d", 3);
  for (int i = 0; i < 5; ++i)
    ck_assert_int_eq(cg_size_array(&c, NULL, "D", CG_ON_DEVICE, 1, 30ull << 30, 1, 1, &err),
                     CG_OK);
  expect_refused(cg_size_totals(&c, &err), &err,
                 (const char *[]){"--n 3", "the arrays need", "Big GPU", "has", NULL});
  /* without a device only the host counts */
  cg_size_check_init(&c, NULL, "the arrays", "--n %d", 4);
  c.host_memory = 0;
  ck_assert_int_eq(cg_size_array(&c, NULL, "A", CG_ON_DEVICE | CG_INT_INDEXED, 4, 1ull << 31,
                                 1ull << 20, 1, &err),
                   CG_OK);
  ck_assert_int_eq(cg_size_totals(&c, &err), CG_OK);
}
END_TEST

START_TEST(test_helper_host) {
  cg_size_check c;
  cg_error err = {0};
  cg_size_check_init(&c, NULL, "the arrays", "--epochs %d", 5);
  c.host_memory = 1000;
  ck_assert_int_eq(cg_size_array(&c, NULL, "small", CG_ON_HOST, 4, 10, 10, 1, &err), CG_OK);
  ck_assert_int_eq(cg_size_array(&c, NULL, "the orders", CG_ON_HOST, 4, 10, 10, 2, &err), CG_OK);
  ck_assert_int_eq(cg_size_array(&c, NULL, "device only", CG_ON_DEVICE, 4, 1000, 1000, 1, &err),
                   CG_OK);
  /* 1200 bytes on the host: the largest array is named with what it needs */
  expect_refused(cg_size_totals(&c, &err), &err,
                 (const char *[]){"--epochs 5", "1.17 KiB", "the orders, 800 B", "1000 B", NULL});
  c.host_memory = 1200;
  ck_assert_int_eq(cg_size_totals(&c, &err), CG_OK);
  /* the host's memory is known here */
  ck_assert_msg(cg_host_memory() >= (64ull << 20), "host memory %llu bytes",
                (unsigned long long)cg_host_memory());
}
END_TEST

/* ---- the workloads ---- */

static cg_rc validate(const char *workload, const char *const *names, const double *values,
                      const char *modes, const cg_device_info *dev, cg_error *err) {
  cg_job job;
  cg_job_init(&job, cg_workload_find(workload));
  for (int i = 0; names[i]; ++i)
    ck_assert_msg(cg_params_set(&job.params, names[i], values[i], err) == CG_OK, "%s", err->msg);
  if (modes) ck_assert_int_eq(cg_job_select_modes(&job, modes, err), CG_OK);
  const cg_selection sel = {.seed = 1};
  memset(err, 0, sizeof *err);
  return cg_engine_validate(&job, &sel, dev, err);
}

START_TEST(test_matmul_int_indexes) {
  const cg_device_info h200 = device("NVIDIA H200", 35.2, 139.8);
  cg_error err;
  /* 50000^2 elements (9.3 GiB) fit one of the H200's allocations but not an int index */
  expect_refused(validate("matmul", (const char *[]){"n", NULL}, (double[]){50000}, NULL, &h200,
                          &err),
                 &err, (const char *[]){"--n 50000", "matrix A", "2147483647", "H200", NULL});
  /* a tall A alone: m x k past the indexes, B and C small */
  expect_refused(validate("matmul", (const char *[]){"n", "m", "k", NULL},
                          (double[]){2, 1048576, 4096}, NULL, &h200, &err),
                 &err, (const char *[]){"--m 1048576 --n 2 --k 4096", "matrix A", NULL});
  /* C alone: m x n */
  expect_refused(validate("matmul", (const char *[]){"n", "m", "k", NULL},
                          (double[]){65536, 65536, 1}, NULL, &h200, &err),
                 &err, (const char *[]){"matrix C", "4294967296", NULL});
  /* just inside: 46340^2 < 2^31 */
  ck_assert_msg(validate("matmul", (const char *[]){"n", NULL}, (double[]){46340}, NULL, &h200,
                         &err) == CG_OK || strstr(err.msg, "the host has"),
                "%s", err.msg);
}
END_TEST

START_TEST(test_mlp_int_indexes) {
  const cg_device_info h200 = device("NVIDIA H200", 35.2, 139.8);
  cg_error err;
  const char *const names[] = {"batch", "din", "hidden", "dout", NULL};
  expect_refused(validate("mlp", names, (double[]){64, 50000, 50000, 8}, NULL, &h200, &err),
                 &err, (const char *[]){"--din 50000 --hidden 50000", "w1", "2147483647", NULL});
  expect_refused(validate("mlp", names, (double[]){1048576, 4096, 8, 8}, NULL, &h200, &err), &err,
                 (const char *[]){"--batch 1048576", "x", "2147483647", NULL});
  expect_refused(validate("mlp", names, (double[]){1048576, 8, 4096, 8}, NULL, &h200, &err), &err,
                 (const char *[]){"--batch 1048576", "h1", "2147483647", NULL});
  /* without a device the host's memory decides: 2^20 x 2^20 floats is 4 TiB a copy */
  expect_refused(validate("mlp", names, (double[]){2, 1048576, 1048576, 2}, NULL, NULL, &err),
                 &err, (const char *[]){"the host has", "w1", NULL});
}
END_TEST

START_TEST(test_linear_host_memory) {
  cg_error err;
  /* the shuffle orders: 2^24 samples x 10^6 epochs x 4 bytes = 61 TiB, on any device or none */
  const char *const names[] = {"samples", "epochs", "features", NULL};
  const cg_device_info small = device("Small CPU", 2, 5);
  expect_refused(validate("linear", names, (double[]){16777216, 1000000, 1}, NULL, NULL, &err),
                 &err,
                 (const char *[]){"--epochs 1000000", "shuffled orders", "61 TiB", "the host has",
                                  NULL});
  expect_refused(validate("linear", names, (double[]){16777216, 1000000, 1}, NULL, &small, &err),
                 &err, (const char *[]){"shuffled orders", "the host has", NULL});
  /* the dataset: 2^24 x 2^20 floats */
  expect_refused(validate("linear", names, (double[]){16777216, 1, 1048576}, NULL, NULL, &err),
                 &err, (const char *[]){"--samples 16777216 --features 1048576", "dataset", NULL});
  /* resident: the dataset is one allocation on the device */
  expect_refused(validate("linear", names, (double[]){600000, 1, 1000}, "resident", &small, &err),
                 &err, (const char *[]){"resident", "Small CPU", "per allocation", NULL});
  ck_assert_msg(validate("linear", names, (double[]){600000, 1, 1000}, "pageable", &small,
                         &err) == CG_OK,
                "%s", err.msg);
}
END_TEST

/* A shape drawn log-uniformly from 1 to 2^bits. */
static double draw(cg_rng *rng, int bits) {
  return floor(pow(2.0, cg_rng_uniform(rng) * bits));
}

/* Every shape: when validate accepts a job on a device, every array the kernels index with int
 * is within 2^31 - 1 elements and within one allocation, and the workload's own arrays fit the
 * host's memory; when every product is far inside all of those, it accepts. Checked on three
 * devices (a small CPU driver, an H200, a device without limits) and on none. */
START_TEST(test_every_shape) {
  const cg_device_info devices[] = {device("Small CPU", 2, 5), device("NVIDIA H200", 35.2, 139.8),
                                    device("Unlimited", 1 << 30, 1 << 30)};
  const double host = (double)cg_host_memory(), limit = 2147483647.0;
  const uint64_t seed = cg_test_seed();
  cg_rng rng;
  cg_rng_seed(&rng, seed);
  int accepted = 0, refused = 0;
  for (int trial = 0; trial < 4000; ++trial) {
    const cg_device_info *dev = trial % 4 == 3 ? NULL : &devices[trial % 4];
    const double alloc = dev ? (double)dev->max_alloc : INFINITY;
    cg_error err;
    cg_rc rc;
    double products[6] = {0}; /* int-indexed element counts */
    double host_bytes = 0;    /* a lower bound of what create() allocates */
    int np = 0;
    const int which = (trial / 4) % 3;
    if (which == 0) {
      const double m = draw(&rng, 20), n = draw(&rng, 20), k = draw(&rng, 20);
      /* n first: --n sets m and k too */
      rc = validate("matmul", (const char *[]){"n", "m", "k", NULL}, (double[]){n, m, k}, NULL,
                    dev, &err);
      products[np++] = m * k, products[np++] = k * n, products[np++] = m * n;
      host_bytes = 4 * (m * k + k * n + 2 * m * n);
    } else if (which == 1) {
      const double N = draw(&rng, 20), D = draw(&rng, 20), H = draw(&rng, 20), O = draw(&rng, 12);
      rc = validate("mlp", (const char *[]){"batch", "din", "hidden", "dout", "iters", NULL},
                    (double[]){N, D, H, O, 10}, NULL, dev, &err);
      products[np++] = N * D, products[np++] = D * H, products[np++] = N * H;
      products[np++] = H * O, products[np++] = N * O, products[np++] = O * O;
      host_bytes = 4 * (N * D + 3 * D * H + 3 * H * O);
    } else {
      const double S = draw(&rng, 24), F = draw(&rng, 24), E = draw(&rng, 19);
      rc = validate("linear", (const char *[]){"samples", "features", "epochs", NULL},
                    (double[]){S, F, E}, "resident", dev, &err);
      host_bytes = 4 * (S * F + S * E);
      if (dev && 4 * S * F > alloc) ck_assert_msg(rc != CG_OK, "seed %llu: resident %gx%g fits?",
                                                  (unsigned long long)seed, S, F);
    }
    double largest = 0;
    for (int i = 0; i < np; ++i) largest = fmax(largest, products[i]);
    if (rc == CG_OK) {
      ++accepted;
      if (dev)
        ck_assert_msg(largest <= limit && 4 * largest <= alloc,
                      "seed %llu, trial %d: accepted %g elements on %s", (unsigned long long)seed,
                      trial, largest, dev->name);
      ck_assert_msg(host <= 0 || host_bytes <= host,
                    "seed %llu, trial %d: accepted %g bytes of host arrays, host has %g",
                    (unsigned long long)seed, trial, host_bytes, host);
    } else {
      ++refused;
      ck_assert_msg(rc == CG_BAD_INPUT && strchr(err.msg, '\n') == NULL,
                    "seed %llu, trial %d: rc %d: %s", (unsigned long long)seed, trial, rc,
                    err.msg);
      ck_assert_msg(strstr(err.msg, "2147483647") || strstr(err.msg, "per allocation") ||
                        strstr(err.msg, "the host has") || strstr(err.msg, "' has "),
                    "seed %llu, trial %d: no limit named: %s", (unsigned long long)seed, trial,
                    err.msg);
      /* far inside every limit (a thousandth of each), validate has no reason to refuse */
      const bool tiny = largest * 1000 <= limit && 4000 * largest <= alloc &&
                        (host <= 0 || 1000 * host_bytes <= host) &&
                        (!dev || 4000 * 8 * largest <= (double)dev->global_mem);
      ck_assert_msg(!(tiny && which < 2), "seed %llu, trial %d: refused a small job: %s",
                    (unsigned long long)seed, trial, err.msg);
    }
  }
  ck_assert_msg(accepted > 100 && refused > 100, "seed %llu: %d accepted, %d refused",
                (unsigned long long)seed, accepted, refused);
}
END_TEST

Suite *cg_sizes_suite(void) {
  Suite *s = suite_create("sizes");
  TCase *tc = tcase_create("helper");
  tcase_add_test(tc, test_helper_overflow);
  tcase_add_test(tc, test_helper_device);
  tcase_add_test(tc, test_helper_host);
  suite_add_tcase(s, tc);
  tc = tcase_create("workloads");
  tcase_add_test(tc, test_matmul_int_indexes);
  tcase_add_test(tc, test_mlp_int_indexes);
  tcase_add_test(tc, test_linear_host_memory);
  tcase_add_test(tc, test_every_shape);
  tcase_set_timeout(tc, 60);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return cg_test_main(cg_sizes_suite, false); }
