/* Check suite of the probe and of the records held against it: the quick probe on every device
 * and on the host (figures positive, units right, every vector width there, the ceilings the
 * best of their figures), the roofline bound and the verdicts on synthetic records, the
 * implausibility guard on synthetic timings, and probes through a results file and back. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clgauge/bound.h"
#include "clgauge/device.h"
#include "clgauge/probe.h"
#include "clgauge/probe_io.h"
#include "clgauge/random.h"
#include "clgauge/report.h"
#include "clgauge/results.h"
#include "test_util.h"

static int device_count(void) {
  const int n = cg_test_device_count();
  return n > 0 ? n : 0;
}

static void expect_close(const char *what, double got, double want, uint64_t seed) {
  ck_assert_msg(fabs(got - want) <= 1e-9 * fabs(want), "%s: %.17g, expected %.17g (seed %llu)",
                what, got, want, (unsigned long long)seed);
}

/* ---- the probe on the devices and the host ---- */

static void check_group(const cg_probe *p, const char *group, const char *unit, int *count) {
  *count = 0;
  for (int i = 0; i < p->nfigures; ++i) {
    const cg_probe_figure *f = &p->figures[i];
    if (strcmp(f->group, group) != 0) continue;
    ++*count;
    ck_assert_msg(strcmp(f->unit, unit) == 0, "%s %s: unit %s, expected %s", group, f->name,
                  f->unit, unit);
    ck_assert_msg(f->stats.n == p->runs && f->stats.n >= 2, "%s %s: %d runs", group, f->name,
                  f->stats.n);
    ck_assert_msg(f->stats.min > 0 && isfinite(f->stats.max) && f->stats.min <= f->stats.median &&
                      f->stats.median <= f->stats.max,
                  "%s %s: min %g, median %g, max %g", group, f->name, f->stats.min,
                  f->stats.median, f->stats.max);
  }
}

/* The best median of a group, found here independently of cg_probe_set_ceilings. */
static double best_median(const cg_probe *p, const char *group) {
  double best = 0;
  for (int i = 0; i < p->nfigures; ++i)
    if (strcmp(p->figures[i].group, group) == 0 && p->figures[i].stats.median > best)
      best = p->figures[i].stats.median;
  return best;
}

