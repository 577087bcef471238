/* The cl backend: hand-written kernels from cl/, in variants (naive, tiled, register-blocked). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/backends.h"
#include "backends/opencl/cl_matrices.h"
#include "clgauge/program.h"
#include "clgauge/clock.h"
#include "clgauge/events.h"
#include "clgauge/stats.h"

typedef struct cl_matmul_variant {
  const char *name;
  const char *kernel;
  int outputs_per_item; /* per dimension: the work-group covers ts*outputs_per_item of C */
} cl_matmul_variant;

static const cl_matmul_variant matmul_variants[] = {
    {"naive", "matmul_naive", 1},
    {"tiled", "matmul_tiled", 1},
    {"regblock", "matmul_regblock", 4},
};
enum { REGBLOCK_BK = 16 };

typedef struct cl_matmul {
  cg_cl_matrices mx;
  cl_program program;
  cl_kernel kernel;
  size_t global[2], local[2];
} cl_matmul;

static void cl_matmul_release(void *state) {
  cl_matmul *mm = state;
  if (!mm) return;
  cg_cl_matrices_release(&mm->mx);
  if (mm->kernel) clReleaseKernel(mm->kernel);
  if (mm->program) clReleaseProgram(mm->program);
  free(mm);
}

static size_t round_up(size_t x, size_t to) { return (x + to - 1) / to * to; }

/* The largest power-of-two edge whose square fits in `items` work-items, at most 16. */
static int edge_for(size_t items) {
  int ts = 16;
  while (ts > 1 && (size_t)(ts * ts) > items) ts /= 2;
  return ts;
}

static size_t local_bytes(const cl_matmul_variant *var, int ts) {
  if (strcmp(var->name, "naive") == 0) return 0;
  const size_t rows = var->outputs_per_item == 1 ? (size_t)ts : REGBLOCK_BK;
  return 2 * rows * (size_t)ts * (size_t)var->outputs_per_item * sizeof(float);
}

/* Build the variant's kernel with work-groups of ts x ts. The device's maximum work-group size is
 * only an upper bound: a driver may allow fewer work-items for a given kernel (rusticl on
 * llvmpipe allows 32), so when the built kernel allows fewer than ts*ts the build is redone with
 * the largest edge that fits, and the time of both builds counts as compile time. */
static cg_rc build_kernel(const cg_backend_env *env, const cl_matmul_variant *var, cl_matmul *mm,
                          int *ts_out, cg_build_tally *tally, cg_error *err) {
  cg_rc rc = CG_OK;
  cl_int code = CL_SUCCESS;
  const cg_device_info *info = cg_device_get_info(env->device);
  int ts = edge_for(info->max_work_group);
  for (;;) {
    CG_CHECK(local_bytes(var, ts) <= info->local_mem, CG_UNSUPPORTED,
             "variant %s needs %zu bytes of local memory, the device has %llu", var->name,
             local_bytes(var, ts), (unsigned long long)info->local_mem);
    char options[128];
    snprintf(options, sizeof options, "-DTS=%d -DWPT=%d -DBK=%d", ts, var->outputs_per_item,
             (int)REGBLOCK_BK);
    CG_TRY(cg_backend_build(env, "matmul.cl", options, &mm->program, tally, err));
    mm->kernel = clCreateKernel(mm->program, var->kernel, &code);
    CG_CL_CHECK(clCreateKernel, code);
    size_t kernel_wg = 0;
    CG_CL(clGetKernelWorkGroupInfo, (mm->kernel, info->id, CL_KERNEL_WORK_GROUP_SIZE,
                                     sizeof kernel_wg, &kernel_wg, NULL));
    if (kernel_wg >= (size_t)(ts * ts)) break;
    CG_CHECK(edge_for(kernel_wg) < ts, CG_UNSUPPORTED,
             "kernel %s allows %zu work-items per group on this device", var->kernel, kernel_wg);
    ts = edge_for(kernel_wg);
    clReleaseKernel(mm->kernel);
    clReleaseProgram(mm->program);
    mm->kernel = NULL;
    mm->program = NULL;
  }
  *ts_out = ts;
cleanup:
  return rc;
}

