/* clgauge probe on an OpenCL device: the kernels of cl/probe.cl timed with the host's monotonic
 * clock around complete commands (clFinish), so that drivers without profiling stamps (Mesa)
 * are measured alike. Every figure: one warm-up (which also calibrates the work of a run), then
 * the timed runs, summarised as median, min and max. */
#include "clgauge/probe.h"

#include <CL/cl.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clgauge/clock.h"
#include "clgauge/device.h"
#include "clgauge/program.h"
#include "clgauge/random.h"

enum { WIDTHS = 5 };
static const int widths[WIDTHS] = {1, 2, 4, 8, 16};

typedef struct prober {
  const cg_device_info *info;
  const cg_probe_options *o;
  cg_probe *p;
  cg_device *dev;
  cl_context ctx;
  cl_command_queue q;
  cl_program prog;
  int runs;
  double target_ms; /* what one timed run of a kernel figure should take */
  double samples[CG_PROBE_MAX_RUNS];
  uint64_t seed;
} prober;

static double since_ms(uint64_t t0) { return cg_ns_to_ms(cg_now_ns() - t0); }

/* Work-items: four full work-groups per compute unit, enough to fill a GPU's schedulers. */
static size_t global_items(const prober *pr, size_t local) {
  const size_t units = cg_device_units(pr->info);
  size_t items = units * 1024 * 4;
  return (items + local - 1) / local * local;
}

static cg_rc local_size(const prober *pr, cl_kernel k, size_t *local, cg_error *err) {
  cg_rc rc = CG_OK;
  size_t most = 0;
  CG_CL(clGetKernelWorkGroupInfo,
        (k, pr->info->id, CL_KERNEL_WORK_GROUP_SIZE, sizeof most, &most, NULL));
  /* a power of two up to 256, so that it divides the memory kernels' global sizes */
  size_t l = 1;
  while (l * 2 <= most && l * 2 <= 256) l *= 2;
  *local = l;
cleanup:
  return rc;
}

/* `launches` launches of k back to back, until complete; the time in ms. */
static cg_rc timed_launches(prober *pr, cl_kernel k, size_t global, size_t local, int launches,
                            double *ms, cg_error *err) {
  cg_rc rc = CG_OK;
  const uint64_t t0 = cg_now_ns();
  for (int i = 0; i < launches; ++i)
    CG_CL(clEnqueueNDRangeKernel, (pr->q, k, 1, NULL, &global, &local, 0, NULL, NULL));
  CG_CL(clFinish, (pr->q));
  *ms = since_ms(t0);
cleanup:
  return rc;
}

/* ---- FP32 ---- */

static cg_rc probe_compute(prober *pr, cg_error *err) {
  cg_rc rc = CG_OK;
  cl_kernel k = NULL;
  cl_mem out = NULL;
  cl_int code = CL_SUCCESS;
  const size_t max_global = global_items(pr, 256);
  out = clCreateBuffer(pr->ctx, CL_MEM_WRITE_ONLY, max_global * sizeof(float), NULL, &code);
  CG_CL_CHECK(clCreateBuffer, code);
  for (int w = 0; w < WIDTHS; ++w) {
    char name[16], label[40];
    snprintf(name, sizeof name, "fma_%d", widths[w]);
    k = clCreateKernel(pr->prog, name, &code);
    CG_CL_CHECK(clCreateKernel, code);
    size_t local = 1;
    CG_TRY(local_size(pr, k, &local, err));
    size_t global = global_items(pr, local);
    if (global > max_global) global = max_global / local * local;
    /* a = 1 - 2^-12 and b = 2^-10: every chain stays finite and normal whatever the rounds */
    const cl_float a = 0.999755859375f, b = 0.0009765625f;
    cl_int rounds = 1;
    CG_CL(clSetKernelArg, (k, 0, sizeof out, &out));
    CG_CL(clSetKernelArg, (k, 1, sizeof a, &a));
    CG_CL(clSetKernelArg, (k, 2, sizeof b, &b));
    /* warm-up and calibration: grow the rounds until a launch takes the target time */
    double ms = 0;
    for (int step = 0; step < 24; ++step) {
      CG_CL(clSetKernelArg, (k, 3, sizeof rounds, &rounds));
      CG_TRY(timed_launches(pr, k, global, local, 1, &ms, err));
      if (ms >= pr->target_ms || rounds >= (1 << 22)) break;
      const double grow = ms > 0 ? pr->target_ms / ms * 1.2 : 16;
      rounds = (cl_int)fmin(rounds * fmin(fmax(grow, 2), 16), 1 << 22);
    }
    const double flops = (double)global * 4 * 16 * 2 * (double)rounds * widths[w];
    for (int r = 0; r < pr->runs; ++r) {
      CG_TRY(timed_launches(pr, k, global, local, 1, &ms, err));
      pr->samples[r] = flops / ms / 1e6;
    }
    snprintf(label, sizeof label, widths[w] == 1 ? "fp32 float" : "fp32 float%d", widths[w]);
    cg_probe_add(pr->p, "compute", label, "GFLOP/s", widths[w], NAN, pr->samples, pr->runs);
    clReleaseKernel(k);
    k = NULL;
  }
cleanup:
  if (k) clReleaseKernel(k);
  if (out) clReleaseMemObject(out);
  return rc;
}