START_TEST(test_probe_device) {
  cg_device_list list;
  const cg_device_info *info = cg_test_device_at(&list, _i);
  cg_probe_options o;
  cg_probe_options_default(&o, true);
  cg_probe *p = malloc(sizeof *p);
  ck_assert_ptr_nonnull(p);
  cg_error err = {0};
  ck_assert_msg(cg_probe_device(info, &o, p, &err) == CG_OK, "%s: %s", info->name, err.msg);
  ck_assert(!p->host && p->quick);
  ck_assert_str_eq(p->device, info->name);
  ck_assert(cg_probe_matches(p, info->name, info->platform, info->driver_version));
  int n = 0;
  /* compute and memory: every width, once per operation, named by it */
  check_group(p, "compute", "GFLOP/s", &n);
  ck_assert_int_eq(n, 5);
  check_group(p, "memory", "GB/s", &n);
  ck_assert_int_eq(n, 15);
  static const int widths[] = {1, 2, 4, 8, 16};
  static const char *const ops[] = {"fp32", "read", "write", "copy"};
  for (int op = 0; op < 4; ++op)
    for (int w = 0; w < 5; ++w) {
      char name[40];
      snprintf(name, sizeof name, widths[w] == 1 ? "%s float" : "%s float%d", ops[op], widths[w]);
      const cg_probe_figure *f = cg_probe_find(p, op ? "memory" : "compute", name, NAN);
      ck_assert_msg(f, "%s: no figure '%s'", info->name, name);
      ck_assert_int_eq(f->width, widths[w]);
    }
  /* transfers: five kinds, each from 4 KiB up in steps of 4, within the largest allocation */
  check_group(p, "transfer", "GB/s", &n);
  ck_assert_int_ge(n, 5);
  static const char *const kinds[] = {"write pageable", "read pageable", "write pinned",
                                      "read pinned", "map/unmap"};
  for (int k = 0; k < 5; ++k) {
    ck_assert_msg(cg_probe_find(p, "transfer", kinds[k], 4096), "%s: no %s of 4 KiB", info->name,
                  kinds[k]);
    for (int i = 0; i < p->nfigures; ++i) {
      const cg_probe_figure *f = &p->figures[i];
      if (strcmp(f->name, kinds[k]) != 0) continue;
      ck_assert_msg(f->bytes <= (double)info->max_alloc, "%s %g bytes", f->name, f->bytes);
      ck_assert_msg(f->bytes == 4096 || cg_probe_find(p, "transfer", kinds[k], f->bytes / 4),
                    "%s of %g bytes without the size a quarter as large", f->name, f->bytes);
    }
  }
  check_group(p, "launch", "us", &n);
  ck_assert_int_eq(n, 3);
  check_group(p, "build", "ms", &n);
  ck_assert_int_eq(n, 2);
  check_group(p, "context", "ms", &n);
  ck_assert_int_eq(n, 1);
  /* the ceilings: the best compute and memory medians, the back-to-back launch cost */
  ck_assert(p->fp32_gflops == best_median(p, "compute"));
  ck_assert(p->bandwidth_gbs == best_median(p, "memory"));
  ck_assert_ptr_nonnull(cg_probe_find(p, "compute", p->fp32_from, NAN));
  ck_assert_ptr_nonnull(cg_probe_find(p, "memory", p->bandwidth_from, NAN));
  ck_assert(p->launch_us == cg_probe_find(p, "launch", "back-to-back", NAN)->stats.median);
  ck_assert(p->memory_bytes >= (1 << 20) && p->wall_ms > 0);
  ck_assert_int_eq(p->runs, 3);
  /* a count of runs outside 1..CG_PROBE_MAX_RUNS is refused by value before anything runs */
  static const int bad_runs[] = {0, -1, CG_PROBE_MAX_RUNS + 1};
  for (size_t b = 0; b < sizeof bad_runs / sizeof bad_runs[0]; ++b) {
    o.runs = bad_runs[b];
    char named[32];
    snprintf(named, sizeof named, "%d runs", bad_runs[b]);
    ck_assert_int_eq(cg_probe_device(info, &o, p, &err), CG_BAD_INPUT);
    ck_assert_msg(strstr(err.msg, named) != NULL, "'%s' not in: %s", named, err.msg);
    ck_assert_int_eq(cg_probe_host(&o, p, &err), CG_BAD_INPUT);
    ck_assert_msg(strstr(err.msg, named) != NULL, "'%s' not in: %s", named, err.msg);
  }
  free(p);
  cg_device_list_free(&list);
}
END_TEST

START_TEST(test_probe_host) {
  cg_probe_options o;
  cg_probe_options_default(&o, true);
  cg_probe *p = malloc(sizeof *p);
  ck_assert_ptr_nonnull(p);
  cg_error err = {0};
  ck_assert_msg(cg_probe_host(&o, p, &err) == CG_OK, "%s", err.msg);
  ck_assert(p->host);
  int n = 0;
  check_group(p, "compute", "GFLOP/s", &n);
  ck_assert_int_ge(n, 1);
  ck_assert_ptr_nonnull(cg_probe_find(p, "compute", "sgemm n=128", NAN));
  check_group(p, "memory", "GB/s", &n);
  ck_assert_int_eq(n, 3);
  ck_assert(p->fp32_gflops == best_median(p, "compute"));
  ck_assert(p->bandwidth_gbs == best_median(p, "memory"));
  ck_assert(isnan(p->launch_us)); /* the host launches nothing */
  ck_assert_int_eq(p->runs, 3);
  /* as many samples in every figure as runs asked (probe --runs) */
  o.runs = 2;
  ck_assert_msg(cg_probe_host(&o, p, &err) == CG_OK, "%s", err.msg);
  ck_assert_int_eq(p->runs, 2);
  ck_assert_int_gt(p->nfigures, 0);
  for (int i = 0; i < p->nfigures; ++i)
    ck_assert_msg(p->figures[i].stats.n == 2, "%s: %d samples", p->figures[i].name,
                  p->figures[i].stats.n);
  free(p);
}
END_TEST

