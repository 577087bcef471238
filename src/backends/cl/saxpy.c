/* The cl backend's saxpy: the hand-written kernel of cl/saxpy.cl (one float4 per work-item) as
 * the update of the shared OpenCL saxpy. */
#include <stdio.h>

#include "backends/backends.h"
#include "backends/opencl/cl_saxpy_common.h"
#include "clgauge/clock.h"

enum { DEFAULT_WG = 256 };

/* Build the kernel with work-groups of wg items: by default the largest power of two up to 256
 * that the device allows, in all and in the first dimension. The device's limits are only upper
 * bounds: a driver may allow fewer work-items for a given kernel, so when the built kernel allows
 * fewer than wg the build is redone with the largest power of two that fits (a fallback), and the
 * time of both builds counts as compile time. A size set through --kernel-param WG is built as
 * given, or refused when it does not fit. */
static cg_rc build_kernel(const cg_backend_env *env, cg_device_saxpy *sx, cg_kernel_config *config,
                          cg_build_tally *tally, cg_error *err) {
  cg_rc rc = CG_OK;
  cl_int code = CL_SUCCESS;
  const cg_device_info *info = cg_device_get_info(sx->dev);
  cg_cl_group_limits dev;
  CG_TRY(cg_cl_device_limits(info, &dev, err));
  const size_t most = dev.items < dev.dim[0] ? dev.items : dev.dim[0];
  cg_origin origin = CG_ORIGIN_DEFAULT;
  int wg = cg_kernel_override(env->overrides, "WG", (int)cg_cl_row_width(&dev, DEFAULT_WG),
                              &origin);
  CG_CHECK(wg >= 1 && (size_t)wg <= most, CG_BAD_INPUT,
           "--kernel-param WG=%d: the work-group size must be 1..%zu here", wg, most);
  for (;;) {
    snprintf(config->build_options, sizeof config->build_options, "-DWG=%d", wg);
    CG_TRY(cg_backend_build(env, "saxpy.cl", config->build_options, &sx->program, tally, err));
    sx->kernel = clCreateKernel(sx->program, "saxpy", &code);
    CG_CL_CHECK(clCreateKernel, code);
    cg_cl_group_limits lim = dev;
    CG_TRY(cg_cl_kernel_limits(info, sx->kernel, &lim, NULL, err));
    if (lim.items >= (size_t)wg) break;
    CG_CHECK(origin != CG_ORIGIN_OVERRIDE, CG_BAD_INPUT,
             "--kernel-param WG=%d: kernel saxpy allows %zu work-items per group on this device",
             wg, lim.items);
    CG_CHECK(lim.items >= 1, CG_UNSUPPORTED,
             "kernel saxpy allows no work-items per group on this device");
    wg = (int)cg_cl_row_width(&lim, (size_t)wg);
    origin = CG_ORIGIN_FALLBACK;
    clReleaseKernel(sx->kernel);
    clReleaseProgram(sx->program);
    sx->kernel = NULL;
    sx->program = NULL;
  }
  sx->local = (size_t)wg;
  cg_kernel_config_set(config, "WG", wg, origin);
cleanup:
  return rc;
}

static cg_rc kernel_update(cg_device_saxpy *sx, cl_event *ev, cg_error *err) {
  cg_rc rc = CG_OK;
  CG_CL(clEnqueueNDRangeKernel,
        (sx->queue, sx->kernel, 1, NULL, &sx->global, &sx->local, 0, NULL, ev));
cleanup:
  return rc;
}

static cg_rc cl_saxpy_prepare(const cg_backend_env *env, const char *variant, const char *mode,
                              const void *problem, void **state, cg_prepared *out,
                              cg_error *err) {
  cg_rc rc = CG_OK;
  const cg_saxpy_problem p = *(const cg_saxpy_problem *)problem;
  cg_device_saxpy *sx = NULL;
  CG_TRY(cg_cl_saxpy_create(env, &p, kernel_update, 1, &sx, err));
  const uint64_t t0 = cg_now_ns();
  cg_build_tally tally = {0};
  CG_TRY(build_kernel(env, sx, &out->config, &tally, err));
  out->compile_ms = cg_ns_to_ms(cg_now_ns() - t0);
  out->compile_kind = cg_build_tally_kind(&tally);

  const cl_uint n = (cl_uint)p.n;
  const cl_float a = p.a;
  CG_CL(clSetKernelArg, (sx->kernel, 0, sizeof n, &n));
  CG_CL(clSetKernelArg, (sx->kernel, 1, sizeof a, &a));
  CG_CL(clSetKernelArg, (sx->kernel, 2, sizeof(cl_mem), &sx->x));
  CG_CL(clSetKernelArg, (sx->kernel, 3, sizeof(cl_mem), &sx->y));
  /* One work-item per float4 and one for the 0..3 elements after the last, rounded up to whole
   * work-groups (OpenCL 1.x needs the global size to be a multiple of the work-group size). */
  const size_t items = (size_t)p.n / 4 + 1;
  sx->global = (items + sx->local - 1) / sx->local * sx->local;
  *state = sx;
  sx = NULL;
cleanup:
  cg_cl_saxpy_release(sx);
  return rc;
}

static const char *const cl_variants[] = {"float4", NULL};
static const char *const cl_saxpy_params[] = {"WG", NULL};
static const cg_tune_space cl_saxpy_tune[] = {
    {"float4", NULL, 1, {{"WG", 6, {32, 64, 128, 256, 512, 1024}}}},
    {NULL, NULL, 0, {{NULL, 0, {0}}}},
};

const cg_impl cg_cl_saxpy = {
    .workload = "saxpy",
    .backend = &cg_backend_cl,
    .variants = cl_variants,
    .kernel_params = cl_saxpy_params,
    .tune_spaces = cl_saxpy_tune,
    .prepare = cl_saxpy_prepare,
    .upload = cg_cl_saxpy_upload,
    .enqueue = cg_cl_saxpy_enqueue,
    .finish = cg_cl_saxpy_finish,
    .download = cg_cl_saxpy_download,
    .release = cg_cl_saxpy_release,
};