/* ---- device memory ---- */

/* The buffer size of the bandwidth figures: 256 MiB (8 MiB quick), four times a GPU's
 * last-level cache (an H200 has 60 MiB); more where the device reports a larger cache, up to
 * 512 MiB (a CPU in a virtual machine may report the socket's whole L3); within the largest
 * allocation and an eighth of the device's memory (two buffers live at once). */
static size_t memory_bytes(const prober *pr, double cache) {
  double want = pr->o->quick ? 8.0 * (1 << 20) : fmax(256.0 * (1 << 20), 2 * cache);
  if (cg_device_is_cpu(pr->info)) want = fmin(want, 256.0 * (1 << 20)); /* time */
  want = fmin(want, 512.0 * (1 << 20));
  want = fmin(want, (double)pr->info->max_alloc);
  want = fmin(want, (double)pr->info->global_mem / 8);
  const size_t mib = (size_t)1 << 20;
  return (size_t)want / mib * mib; /* whole MiB: every width and work-group size divides */
}

/* Fill a device buffer with random bits from the host: incompressible. */
static cg_rc fill_random(prober *pr, cl_mem buf, size_t bytes, cg_error *err) {
  cg_rc rc = CG_OK;
  uint64_t *host = malloc(bytes);
  CG_CHECK(host, CG_ERROR, "out of host memory for %zu bytes of random data", bytes);
  cg_rng rng;
  cg_rng_seed(&rng, pr->seed);
  for (size_t i = 0; i < bytes / sizeof *host; ++i) host[i] = cg_rng_next(&rng);
  CG_CL(clEnqueueWriteBuffer, (pr->q, buf, CL_TRUE, 0, bytes, host, 0, NULL, NULL));
cleanup:
  free(host);
  return rc;
}