/* ---- synthetic probes and records ---- */

static void synthetic_probe(cg_probe *p, double gflops, double gbs, double launch_us) {
  cg_probe_init(p);
  snprintf(p->device, sizeof p->device, "Synthetic GPU");
  snprintf(p->platform, sizeof p->platform, "Synthetic platform");
  snprintf(p->driver, sizeof p->driver, "1.0");
  p->runs = 3;
  const double c[3] = {gflops * 0.9, gflops, gflops * 1.1};
  const double m[3] = {gbs, gbs * 0.8, gbs * 0.7};
  const double l[3] = {launch_us * 1.1, launch_us, launch_us * 1.2};
  cg_probe_add(p, "compute", "fp32 float4", "GFLOP/s", 4, NAN, c, 3);
  cg_probe_add(p, "compute", "fp32 float", "GFLOP/s", 1, NAN, c, 1); /* 0.9 of the best */
  cg_probe_add(p, "memory", "read float4", "GB/s", 4, NAN, m, 3);
  cg_probe_add(p, "launch", "back-to-back", "us", 0, NAN, l, 3);
  cg_probe_set_ceilings(p);
  p->timer_ns = 1000;
}

/* A record of the synthetic device, ok, with `runs` steady runs of one iteration each taking
 * `ms` (wall), device time a fraction below it. */
static cg_record *synthetic_record(cg_report *report, double flops, double bytes, int launches,
                                   double ms, int runs) {
  cg_record *r = cg_report_add(report);
  ck_assert_ptr_nonnull(r);
  snprintf(r->workload, sizeof r->workload, "synthetic");
  snprintf(r->backend, sizeof r->backend, "cl");
  snprintf(r->variant, sizeof r->variant, "v");
  snprintf(r->device, sizeof r->device, "Synthetic GPU");
  snprintf(r->platform, sizeof r->platform, "Synthetic platform");
  snprintf(r->driver, sizeof r->driver, "1.0");
  snprintf(r->compile_kind, sizeof r->compile_kind, "source");
  r->status = CG_STATUS_OK;
  r->flops_per_iter = flops;
  r->bytes_per_iter = bytes;
  r->launches_per_iter = launches;
  r->iters_per_run = 1;
  r->init_ms = 10, r->compile_ms = 20, r->upload_ms = 1, r->first.complete_ms = 2;
  r->runs = calloc((size_t)runs + 1, sizeof *r->runs);
  ck_assert_ptr_nonnull(r->runs);
  double *wall = calloc((size_t)runs, sizeof *wall), *dev = calloc((size_t)runs, sizeof *dev);
  for (int i = 0; i <= runs; ++i) {
    r->runs[i] = (cg_run_sample){ms * 0.1, ms, ms * 0.99, 1, NAN, NAN, NAN};
    if (i) wall[i - 1] = ms, dev[i - 1] = ms * 0.99;
  }
  r->nruns = runs + 1;
  cg_stats_compute(wall, runs, &r->steady_complete);
  cg_stats_compute(dev, runs, &r->steady_device);
  free(wall);
  free(dev);
  return r;
}

START_TEST(test_ceilings_best_median) {
  cg_probe p;
  synthetic_probe(&p, 1000, 100, 5);
  ck_assert(p.fp32_gflops == 1000);
  ck_assert_str_eq(p.fp32_from, "fp32 float4");
  ck_assert(p.bandwidth_gbs == 80); /* the median of 100, 80, 70 */
  ck_assert(p.launch_us == 5.5);
}
END_TEST

