/* The loop limit of a driver (see include/clgauge/loop_limit.h). */
#include "clgauge/loop_limit.h"

#include <string.h>

/* The limits measured in this process, per device. */
enum { KNOWN = 16, TRIPS = 1 << 17 };
static struct {
  cl_device_id device;
  uint64_t limit;
} known[KNOWN];
static int nknown;

static cg_rc measure(const cg_device *dev, const cg_program_store *store, uint64_t *limit,
                     cg_error *err) {
  cg_rc rc = CG_OK;
  cl_int code = CL_SUCCESS;
  cl_program program = NULL;
  cl_kernel k = NULL;
  cl_mem ones = NULL, count = NULL;
  const cl_int all[8] = {1, 1, 1, 1, 1, 1, 1, 1};
  cl_int n = TRIPS, got = 0;
  cl_context ctx = cg_device_context(dev);
  cl_command_queue q = cg_device_queue(dev);
  CG_TRY(cg_program_build(dev, store, "loop_limit.cl", NULL, &program, NULL, err));
  k = clCreateKernel(program, "loop_limit", &code);
  CG_CL_CHECK(clCreateKernel, code);
  ones = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof all, (void *)all,
                        &code);
  CG_CL_CHECK(clCreateBuffer, code);
  count = clCreateBuffer(ctx, CL_MEM_WRITE_ONLY, sizeof got, NULL, &code);
  CG_CL_CHECK(clCreateBuffer, code);
  CG_CL(clSetKernelArg, (k, 0, sizeof ones, &ones));
  CG_CL(clSetKernelArg, (k, 1, sizeof n, &n));
  CG_CL(clSetKernelArg, (k, 2, sizeof count, &count));
  const size_t one = 1;
  CG_CL(clEnqueueNDRangeKernel, (q, k, 1, NULL, &one, &one, 0, NULL, NULL));
  CG_CL(clEnqueueReadBuffer, (q, count, CL_TRUE, 0, sizeof got, &got, 0, NULL, NULL));
  CG_CHECK(got >= 1 && got <= n, CG_ERROR,
           "the loop-limit kernel counted %d iterations of %d: the device returned nonsense", got,
           n);
  *limit = got < n ? (uint64_t)got : 0;
cleanup:
  if (count) clReleaseMemObject(count);
  if (ones) clReleaseMemObject(ones);
  if (k) clReleaseKernel(k);
  if (program) clReleaseProgram(program);
  return rc;
}

cg_rc cg_loop_limit(const cg_device *dev, const cg_program_store *store, uint64_t *limit,
                    cg_error *err) {
  cg_rc rc = CG_OK;
  const cg_device_info *info = cg_device_get_info(dev);
  *limit = 0;
  if (!strstr(info->name, "llvmpipe")) return CG_OK;
  for (int i = 0; i < nknown; ++i)
    if (known[i].device == info->id) {
      *limit = known[i].limit;
      return CG_OK;
    }
  CG_TRY(measure(dev, store, limit, err));
  if (nknown == KNOWN) nknown = 0; /* a full table starts over: only a cache */
  known[nknown].device = info->id;
  known[nknown].limit = *limit;
  ++nknown;
cleanup:
  return rc;
}