static cg_rc probe_memory(prober *pr, cg_error *err) {
  cg_rc rc = CG_OK;
  cl_kernel k = NULL;
  cl_mem a = NULL, b = NULL, sums = NULL;
  cl_int code = CL_SUCCESS;
  const size_t bytes = memory_bytes(pr, pr->p->cache_bytes);
  CG_CHECK(bytes >= (1 << 20), CG_UNSUPPORTED, "the device allows too small buffers (%zu bytes)",
           bytes);
  pr->p->memory_bytes = (double)bytes;
  a = clCreateBuffer(pr->ctx, CL_MEM_READ_WRITE, bytes, NULL, &code);
  CG_CL_CHECK(clCreateBuffer, code);
  b = clCreateBuffer(pr->ctx, CL_MEM_READ_WRITE, bytes, NULL, &code);
  CG_CL_CHECK(clCreateBuffer, code);
  /* one sum per work-item of read_1, the most work-items of the read kernels */
  const size_t max_global = bytes / sizeof(float) / 16;
  sums = clCreateBuffer(pr->ctx, CL_MEM_WRITE_ONLY, max_global * sizeof(float), NULL, &code);
  CG_CL_CHECK(clCreateBuffer, code);
  CG_TRY(fill_random(pr, a, bytes, err));
  CG_TRY(fill_random(pr, b, bytes, err));
  static const char *const ops[] = {"read", "write", "copy"};
  for (int op = 0; op < 3; ++op)
    for (int w = 0; w < WIDTHS; ++w) {
      char name[16], label[40];
      snprintf(name, sizeof name, "%s_%d", ops[op], widths[w]);
      k = clCreateKernel(pr->prog, name, &code);
      CG_CL_CHECK(clCreateKernel, code);
      const cl_uint seed = (cl_uint)pr->seed;
      if (op == 0) {
        CG_CL(clSetKernelArg, (k, 0, sizeof a, &a));
        CG_CL(clSetKernelArg, (k, 1, sizeof sums, &sums));
      } else if (op == 1) {
        CG_CL(clSetKernelArg, (k, 0, sizeof b, &b));
        CG_CL(clSetKernelArg, (k, 1, sizeof seed, &seed));
      } else {
        CG_CL(clSetKernelArg, (k, 0, sizeof a, &a));
        CG_CL(clSetKernelArg, (k, 1, sizeof b, &b));
      }
      size_t local = 1;
      CG_TRY(local_size(pr, k, &local, err));
      /* PER_ITEM (16) elements per work-item: the buffer, a whole number of MiB, divides */
      const size_t global = bytes / (sizeof(float) * (size_t)widths[w]) / 16;
      CG_CHECK(global <= max_global && global % local == 0, CG_ERROR,
               "%s: %zu work-items in groups of %zu", name, global, local);
      /* warm-up; then as many passes per run as the target time asks (a fast GPU reads the
       * buffer in tens of microseconds, where one launch's cost would weigh) */
      double ms = 0;
      CG_TRY(timed_launches(pr, k, global, local, 1, &ms, err));
      const int passes = (int)fmin(fmax(ceil(pr->target_ms / fmax(ms, 1e-3)), 1), 1000);
      const double moved = (double)bytes * (op == 2 ? 2 : 1) * passes;
      for (int r = 0; r < pr->runs; ++r) {
        CG_TRY(timed_launches(pr, k, global, local, passes, &ms, err));
        pr->samples[r] = moved / ms / 1e6;
      }
      snprintf(label, sizeof label, widths[w] == 1 ? "%s float" : "%s float%d", ops[op],
               widths[w]);
      cg_probe_add(pr->p, "memory", label, "GB/s", widths[w], NAN, pr->samples, pr->runs);
      clReleaseKernel(k);
      k = NULL;
    }
cleanup:
  if (k) clReleaseKernel(k);
  if (a) clReleaseMemObject(a);
  if (b) clReleaseMemObject(b);
  if (sums) clReleaseMemObject(sums);
  return rc;
}

/* ---- host-device transfers ---- */

enum { TRANSFER_KINDS = 5 };
static const char *const transfer_names[TRANSFER_KINDS] = {
    "write pageable", "read pageable", "write pinned", "read pinned", "map/unmap"};

/* One transfer of `bytes` of the given kind, until complete. */
static cg_rc transfer_once(prober *pr, int kind, cl_mem dev, void *pageable, void *pinned,
                           size_t bytes, cg_error *err) {
  cg_rc rc = CG_OK;
  cl_int code = CL_SUCCESS;
  switch (kind) {
  case 0:
    CG_CL(clEnqueueWriteBuffer, (pr->q, dev, CL_TRUE, 0, bytes, pageable, 0, NULL, NULL));
    break;
  case 1:
    CG_CL(clEnqueueReadBuffer, (pr->q, dev, CL_TRUE, 0, bytes, pageable, 0, NULL, NULL));
    break;
  case 2:
    CG_CL(clEnqueueWriteBuffer, (pr->q, dev, CL_TRUE, 0, bytes, pinned, 0, NULL, NULL));
    break;
  case 3:
    CG_CL(clEnqueueReadBuffer, (pr->q, dev, CL_TRUE, 0, bytes, pinned, 0, NULL, NULL));
    break;
  default: {
    void *p = clEnqueueMapBuffer(pr->q, dev, CL_TRUE, CL_MAP_WRITE, 0, bytes, 0, NULL, NULL,
                                 &code);
    CG_CL_CHECK(clEnqueueMapBuffer, code);
    CG_CL(clEnqueueUnmapMemObject, (pr->q, dev, p, 0, NULL, NULL));
    CG_CL(clFinish, (pr->q));
  }
  }
cleanup:
  return rc;
}

