/* Check suite of the timing module: statistics on known and random inputs, the host clocks, and
 * device time from profiling events on every device. */
#include <CL/cl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "clgauge/device.h"
#include "clgauge/program.h"
#include "clgauge/random.h"
#include "clgauge/clock.h"
#include "clgauge/events.h"
#include "clgauge/stats.h"
#include "test_util.h"

static void expect_close(const char *what, double got, double want) {
  ck_assert_msg(fabs(got - want) <= 1e-12 * (1 + fabs(want)), "%s: %.17g, expected %.17g", what,
                got, want);
}

/* ---- statistics ---- */

START_TEST(test_stats_odd) {
  const double samples[] = {5, 1, 4, 2, 3};
  double copy[5];
  memcpy(copy, samples, sizeof copy);
  cg_stats s;
  cg_stats_compute(copy, 5, &s);
  ck_assert_int_eq(s.n, 5);
  expect_close("median", s.median, 3);
  expect_close("min", s.min, 1);
  expect_close("max", s.max, 5);
  expect_close("mean", s.mean, 3);
  expect_close("stddev", s.stddev, sqrt(2.5)); /* sample (n-1) stddev */
  ck_assert_msg(memcmp(copy, samples, sizeof copy) == 0, "the samples were reordered");
}
END_TEST

START_TEST(test_stats_even) {
  const double samples[] = {4, 1, 3, 2};
  cg_stats s;
  cg_stats_compute(samples, 4, &s);
  ck_assert_int_eq(s.n, 4);
  expect_close("median", s.median, 2.5);
  expect_close("min", s.min, 1);
  expect_close("max", s.max, 4);
  expect_close("mean", s.mean, 2.5);
  expect_close("stddev", s.stddev, sqrt(5.0 / 3.0));

  const double two[] = {10, -2};
  cg_stats_compute(two, 2, &s);
  expect_close("median of two", s.median, 4);
  expect_close("stddev of two", s.stddev, sqrt(72.0));

  const double dup[] = {-1, 7, -1};
  cg_stats_compute(dup, 3, &s);
  expect_close("median with duplicates", s.median, -1);
  expect_close("min with duplicates", s.min, -1);
}
END_TEST

START_TEST(test_stats_one_and_none) {
  const double one[] = {7.25};
  cg_stats s;
  cg_stats_compute(one, 1, &s);
  ck_assert_int_eq(s.n, 1);
  expect_close("median", s.median, 7.25);
  expect_close("min", s.min, 7.25);
  expect_close("max", s.max, 7.25);
  expect_close("mean", s.mean, 7.25);
  ck_assert_msg(s.stddev == 0.0, "stddev of one sample: %g", s.stddev);

  memset(&s, 0, sizeof s);
  cg_stats_compute(NULL, 0, &s);
  ck_assert_int_eq(s.n, 0);
  ck_assert(isnan(s.median) && isnan(s.min) && isnan(s.max) && isnan(s.mean) && isnan(s.stddev));
}
END_TEST