static cg_rc cl_matmul_prepare(const cg_backend_env *env, const char *variant,
                               cg_matmul_shape shape, void **state, cg_compile_info *compile,
                               cg_error *err) {
  cg_rc rc = CG_OK;
  const int v = cg_variant_index(cg_backend_cl.matmul->variants, variant);
  cl_matmul *mm = calloc(1, sizeof *mm);
  CG_CHECK(mm, CG_ERROR, "out of memory");
  CG_CHECK(v >= 0, CG_BAD_INPUT, "unknown cl variant '%s'", variant);
  const cl_matmul_variant *var = &matmul_variants[v];

  CG_TRY(cg_cl_matrices_create(env->device, shape, &mm->mx, err));
  int ts = 0;
  uint64_t t0 = cg_now_ns();
  cg_build_tally tally = {0};
  CG_TRY(build_kernel(env, var, mm, &ts, &tally, err));
  compile->ms = cg_ns_to_ms(cg_now_ns() - t0);
  compile->kind = cg_build_tally_kind(&tally);

  const cl_int M = shape.m, N = shape.n, K = shape.k;
  CG_CL(clSetKernelArg, (mm->kernel, 0, sizeof M, &M));
  CG_CL(clSetKernelArg, (mm->kernel, 1, sizeof N, &N));
  CG_CL(clSetKernelArg, (mm->kernel, 2, sizeof K, &K));
  CG_CL(clSetKernelArg, (mm->kernel, 3, sizeof(cl_mem), &mm->mx.a));
  CG_CL(clSetKernelArg, (mm->kernel, 4, sizeof(cl_mem), &mm->mx.b));
  CG_CL(clSetKernelArg, (mm->kernel, 5, sizeof(cl_mem), &mm->mx.c));
  /* OpenCL 1.x needs the global size to be a multiple of the work-group size: round up, and the
   * kernels leave the extra work-items idle. */
  const size_t wpt = (size_t)var->outputs_per_item, block = (size_t)ts * wpt;
  mm->local[0] = mm->local[1] = (size_t)ts;
  mm->global[0] = round_up((size_t)shape.n, block) / wpt;
  mm->global[1] = round_up((size_t)shape.m, block) / wpt;
  *state = mm;
  mm = NULL;
cleanup:
  cl_matmul_release(mm);
  return rc;
}

static cg_rc cl_matmul_upload(void *state, const float *A, const float *B, cg_error *err) {
  cl_matmul *mm = state;
  return cg_cl_matrices_upload(&mm->mx, A, B, err);
}

static cg_rc cl_matmul_enqueue(void *state, int products, cg_device_span *span, int *launches,
                               cg_error *err) {
  cg_rc rc = CG_OK;
  cl_matmul *mm = state;
  for (int i = 0; i < products; ++i) {
    cl_event *ev = i == 0 ? &span->begin : i == products - 1 ? &span->end : NULL;
    CG_CL(clEnqueueNDRangeKernel,
          (mm->mx.queue, mm->kernel, 2, NULL, mm->global, mm->local, 0, NULL, ev));
  }
  if (products == 1 && span->begin) {
    span->end = span->begin;
    clRetainEvent(span->end);
  }
  span->begin_at_end = false;
  *launches = 1;
cleanup:
  return rc;
}

static cg_rc cl_matmul_finish(void *state, cg_error *err) {
  cg_rc rc = CG_OK;
  cl_matmul *mm = state;
  CG_CL(clFinish, (mm->mx.queue));
cleanup:
  return rc;
}

static cg_rc cl_matmul_download(void *state, float *C, cg_error *err) {
  cl_matmul *mm = state;
  return cg_cl_matrices_download(&mm->mx, C, err);
}

static const char *const cl_variants[] = {"naive", "tiled", "regblock", NULL};
static const cg_matmul_ops cl_matmul_ops = {
    cl_variants,       cl_matmul_prepare,  cl_matmul_upload,  cl_matmul_enqueue,
    cl_matmul_finish,  cl_matmul_download, cl_matmul_release,
};

const cg_backend cg_backend_cl = {"cl", "hand-written OpenCL kernels from cl/", true,
                                  &cl_matmul_ops, &cg_cl_mlp_ops, &cg_cl_linear_ops};