START_TEST(test_bound_terms) {
  const uint64_t seed = cg_test_seed();
  cg_rng rng;
  cg_rng_seed(&rng, seed);
  for (int trial = 0; trial < 50; ++trial) {
    const double peak = 100 + 1e5 * cg_rng_uniform(&rng), bw = 10 + 5e3 * cg_rng_uniform(&rng),
                 launch = 1 + 50 * cg_rng_uniform(&rng);
    const double flops = 1e3 + 1e10 * cg_rng_uniform(&rng), bytes = 1e3 + 1e9 * cg_rng_uniform(&rng);
    const int launches = (int)(cg_rng_next(&rng) % 40);
    cg_probe p;
    synthetic_probe(&p, peak, bw / 0.8, launch / 1.1);
    expect_close("bandwidth ceiling", p.bandwidth_gbs, bw, seed);
    expect_close("launch ceiling", p.launch_us, launch, seed);
    cg_report report;
    cg_report_init(&report, 0, NULL);
    const double compute_ms = flops / peak / 1e6, memory_ms = bytes / bw / 1e6,
                 launch_ms = launches * launch / 1e3;
    const double bound = fmax(compute_ms, fmax(memory_ms, launch_ms));
    const double ms = bound * (1 + 20 * cg_rng_uniform(&rng));
    cg_record *r = synthetic_record(&report, flops, bytes, launches, ms, 5);
    ck_assert_int_eq(cg_report_add_probe(&report, &p), 0);
    cg_report_assess(&report);
    const cg_bound *b = &r->bound;
    ck_assert_int_eq(b->probe, 0);
    expect_close("compute term", b->compute_ms, compute_ms, seed);
    expect_close("memory term", b->memory_ms, memory_ms, seed);
    expect_close("launch term", b->launch_ms, launch_ms, seed);
    expect_close("bound", b->bound_ms, bound, seed);
    expect_close("of bound", b->of_bound, ms / bound, seed);
    expect_close("share of the peak", b->peak_share, flops / ms / 1e6 / peak, seed);
    expect_close("share of the bandwidth", b->bandwidth_share, bytes / ms / 1e6 / bw, seed);
    ck_assert_int_eq(b->launches, launches);
    ck_assert(!b->launches_at_least);
    /* the verdict names the largest term where it takes half the time or more */
    const char *want = "far from every bound";
    if (bound >= 0.5 * ms)
      want = bound == compute_ms ? "compute-bound" : bound == memory_ms ? "memory-bound"
                                                                        : "launch-bound";
    ck_assert_msg(strncmp(b->steady, want, strlen(want)) == 0, "'%s', expected %s (seed %llu)",
                  b->steady, want, (unsigned long long)seed);
    /* run 0: the compile's 20 of 33 ms */
    ck_assert_msg(strstr(b->first, "run 0 compile-bound: compile 20 of 33 ms"), "'%s'", b->first);
    cg_report_free(&report);
  }
}
END_TEST