/* Against a direct computation on fresh random samples of random length. */
START_TEST(test_stats_random) {
  uint64_t seed = cg_test_seed();
  cg_rng rng;
  cg_rng_seed(&rng, seed);
  for (int round = 0; round < 50; ++round) {
    int n = 1 + (int)(cg_rng_next(&rng) % 500);
    double *x = malloc((size_t)n * sizeof *x);
    for (int i = 0; i < n; ++i) x[i] = cg_rng_normal(&rng) * 10 + 3;
    cg_stats s;
    cg_stats_compute(x, n, &s);
    double mn = x[0], mx = x[0], sum = 0;
    for (int i = 0; i < n; ++i) {
      mn = fmin(mn, x[i]);
      mx = fmax(mx, x[i]);
      sum += x[i];
    }
    double mean = sum / n, ss = 0;
    for (int i = 0; i < n; ++i) ss += (x[i] - mean) * (x[i] - mean);
    /* The median splits the samples: at most half lie strictly below it, at most half above. */
    int below = 0, above = 0;
    for (int i = 0; i < n; ++i) {
      below += x[i] < s.median;
      above += x[i] > s.median;
    }
    ck_assert_msg(s.min == mn && s.max == mx, "min/max (seed %llu, n %d)",
                  (unsigned long long)seed, n);
    ck_assert_msg(fabs(s.mean - mean) <= 1e-9 * (1 + fabs(mean)), "mean (seed %llu, n %d)",
                  (unsigned long long)seed, n);
    double sd = n > 1 ? sqrt(ss / (n - 1)) : 0;
    ck_assert_msg(fabs(s.stddev - sd) <= 1e-9 * (1 + sd), "stddev %g vs %g (seed %llu, n %d)",
                  s.stddev, sd, (unsigned long long)seed, n);
    ck_assert_msg(2 * below <= n && 2 * above <= n, "median %g: %d below, %d above of %d "
                  "(seed %llu)", s.median, below, above, n, (unsigned long long)seed);
    free(x);
  }
}
END_TEST

/* ---- host clocks ---- */

START_TEST(test_monotonic_clock) {
  uint64_t prev = cg_now_ns();
  for (int i = 0; i < 100000; ++i) {
    uint64_t t = cg_now_ns();
    ck_assert_msg(t >= prev, "clock went back: %llu after %llu", (unsigned long long)t,
                  (unsigned long long)prev);
    prev = t;
  }
  uint64_t t0 = cg_now_ns();
  struct timespec pause = {0, 20 * 1000 * 1000};
  nanosleep(&pause, NULL);
  uint64_t dt = cg_now_ns() - t0;
  ck_assert_msg(dt >= 20000000u && dt < 2000000000u, "a 20 ms sleep measured %llu ns",
                (unsigned long long)dt);
  expect_close("cg_ns_to_ms", cg_ns_to_ms(1500000), 1.5);
  expect_close("cg_ns_to_ms", cg_ns_to_ms(0), 0);
}
END_TEST

START_TEST(test_cpu_time) {
  /* Busy work for 100 ms of wall time burns CPU time... */
  uint64_t c0 = cg_cpu_ns(), w0 = cg_now_ns();
  volatile double sink = 1;
  while (cg_now_ns() - w0 < 100000000u)
    for (int i = 0; i < 10000; ++i) sink = sink * 1.0000001 + 1e-9;
  uint64_t c1 = cg_cpu_ns();
  ck_assert_msg(c1 > c0, "CPU time did not increase over 100 ms of busy work");
  ck_assert_msg(c1 - c0 <= cg_now_ns() - w0 + 20000000u, "more CPU than wall time");
  /* ... and sleeping burns almost none. */
  struct timespec pause = {0, 100 * 1000 * 1000};
  uint64_t c2 = cg_cpu_ns();
  nanosleep(&pause, NULL);
  uint64_t c3 = cg_cpu_ns();
  ck_assert_msg(c3 >= c2, "CPU time went back");
  ck_assert_msg(c3 - c2 < 50000000u, "a 100 ms sleep cost %llu ns of CPU",
                (unsigned long long)(c3 - c2));
}
END_TEST

START_TEST(test_span_without_events) {
  cg_device_span span = {0};
  double ms = 123;
  const char *why = NULL;
  ck_assert(!cg_device_span_ms(&span, &ms, &why));
  ck_assert(isnan(ms));
  ck_assert_msg(why && *why, "no reason given");
  cg_device_span_release(&span); /* releasing nothing is fine */
  ck_assert_ptr_null(span.begin);
}
END_TEST

/* ---- device time on every device ---- */

static const char busy_source[] =
    "/* A kernel that takes a while: a dependent chain of multiply-adds per work-item. */\n"
    "__kernel void busy(__global float *x, const int iters) {\n"
    "  const int i = get_global_id(0);\n"
    "  float a = x[i];\n"
    "  for (int j = 0; j < iters; ++j) a = a * 0.999999f + 0.5f;\n"
    "  x[i] = a;\n"
    "}\n";