static cg_rc probe_transfers(prober *pr, cg_error *err) {
  cg_rc rc = CG_OK;
  cl_int code = CL_SUCCESS;
  cl_mem dev = NULL, staging = NULL;
  void *pinned = NULL;
  /* 4 KiB to 256 MiB (1 MiB quick) in steps of 4, within the largest allocation */
  size_t largest = pr->o->quick ? (size_t)1 << 20 : (size_t)256 << 20;
  while (largest > pr->info->max_alloc || largest > pr->info->global_mem / 4) largest /= 4;
  unsigned char *pageable = malloc(largest);
  CG_CHECK(pageable, CG_ERROR, "out of host memory for a %zu-byte transfer buffer", largest);
  cg_rng rng;
  cg_rng_seed(&rng, pr->seed ^ 0x5bd1e995u);
  for (size_t i = 0; i + 8 <= largest; i += 8) {
    const uint64_t v = cg_rng_next(&rng);
    memcpy(pageable + i, &v, 8);
  }
  dev = clCreateBuffer(pr->ctx, CL_MEM_READ_WRITE, largest, NULL, &code);
  CG_CL_CHECK(clCreateBuffer, code);
  /* pinned host memory: a buffer the driver allocates on the host, mapped once */
  staging = clCreateBuffer(pr->ctx, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, largest, NULL,
                           &code);
  CG_CL_CHECK(clCreateBuffer, code);
  pinned = clEnqueueMapBuffer(pr->q, staging, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, largest, 0,
                              NULL, NULL, &code);
  CG_CL_CHECK(clEnqueueMapBuffer, code);
  memcpy(pinned, pageable, largest);
  for (int kind = 0; kind < TRANSFER_KINDS; ++kind) {
    double spent = 0;
    for (size_t bytes = 4096; bytes <= largest && spent < pr->o->transfer_budget_ms; bytes *= 4) {
      /* small transfers repeated within a run, so that a run is not one clock reading */
      const int reps = bytes >= ((size_t)1 << 20) ? 1 : (int)(((size_t)1 << 20) / bytes / 4) + 1;
      const uint64_t t0 = cg_now_ns();
      CG_TRY(transfer_once(pr, kind, dev, pageable, pinned, bytes, err)); /* warm-up */
      for (int r = 0; r < pr->runs; ++r) {
        const uint64_t r0 = cg_now_ns();
        for (int i = 0; i < reps; ++i)
          CG_TRY(transfer_once(pr, kind, dev, pageable, pinned, bytes, err));
        pr->samples[r] = (double)bytes * reps / since_ms(r0) / 1e6;
      }
      spent += since_ms(t0);
      cg_probe_add(pr->p, "transfer", transfer_names[kind], "GB/s", 0, (double)bytes, pr->samples,
                   pr->runs);
    }
  }
cleanup:
  if (pinned) {
    clEnqueueUnmapMemObject(pr->q, staging, pinned, 0, NULL, NULL);
    clFinish(pr->q);
  }
  if (staging) clReleaseMemObject(staging);
  if (dev) clReleaseMemObject(dev);
  free(pageable);
  return rc;
}

/* ---- launches ---- */