START_TEST(test_bound_verdicts) {
  cg_probe p;
  synthetic_probe(&p, 1000, 100 / 0.8, 6 / 1.1); /* 1000 GFLOP/s, 100 GB/s, 6 us */
  cg_report report;
  cg_report_init(&report, 0, NULL);
  ck_assert_int_eq(cg_report_add_probe(&report, &p), 0);
  /* the seed mlp on cl/per-op: 15 launches of 6 us against a few microseconds of arithmetic */
  cg_record *launch = synthetic_record(&report, 3e6, 2e5, 15, 0.093, 5);
  cg_record *compute = synthetic_record(&report, 2e9, 1e6, 1, 2.5, 5);   /* 2 ms of 2.5 */
  cg_record *memory = synthetic_record(&report, 2e6, 1e9, 1, 12, 5);     /* 10 ms of 12 */
  cg_record *far = synthetic_record(&report, 2e9, 1e6, 1, 20, 5);        /* 2 ms of 20 */
  cg_record *library = synthetic_record(&report, 1e3, 1e3, -1, 0.02, 5); /* launches unknown */
  library->launches_at_least = 2;
  cg_record *transfer = synthetic_record(&report, 1e3, 1e3, 2, 0.1, 5);
  transfer->batch_upload_ms = 0.08, transfer->upload_hidden = 0.25; /* 60 us of 100 exposed */
  cg_record *context = synthetic_record(&report, 1e3, 1e3, 1, 1, 5);
  context->init_ms = 96, context->compile_ms = 4;
  cg_record *lazy = synthetic_record(&report, 1e3, 1e3, 1, 1, 5);
  lazy->compile_ms = NAN, lazy->first.complete_ms = 900;
  snprintf(lazy->compile_kind, sizeof lazy->compile_kind, "lazy");
  cg_record *host = synthetic_record(&report, 2e9, 1e6, -1, 2.5, 5);
  host->host_backend = true;
  cg_report_assess(&report);
  /* the records moved as the report grew: find them again, in the order they were added */
  cg_record **order[] = {&launch, &compute, &memory, &far, &library, &transfer, &context, &lazy,
                         &host};
  for (int i = 0; i < 9; ++i) *order[i] = &report.records[i];
  ck_assert_msg(strstr(launch->bound.steady, "launch-bound: 15 launches x 6 us = 90 us of the 93 us"),
                "%s", launch->bound.steady);
  ck_assert_msg(strstr(compute->bound.steady, "compute-bound: 80% of the FP32 peak (800 of 1000"),
                "%s", compute->bound.steady);
  ck_assert_msg(strstr(memory->bound.steady, "memory-bound: 83% of the measured bandwidth"), "%s",
                memory->bound.steady);
  ck_assert_msg(strstr(far->bound.steady, "far from every bound: 20 ms per iteration, 10x"), "%s",
                far->bound.steady);
  ck_assert_msg(strstr(library->bound.steady, "launch-bound: at least 2 launches"), "%s",
                library->bound.steady);
  ck_assert(library->bound.launches_at_least && library->bound.launches == 2);
  ck_assert_msg(strstr(transfer->bound.steady, "transfer-bound: uploads no compute hides take 60 us"),
                "%s", transfer->bound.steady);
  ck_assert_msg(strstr(context->bound.first, "run 0 context-bound: context 96 of 103 ms"), "%s",
                context->bound.first);
  ck_assert_msg(strstr(lazy->bound.first, "run 0 first-run-bound") &&
                    strstr(lazy->bound.first, "the library compiles there"),
                "%s", lazy->bound.first);
  /* a host record is not held against a device's probe */
  ck_assert_int_eq(host->bound.probe, -1);
  ck_assert(isnan(host->bound.of_bound));
  cg_report_free(&report);
}
END_TEST

/* ---- the implausibility guard ---- */