typedef struct busy_env {
  cg_device *dev;
  cl_program program;
  cl_kernel kernel;
  cl_mem buf;
  size_t global;
} busy_env;

static void busy_setup(const cg_device_info *info, const char *dir, busy_env *b) {
  cg_error err = {0};
  memset(b, 0, sizeof *b);
  ck_assert_msg(cg_device_open(info, &b->dev, &err) == CG_OK, "%s: %s", info->name, err.msg);
  const cg_program_store store = {dir, NULL};
  ck_assert_msg(cg_program_build(b->dev, &store, "busy.cl", NULL, &b->program, NULL, &err) == CG_OK,
                "%s: %s", info->name, err.msg);
  cl_int code = CL_SUCCESS;
  b->kernel = clCreateKernel(b->program, "busy", &code);
  ck_assert_int_eq(code, CL_SUCCESS);
  b->global = 4096;
  b->buf = clCreateBuffer(cg_device_context(b->dev), CL_MEM_READ_WRITE,
                          b->global * sizeof(float), NULL, &code);
  ck_assert_int_eq(code, CL_SUCCESS);
  float init[4096];
  for (size_t i = 0; i < b->global; ++i) init[i] = (float)i;
  ck_assert_int_eq(clEnqueueWriteBuffer(cg_device_queue(b->dev), b->buf, CL_TRUE, 0,
                                        sizeof init, init, 0, NULL, NULL),
                   CL_SUCCESS);
  ck_assert_int_eq(clSetKernelArg(b->kernel, 0, sizeof b->buf, &b->buf), CL_SUCCESS);
}

/* Run the kernel once with an event; returns the host time of enqueue plus finish in ms. */
static double busy_run(busy_env *b, int iters, cl_event *ev) {
  cl_command_queue q = cg_device_queue(b->dev);
  ck_assert_int_eq(clSetKernelArg(b->kernel, 1, sizeof iters, &iters), CL_SUCCESS);
  uint64_t t0 = cg_now_ns();
  ck_assert_int_eq(clEnqueueNDRangeKernel(q, b->kernel, 1, NULL, &b->global, NULL, 0, NULL, ev),
                   CL_SUCCESS);
  ck_assert_int_eq(clFinish(q), CL_SUCCESS);
  return cg_ns_to_ms(cg_now_ns() - t0);
}

static void busy_teardown(busy_env *b) {
  clReleaseMemObject(b->buf);
  clReleaseKernel(b->kernel);
  clReleaseProgram(b->program);
  cg_device_close(b->dev);
}

/* A kernel that the host sees take tens of milliseconds must not measure as nothing on the
 * device: either the span is plausible or cg_device_span_ms says why there is none. */