static cg_rc probe_launches(prober *pr, cg_error *err) {
  cg_rc rc = CG_OK;
  cl_int code = CL_SUCCESS;
  cl_mem out = NULL;
  cl_kernel k = clCreateKernel(pr->prog, "empty", &code);
  CG_CL_CHECK(clCreateKernel, code);
  out = clCreateBuffer(pr->ctx, CL_MEM_WRITE_ONLY, sizeof(float), NULL, &code);
  CG_CL_CHECK(clCreateBuffer, code);
  CG_CL(clSetKernelArg, (k, 0, sizeof out, &out));
  const size_t one = 1;
  const int n = pr->o->quick ? 50 : 200;
  double ms = 0;
  CG_TRY(timed_launches(pr, k, one, one, n, &ms, err)); /* warm-up */
  /* enqueue only: the time until the enqueue calls returned, the device left to finish */
  for (int r = 0; r < pr->runs; ++r) {
    const uint64_t t0 = cg_now_ns();
    for (int i = 0; i < n; ++i)
      CG_CL(clEnqueueNDRangeKernel, (pr->q, k, 1, NULL, &one, &one, 0, NULL, NULL));
    pr->samples[r] = since_ms(t0) * 1e3 / n;
    CG_CL(clFinish, (pr->q));
  }
  cg_probe_add(pr->p, "launch", "enqueue", "us", 0, NAN, pr->samples, pr->runs);
  /* each launch waited for: the round trip a synchronous caller pays */
  for (int r = 0; r < pr->runs; ++r) {
    const uint64_t t0 = cg_now_ns();
    for (int i = 0; i < n; ++i) {
      CG_CL(clEnqueueNDRangeKernel, (pr->q, k, 1, NULL, &one, &one, 0, NULL, NULL));
      CG_CL(clFinish, (pr->q));
    }
    pr->samples[r] = since_ms(t0) * 1e3 / n;
  }
  cg_probe_add(pr->p, "launch", "round trip", "us", 0, NAN, pr->samples, pr->runs);
  /* back to back, one wait at the end: what each launch of a stream of small kernels costs */
  for (int r = 0; r < pr->runs; ++r) {
    CG_TRY(timed_launches(pr, k, one, one, n, &ms, err));
    pr->samples[r] = ms * 1e3 / n;
  }
  cg_probe_add(pr->p, "launch", "back-to-back", "us", 0, NAN, pr->samples, pr->runs);
cleanup:
  if (out) clReleaseMemObject(out);
  if (k) clReleaseKernel(k);
  return rc;
}

/* ---- program build and context creation ---- */

/* Build a tiny kernel whose source carries `nonce` in a comment: a nonce no cache has seen
 * makes a cold build, the same nonce again finds the driver's cache where it keeps one. */
static cg_rc build_tiny(prober *pr, uint64_t nonce, double *ms, cg_error *err) {
  cg_rc rc = CG_OK;
  cl_int code = CL_SUCCESS;
  cl_kernel k = NULL;
  char source[256];
  snprintf(source, sizeof source,
           "/* clgauge probe %016llx */\n"
           "__kernel void tiny(__global float *x) { x[get_global_id(0)] *= 2.0f; }\n",
           (unsigned long long)nonce);
  const char *text = source;
  const uint64_t t0 = cg_now_ns();
  cl_program prog = clCreateProgramWithSource(pr->ctx, 1, &text, NULL, &code);
  CG_CL_CHECK(clCreateProgramWithSource, code);
  CG_CL(clBuildProgram, (prog, 1, &pr->info->id, "", NULL, NULL));
  k = clCreateKernel(prog, "tiny", &code);
  CG_CL_CHECK(clCreateKernel, code);
  *ms = since_ms(t0);
cleanup:
  if (k) clReleaseKernel(k);
  if (prog) clReleaseProgram(prog);
  return rc;
}

static cg_rc probe_build(prober *pr, cg_error *err) {
  cg_rc rc = CG_OK;
  cg_rng rng;
  cg_rng_seed(&rng, cg_now_ns() ^ pr->seed);
  double ms = 0;
  const int runs = pr->runs < 3 ? pr->runs : 3; /* a cold build costs up to seconds */
  const uint64_t same = cg_rng_next(&rng);
  CG_TRY(build_tiny(pr, cg_rng_next(&rng), &ms, err)); /* warm-up of the compiler itself */
  for (int r = 0; r < runs; ++r) CG_TRY(build_tiny(pr, cg_rng_next(&rng), &pr->samples[r], err));
  cg_probe_add(pr->p, "build", "cold", "ms", 0, NAN, pr->samples, runs);
  CG_TRY(build_tiny(pr, same, &ms, err)); /* fills the cache */
  for (int r = 0; r < runs; ++r) CG_TRY(build_tiny(pr, same, &pr->samples[r], err));
  cg_probe_add(pr->p, "build", "driver cache", "ms", 0, NAN, pr->samples, runs);
cleanup:
  return rc;
}