START_TEST(test_implausible_rate) {
  const uint64_t seed = cg_test_seed();
  cg_rng rng;
  cg_rng_seed(&rng, seed);
  const double peak = 100 + 1e4 * cg_rng_uniform(&rng), ms = 0.1 + cg_rng_uniform(&rng);
  cg_probe p;
  synthetic_probe(&p, peak, 100 / 0.8, 5);
  cg_report report;
  cg_report_init(&report, 0, NULL);
  /* FLOPs for 1.2 and for 1.04 times the peak in ms */
  cg_record *over = synthetic_record(&report, 1.2 * peak * ms * 1e6, 1e3, 1, ms, 5);
  cg_record *within = synthetic_record(&report, 1.04 * peak * ms * 1e6 * 0.99, 1e3, 1, ms, 5);
  cg_record *bytes = synthetic_record(&report, 1e3, 1.5 * 100 * ms * 1e6, 1, ms, 5);
  cg_record *cached = synthetic_record(&report, 1e3, 1.5 * 100 * ms * 1e6, 1, ms, 5);
  ck_assert_int_eq(cg_report_add_probe(&report, &p), 0);
  cg_report_assess(&report);
  ck_assert_msg(strstr(over->implausible, "above the measured FP32 peak"), "'%s' (seed %llu)",
                over->implausible, (unsigned long long)seed);
  ck_assert_msg(strstr(over->implausible, "20% above"), "%s", over->implausible);
  ck_assert_msg(within->implausible[0] == '\0', "'%s' (seed %llu)", within->implausible,
                (unsigned long long)seed);
  ck_assert_msg(strstr(bytes->implausible, "above the measured bandwidth"), "'%s'",
                bytes->implausible);
  /* bytes that fit in the cache may come faster than device memory gives them */
  report.probes[0].cache_bytes = 2 * cached->bytes_per_iter;
  cg_report_assess(&report);
  ck_assert_msg(cached->implausible[0] == '\0', "'%s'", cached->implausible);
  ck_assert(cached->bound.memory_in_cache);
  /* the figure stays with the flag */
  ck_assert(over->status == CG_STATUS_OK && over->steady_complete.median == ms);
  cg_report_free(&report);
}
END_TEST

START_TEST(test_implausible_device_over_wall) {
  cg_probe p;
  synthetic_probe(&p, 1e6, 1e6, 5); /* ceilings far above: only the timings count */
  cg_report report;
  cg_report_init(&report, 0, NULL);
  cg_record *over = synthetic_record(&report, 1e3, 1e3, 1, 1.0, 5);
  over->runs[3].device_ms = 1.5;
  cg_record *within = synthetic_record(&report, 1e3, 1e3, 1, 1.0, 5);
  within->runs[2].device_ms = 1.0 + 0.5e-3; /* half the 1 us resolution over: within it */
  ck_assert_int_eq(cg_report_add_probe(&report, &p), 0);
  cg_report_assess(&report);
  ck_assert_msg(strstr(over->implausible, "device time exceeds wall time in 1 run (run 3: 1.5 ms"),
                "'%s'", over->implausible);
  ck_assert_msg(within->implausible[0] == '\0', "'%s'", within->implausible);
  /* with no probe the guard still checks the timings, at a resolution of 1 us */
  report.nprobes = 0;
  cg_report_assess(&report);
  ck_assert(strstr(over->implausible, "device time exceeds wall time"));
  ck_assert(over->bound.probe == -1 && within->implausible[0] == '\0');
  report.nprobes = 1;
  cg_report_free(&report);
}
END_TEST