START_TEST(test_span_real_events) {
  char dir[256], path[512];
  cg_test_tempdir(dir, sizeof dir);
  snprintf(path, sizeof path, "%s/busy.cl", dir);
  cg_test_write_file(path, busy_source);
  cg_device_list list;
  cg_test_devices(&list);
  for (int i = 0; i < list.count; ++i) {
    const cg_device_info *info = &list.items[i];
    busy_env b;
    busy_setup(info, dir, &b);
    /* Warm up (lazy JIT), then grow the work until the host sees at least 40 ms. */
    int iters = 1000;
    busy_run(&b, iters, NULL);
    double host_ms = 0;
    cl_event ev = NULL;
    for (;;) {
      host_ms = busy_run(&b, iters, &ev);
      if (host_ms >= 40 || iters >= (1 << 26)) break;
      clReleaseEvent(ev);
      ev = NULL;
      iters *= host_ms < 4 ? 16 : 4;
    }
    cg_device_span span = {ev, ev, false};
    clRetainEvent(ev);
    double ms = -1;
    const char *why = NULL;
    bool ok = cg_device_span_ms(&span, &ms, &why);
    if (ok) {
      ck_assert_msg(ms >= 0.1 * host_ms && ms <= host_ms * 1.05 + 1.0,
                    "device %d (%s, %s): a kernel the host timed at %.3f ms measures %.6f ms on "
                    "the device, and cg_device_span_ms accepts it", i, info->name,
                    info->platform, host_ms, ms);
    } else {
      ck_assert_msg(isnan(ms) && why && *why, "device %d: no device time and no reason", i);
      printf("device %d (%s): no device time: %s\n", i, info->name, why);
    }

    /* Two kernels: the span from the first's start covers both, from its end only the second. */
    cl_event e1 = NULL, e2 = NULL;
    busy_run(&b, iters / 4 + 1, &e1);
    busy_run(&b, iters / 4 + 1, &e2);
    cg_device_span both = {e1, e2, false}, second = {e1, e2, true};
    double ms_both = NAN, ms_second = NAN;
    bool ok_both = cg_device_span_ms(&both, &ms_both, &why);
    bool ok_second = cg_device_span_ms(&second, &ms_second, &why);
    ck_assert_int_eq(ok_both, ok_second);
    if (ok_both)
      ck_assert_msg(ms_second <= ms_both && ms_second > 0, "device %d: spans %.6f and %.6f", i,
                    ms_both, ms_second);

    cg_device_span_release(&span); /* both references: the event's own and the retained one */
    ck_assert_ptr_null(span.begin);
    ck_assert_ptr_null(span.end);
    clReleaseEvent(e1);
    clReleaseEvent(e2);
    busy_teardown(&b);
  }
  cg_device_list_free(&list);
  cg_test_rmtree(dir);
}
END_TEST

/* A span whose end event is missing has no device time. */
START_TEST(test_span_half_events) {
  char dir[256], path[512];
  cg_test_tempdir(dir, sizeof dir);
  snprintf(path, sizeof path, "%s/busy.cl", dir);
  cg_test_write_file(path, busy_source);
  cg_device_list list;
  cg_test_devices(&list);
  for (int i = 0; i < list.count; ++i) {
    busy_env b;
    busy_setup(&list.items[i], dir, &b);
    cl_event ev = NULL;
    busy_run(&b, 10, &ev);
    double ms = 0;
    const char *why = NULL;
    cg_device_span begin_only = {ev, NULL, false}, end_only = {NULL, ev, false};
    ck_assert(!cg_device_span_ms(&begin_only, &ms, &why));
    ck_assert(isnan(ms) && why && *why);
    ck_assert(!cg_device_span_ms(&end_only, &ms, &why));
    ck_assert(isnan(ms) && why && *why);
    clReleaseEvent(ev);
    busy_teardown(&b);
  }
  cg_device_list_free(&list);
  cg_test_rmtree(dir);
}
END_TEST

Suite *cg_timing_suite(void) {
  Suite *s = suite_create("timing");
  TCase *tc = tcase_create("stats");
  tcase_add_test(tc, test_stats_odd);
  tcase_add_test(tc, test_stats_even);
  tcase_add_test(tc, test_stats_one_and_none);
  tcase_add_test(tc, test_stats_random);
  suite_add_tcase(s, tc);

  tc = tcase_create("host_clocks");
  tcase_set_timeout(tc, 30);
  tcase_add_test(tc, test_monotonic_clock);
  tcase_add_test(tc, test_cpu_time);
  tcase_add_test(tc, test_span_without_events);
  suite_add_tcase(s, tc);

  /* The statistics and host clocks need no OpenCL; the device tests need a device. */
  if (cg_test_device_count() > 0) {
    tc = tcase_create("device_time");
    tcase_set_timeout(tc, CG_TEST_OPENCL_TIMEOUT);
    tcase_add_test(tc, test_span_real_events);
    tcase_add_test(tc, test_span_half_events);
    suite_add_tcase(s, tc);
  } else {
    printf("no OpenCL device: the device-time tests are left out\n");
  }
  return s;
}

int main(void) { return cg_test_main(cg_timing_suite, false); }
