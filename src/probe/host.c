/* clgauge probe on the host: the cpu backend's ceilings. FP32 through OpenBLAS's SGEMM at
 * square sizes (the best rate is the ceiling: no hand-written loop beats it there), memory
 * through a read, a copy and OpenBLAS's saxpy (threaded, as the cpu backend runs it) over
 * buffers above the last-level cache. One warm-up, then the timed runs. */
#include "clgauge/probe.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clgauge/clock.h"
#include "clgauge/random.h"
#include "clgauge/reference.h"

static double since_ms(uint64_t t0) { return cg_ns_to_ms(cg_now_ns() - t0); }

/* Read every word; the sum is returned so that the loads stay. */
static uint64_t read_words(const uint64_t *p, size_t n) {
  uint64_t s0 = 0, s1 = 0, s2 = 0, s3 = 0;
  size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    s0 += p[i];
    s1 += p[i + 1];
    s2 += p[i + 2];
    s3 += p[i + 3];
  }
  for (; i < n; ++i) s0 += p[i];
  return s0 + s1 + s2 + s3;
}

static cg_rc host_sgemm(const cg_probe_options *o, cg_probe *out, int runs, cg_error *err) {
  cg_rc rc = CG_OK;
  static const int full[] = {256, 512, 1024, 2048, 0}, quick[] = {128, 256, 512, 0};
  const int *sizes = o->quick ? quick : full;
  const int largest = o->quick ? 512 : 2048;
  const size_t elems = (size_t)largest * (size_t)largest;
  float *a = malloc(elems * sizeof *a), *b = malloc(elems * sizeof *b),
        *c = malloc(elems * sizeof *c);
  CG_CHECK(a && b && c, CG_ERROR, "out of host memory for three %dx%d matrices", largest,
           largest);
  cg_rng rng;
  cg_rng_seed(&rng, 7);
  cg_rng_fill_normal(&rng, a, elems);
  cg_rng_fill_normal(&rng, b, elems);
  double samples[CG_PROBE_MAX_RUNS];
  for (int s = 0; sizes[s]; ++s) {
    const int n = sizes[s];
    const uint64_t t0 = cg_now_ns();
    cg_ref_sgemm(n, n, n, a, b, c); /* warm-up: OpenBLAS starts its threads */
    const double warm = since_ms(t0);
    /* as many products per run as the target time asks: a run of one small product would be
     * a few thread wake-ups long */
    const int reps = (int)fmin(fmax(ceil((o->quick ? 2 : 20) / fmax(warm, 1e-3)), 1), 1000);
    for (int r = 0; r < runs; ++r) {
      const uint64_t r0 = cg_now_ns();
      for (int i = 0; i < reps; ++i) cg_ref_sgemm(n, n, n, a, b, c);
      samples[r] = 2.0 * n * n * (double)n * reps / since_ms(r0) / 1e6;
    }
    char name[40];
    snprintf(name, sizeof name, "sgemm n=%d", n);
    cg_probe_add(out, "compute", name, "GFLOP/s", 0, NAN, samples, runs);
    /* the next size: a product eight times as long, as many runs of at least the target
     * time each; not when that is over the budget */
    const double product = since_ms(t0) / (1 + runs * reps), target = o->quick ? 2 : 20;
    if (8 * product + runs * fmax(target, 8 * product) > o->transfer_budget_ms) break;
  }
cleanup:
  free(a);
  free(b);
  free(c);
  return rc;
}

static cg_rc host_memory(const cg_probe_options *o, cg_probe *out, int runs, cg_error *err) {
  cg_rc rc = CG_OK;
  double want = o->quick ? 8.0 * (1 << 20) : fmax(256.0 * (1 << 20), 2 * out->cache_bytes);
  /* at most 256 MiB: the L3 a virtual machine reports may be its socket's, of which it has a
   * share only, and a larger buffer costs seconds on a small host */
  const size_t bytes = (size_t)fmin(want, 256.0 * (1 << 20)) / 64 * 64;
  out->memory_bytes = (double)bytes;
  /* two buffers read as words for read and copy, then as floats for saxpy */
  void *xbuf = malloc(bytes), *ybuf = malloc(bytes);
  uint64_t *x = xbuf, *y = ybuf;
  CG_CHECK(x && y, CG_ERROR, "out of host memory for two %zu-byte buffers", bytes);
  cg_rng rng;
  cg_rng_seed(&rng, 11);
  const size_t words = bytes / sizeof *x;
  for (size_t i = 0; i < words; ++i) x[i] = cg_rng_next(&rng);
  memcpy(y, x, bytes);
  double samples[CG_PROBE_MAX_RUNS];
  volatile uint64_t sink = 0;
  sink += read_words(x, words); /* warm-up */
  for (int r = 0; r < runs; ++r) {
    const uint64_t t0 = cg_now_ns();
    sink += read_words(x, words);
    samples[r] = (double)bytes / since_ms(t0) / 1e6;
  }
  cg_probe_add(out, "memory", "read", "GB/s", 0, NAN, samples, runs);
  memcpy(y, x, bytes);
  for (int r = 0; r < runs; ++r) {
    const uint64_t t0 = cg_now_ns();
    memcpy(y, x, bytes);
    samples[r] = 2.0 * (double)bytes / since_ms(t0) / 1e6;
  }
  cg_probe_add(out, "memory", "copy (memcpy)", "GB/s", 0, NAN, samples, runs);
  /* saxpy on finite floats in place of the random words (read as floats, some would be NaN) */
  const int n = (int)(bytes / sizeof(float));
  float *fx = xbuf, *fy = ybuf;
  for (int i = 0; i < n; ++i) fx[i] = fy[i] = (float)(i & 1023) * 0.001f;
  cg_ref_saxpy(n, 0.5f, fx, fy);
  for (int r = 0; r < runs; ++r) {
    const uint64_t t0 = cg_now_ns();
    cg_ref_saxpy(n, 0.5f, fx, fy);
    samples[r] = 12.0 * n / since_ms(t0) / 1e6;
  }
  cg_probe_add(out, "memory", "saxpy (OpenBLAS)", "GB/s", 0, NAN, samples, runs);
  (void)sink;
cleanup:
  free(xbuf);
  free(ybuf);
  return rc;
}

cg_rc cg_probe_host(const cg_probe_options *o, cg_probe *out, cg_error *err) {
  cg_rc rc = CG_OK;
  const uint64_t t0 = cg_now_ns();
  CG_TRY(cg_probe_options_check(o, err));
  cg_probe_init(out);
  out->host = true;
  out->quick = o->quick;
  out->runs = o->runs;
  snprintf(out->device, sizeof out->device, "host CPU");
  snprintf(out->device_type, sizeof out->device_type, "CPU");
  snprintf(out->driver, sizeof out->driver, "OpenBLAS");
#ifdef _SC_LEVEL3_CACHE_SIZE
  const long l3 = sysconf(_SC_LEVEL3_CACHE_SIZE);
  if (l3 > 0) out->cache_bytes = (double)l3;
#endif
  CG_TRY(host_sgemm(o, out, out->runs, err));
  CG_TRY(host_memory(o, out, out->runs, err));
  cg_probe_set_ceilings(out);
  out->wall_ms = since_ms(t0);
cleanup:
  return rc;
}