START_TEST(test_implausible_stamps_and_spread) {
  cg_report report;
  cg_report_init(&report, 0, NULL);
  /* the reasons of src/opencl/events.c: Mesa's zero stamps, rusticl's placeholders */
  cg_record *zero = synthetic_record(&report, 1e3, 1e3, 1, 1, 5);
  snprintf(zero->device_time_why, sizeof zero->device_time_why,
           "driver returns zero profiling timestamps");
  cg_record *placeholder = synthetic_record(&report, 1e3, 1e3, 1, 1, 5);
  snprintf(placeholder->device_time_why, sizeof placeholder->device_time_why,
           "driver returns placeholder profiling timestamps (under 100 ns)");
  cg_record *no_events = synthetic_record(&report, 1e3, 1e3, 1, 1, 5);
  snprintf(no_events->device_time_why, sizeof no_events->device_time_why,
           "no profiling events for this backend");
  cg_record *wide = synthetic_record(&report, 1e3, 1e3, 1, 1, 5);
  wide->steady_complete.min = 1, wide->steady_complete.max = 3.2;
  cg_record *narrow = synthetic_record(&report, 1e3, 1e3, 1, 1, 5);
  narrow->steady_complete.min = 1, narrow->steady_complete.max = 2.9;
  cg_record *failed = synthetic_record(&report, 1e3, 1e3, 1, 1, 5);
  failed->status = CG_STATUS_ERROR;
  failed->runs[1].device_ms = 100;
  cg_report_assess(&report);
  ck_assert_msg(strstr(zero->implausible, "device timestamps unusable: driver returns zero"), "'%s'",
                zero->implausible);
  ck_assert_msg(strstr(placeholder->implausible, "placeholder"), "'%s'", placeholder->implausible);
  ck_assert_msg(no_events->implausible[0] == '\0', "'%s'", no_events->implausible);
  ck_assert_msg(strstr(wide->implausible, "steady runs from 1 to 3.2 ms (max/min 3.2 > 3)"), "'%s'",
                wide->implausible);
  ck_assert_msg(narrow->implausible[0] == '\0', "'%s'", narrow->implausible);
  ck_assert_msg(failed->implausible[0] == '\0', "a record in error is not assessed: '%s'",
                failed->implausible);
  /* several reasons at once, joined */
  snprintf(wide->device_time_why, sizeof wide->device_time_why,
           "driver returns zero profiling timestamps");
  cg_report_assess(&report);
  ck_assert_msg(strstr(wide->implausible, "timestamps unusable") &&
                    strstr(wide->implausible, "; steady runs from"),
                "'%s'", wide->implausible);
  cg_report_free(&report);
}
END_TEST

/* ---- probes through a results file ---- */

START_TEST(test_probe_json_round_trip) {
  const uint64_t seed = cg_test_seed();
  cg_rng rng;
  cg_rng_seed(&rng, seed);
  cg_probe p;
  synthetic_probe(&p, 1000 * (1 + cg_rng_uniform(&rng)), 300, 7);
  const double t[3] = {1, 2, 4};
  cg_probe_add(&p, "transfer", "write pinned", "GB/s", 0, 4096, t, 3);
  p.cache_bytes = 50 << 20;
  cg_report report;
  cg_report_init(&report, 0, NULL);
  ck_assert_int_eq(cg_report_add_probe(&report, &p), 0);
  cg_record *r = synthetic_record(&report, 2e9, 1e6, 15, 2.5, 5);
  snprintf(r->device_time_why, sizeof r->device_time_why, "driver returns zero profiling timestamps");
  cg_report_assess(&report);
  char *text = cg_report_json(&report);
  ck_assert_ptr_nonnull(text);
  cg_report back;
  cg_report_init(&back, 0, NULL);
  cg_error err = {0};
  ck_assert_msg(cg_probes_parse(text, strlen(text), "round trip", &back, &err) == CG_OK, "%s",
                err.msg);
  ck_assert_int_eq(back.nprobes, 1);
  const cg_probe *q = &back.probes[0];
  /* cJSON writes 15 significant digits where they read back within a rounding */
  ck_assert_msg(fabs(q->fp32_gflops / p.fp32_gflops - 1) < 1e-14 &&
                    fabs(q->bandwidth_gbs / p.bandwidth_gbs - 1) < 1e-14 &&
                    fabs(q->launch_us / p.launch_us - 1) < 1e-14 && q->cache_bytes == p.cache_bytes,
                "read back %.17g %.17g %.17g %.17g, written %.17g %.17g %.17g %.17g",
                q->fp32_gflops, q->bandwidth_gbs, q->launch_us, q->cache_bytes, p.fp32_gflops,
                p.bandwidth_gbs, p.launch_us, p.cache_bytes);
  ck_assert_str_eq(q->fp32_from, p.fp32_from);
  ck_assert(cg_probe_matches(q, p.device, p.platform, p.driver));
  ck_assert_int_eq(q->nfigures, p.nfigures);
  for (int i = 0; i < p.nfigures; ++i) {
    ck_assert_str_eq(q->figures[i].name, p.figures[i].name);
    ck_assert_int_eq(q->figures[i].width, p.figures[i].width);
    ck_assert(fabs(q->figures[i].stats.median / p.figures[i].stats.median - 1) < 1e-14);
    ck_assert(isnan(p.figures[i].bytes) ? isnan(q->figures[i].bytes)
                                        : q->figures[i].bytes == p.figures[i].bytes);
  }
  /* the results reader behind compare takes the file with its probes, bounds and flags */
  cg_results res;
  ck_assert_msg(cg_results_parse(text, strlen(text), "round trip", &res, &err) == CG_OK, "%s",
                err.msg);
  ck_assert_int_eq(res.count, 1);
  cg_results_free(&res);
  ck_assert(strstr(text, "\"implausible\":\t\"device timestamps unusable"));
  ck_assert(strstr(text, "\"of_bound\""));
  free(text);
  cg_report_free(&back);
  cg_report_free(&report);
}
END_TEST