static cg_rc context_once(const cg_device_info *info, double *ms, cg_error *err) {
  cg_rc rc = CG_OK;
  cl_int code = CL_SUCCESS;
  cl_command_queue q = NULL;
  cl_context_properties props[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)info->platform_id,
                                   0};
  const uint64_t t0 = cg_now_ns();
  cl_context ctx = clCreateContext(props, 1, &info->id, NULL, NULL, &code);
  CG_CL_CHECK(clCreateContext, code);
  q = clCreateCommandQueue(ctx, info->id, info->profiling ? CL_QUEUE_PROFILING_ENABLE : 0, &code);
  CG_CL_CHECK(clCreateCommandQueue, code);
  *ms = since_ms(t0);
cleanup:
  if (q) clReleaseCommandQueue(q);
  if (ctx) clReleaseContext(ctx);
  return rc;
}

static cg_rc probe_context(prober *pr, cg_error *err) {
  cg_rc rc = CG_OK;
  double ms = 0;
  CG_TRY(context_once(pr->info, &ms, err)); /* warm-up */
  for (int r = 0; r < pr->runs; ++r) CG_TRY(context_once(pr->info, &pr->samples[r], err));
  cg_probe_add(pr->p, "context", "create", "ms", 0, NAN, pr->samples, pr->runs);
cleanup:
  return rc;
}

cg_rc cg_probe_device(const cg_device_info *info, const cg_probe_options *o, cg_probe *out,
                      cg_error *err) {
  cg_rc rc = CG_OK;
  const uint64_t t0 = cg_now_ns();
  prober pr = {.info = info, .o = o, .p = out, .runs = o->runs,
               .target_ms = o->quick ? 2 : 20, .seed = 0x9e3779b97f4a7c15u};
  CG_TRY(cg_probe_options_check(o, err));
  cg_probe_init(out);
  out->quick = o->quick;
  out->runs = pr.runs;
  out->platform_index = info->platform_index;
  out->device_index = info->device_index;
  snprintf(out->device, sizeof out->device, "%s", info->name);
  snprintf(out->vendor, sizeof out->vendor, "%s", info->vendor);
  snprintf(out->platform, sizeof out->platform, "%s", info->platform);
  snprintf(out->driver, sizeof out->driver, "%s", info->driver_version);
  snprintf(out->cl_version, sizeof out->cl_version, "%s", info->version);
  snprintf(out->device_type, sizeof out->device_type, "%s", cg_device_type_name(info->type));
  size_t resolution = 0;
  cl_ulong cache = 0;
  if (clGetDeviceInfo(info->id, CL_DEVICE_PROFILING_TIMER_RESOLUTION, sizeof resolution,
                      &resolution, NULL) == CL_SUCCESS && resolution > 0)
    out->timer_ns = (double)resolution;
  if (clGetDeviceInfo(info->id, CL_DEVICE_GLOBAL_MEM_CACHE_SIZE, sizeof cache, &cache, NULL) ==
          CL_SUCCESS && cache > 0)
    out->cache_bytes = (double)cache;
  CG_TRY(cg_device_open(info, &pr.dev, err));
  pr.ctx = cg_device_context(pr.dev);
  pr.q = cg_device_queue(pr.dev);
  const cg_program_store store = {NULL, NULL};
  CG_TRY(cg_program_build(pr.dev, &store, "probe.cl", "", &pr.prog, NULL, err));
  CG_TRY(probe_compute(&pr, err));
  CG_TRY(probe_memory(&pr, err));
  CG_TRY(probe_transfers(&pr, err));
  CG_TRY(probe_launches(&pr, err));
  CG_TRY(probe_build(&pr, err));
  CG_TRY(probe_context(&pr, err));
  cg_probe_set_ceilings(out);
  out->wall_ms = since_ms(t0);
cleanup:
  if (pr.prog) clReleaseProgram(pr.prog);
  cg_device_close(pr.dev);
  return rc;
}