START_TEST(test_probe_file_refused) {
  static const char *const bad[][2] = {
      {"{\"schema\": \"clgauge.results/4\", \"records\": []}", "holds no probe"},
      {"{\"schema\": \"other/1\", \"probes\": [{}]}", "not a clgauge results file"},
      {"{\"schema\": \"clgauge.results/4\", \"probes\": [", "not valid JSON"},
      {"{\"schema\": \"clgauge.results/4\", \"probes\": [{\"device\": {}, \"ceilings\": "
       "{\"fp32_gflops\": -3}}]}",
       "fp32_gflops -3 is not a positive figure"},
      {"{\"schema\": \"clgauge.results/4\", \"probes\": [{\"device\": {\"name\": 7}, "
       "\"ceilings\": {}}]}",
       "probes[0].device has a field that is not a string"},
      {"{\"schema\": \"clgauge.results/4\", \"probes\": [{\"device\": {}, \"ceilings\": {}, "
       "\"figures\": [{\"median\": \"fast\"}]}]}",
       "probes[0].figures[0] is malformed"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
    cg_report report;
    cg_report_init(&report, 0, NULL);
    cg_error err = {0};
    ck_assert_int_eq(cg_probes_parse(bad[i][0], strlen(bad[i][0]), "bad.json", &report, &err),
                     CG_BAD_INPUT);
    ck_assert_msg(strstr(err.msg, bad[i][1]) && strstr(err.msg, "'bad.json'"), "%zu: '%s'", i,
                  err.msg);
    ck_assert_int_eq(report.nprobes, 0);
    cg_report_free(&report);
  }
  cg_report report;
  cg_report_init(&report, 0, NULL);
  cg_error err = {0};
  ck_assert_int_eq(cg_probes_read("/nonexistent/probe.json", &report, &err), CG_BAD_INPUT);
  ck_assert_msg(strstr(err.msg, "/nonexistent/probe.json"), "%s", err.msg);
  cg_report_free(&report);
}
END_TEST

Suite *cg_probe_suite(void) {
  Suite *s = suite_create("probe");
  TCase *tc = tcase_create("measure");
  tcase_set_timeout(tc, CG_TEST_OPENCL_TIMEOUT);
  tcase_add_loop_test(tc, test_probe_device, 0, device_count());
  tcase_add_test(tc, test_probe_host);
  suite_add_tcase(s, tc);

  tc = tcase_create("bound");
  tcase_add_test(tc, test_ceilings_best_median);
  tcase_add_test(tc, test_bound_terms);
  tcase_add_test(tc, test_bound_verdicts);
  suite_add_tcase(s, tc);

  tc = tcase_create("implausible");
  tcase_add_test(tc, test_implausible_rate);
  tcase_add_test(tc, test_implausible_device_over_wall);
  tcase_add_test(tc, test_implausible_stamps_and_spread);
  suite_add_tcase(s, tc);

  tc = tcase_create("files");
  tcase_add_test(tc, test_probe_json_round_trip);
  tcase_add_test(tc, test_probe_file_refused);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return cg_test_main(cg_probe_suite, false); }
