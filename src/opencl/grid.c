/* Device-wide barriers of persistent kernels, host side: the state buffer, the failure flag and
 * the residency check by a discovery launch (see include/clgauge/grid.h). */
#include "clgauge/grid.h"

#include <stdio.h>
#include <string.h>

#include "clgauge/clock.h"

/* The verdicts of this process, per device and shape: a discovery launch costs a build and a
 * launch, and a record may ask for each of its runs. */
enum { VERDICTS = 64 };
static struct {
  cl_device_id device;
  cg_grid_shape shape;
  cg_grid_verdict verdict;
} verdicts[VERDICTS];
static int nverdicts;

static const cg_grid_verdict *remembered(cl_device_id id, cg_grid_shape s) {
  for (int i = 0; i < nverdicts; ++i)
    if (verdicts[i].device == id && verdicts[i].shape.groups == s.groups &&
        verdicts[i].shape.local == s.local && verdicts[i].shape.local_bytes == s.local_bytes)
      return &verdicts[i].verdict;
  return NULL;
}

static void remember(cl_device_id id, cg_grid_shape s, const cg_grid_verdict *v) {
  if (nverdicts == VERDICTS) nverdicts = 0; /* a full table starts over: only a cache */
  verdicts[nverdicts].device = id;
  verdicts[nverdicts].shape = s;
  verdicts[nverdicts].verdict = *v;
  ++nverdicts;
}

/* The discovery launch of the shape; out->resident when no group timed out. */
static cg_rc discover(const cg_device *dev, const cg_program_store *store, cg_grid_shape s,
                      cg_grid_verdict *out, cg_error *err) {
  cg_rc rc = CG_OK;
  cl_int code = CL_SUCCESS;
  const cg_device_info *info = cg_device_get_info(dev);
  cl_command_queue q = cg_device_queue(dev);
  cl_program program = NULL;
  cl_kernel k = NULL;
  cl_mem sink = NULL;
  cg_grid g = {0};
  CG_TRY(cg_program_build(dev, store, "grid_discover.cl", NULL, &program, NULL, err));
  k = clCreateKernel(program, "grid_discover", &code);
  CG_CL_CHECK(clCreateKernel, code);
  size_t allowed = 0;
  cl_ulong own = 0;
  CG_CL(clGetKernelWorkGroupInfo,
        (k, info->id, CL_KERNEL_WORK_GROUP_SIZE, sizeof allowed, &allowed, NULL));
  CG_CL(clGetKernelWorkGroupInfo,
        (k, info->id, CL_KERNEL_LOCAL_MEM_SIZE, sizeof own, &own, NULL));
  /* the scratch holds a float per work-item at least */
  const size_t bytes = s.local_bytes > s.local * sizeof(float) ? s.local_bytes
                                                                : s.local * sizeof(float);
  if (s.local > allowed || own + bytes > info->local_mem) {
    snprintf(out->why, sizeof out->why,
             "not established: the discovery kernel allows %zu work-items and %llu bytes of "
             "local memory per group here, the launch has %zu and %zu",
             allowed, (unsigned long long)(info->local_mem - own), s.local, s.local_bytes);
    goto cleanup;
  }
  CG_TRY(cg_grid_create(dev, &g, err));
  sink = clCreateBuffer(cg_device_context(dev), CL_MEM_WRITE_ONLY, sizeof(float), NULL, &code);
  CG_CL_CHECK(clCreateBuffer, code);
  const cl_int spin = CG_GRID_SPIN_DISCOVER;
  CG_CL(clSetKernelArg, (k, 0, sizeof(cl_mem), &g.state));
  CG_CL(clSetKernelArg, (k, 1, sizeof spin, &spin));
  CG_CL(clSetKernelArg, (k, 2, bytes, NULL));
  CG_CL(clSetKernelArg, (k, 3, sizeof(cl_mem), &sink));
  const size_t global = s.groups * s.local;
  const uint64_t t0 = cg_now_ns();
  CG_CL(clEnqueueNDRangeKernel, (q, k, 1, NULL, &global, &s.local, 0, NULL, NULL));
  CG_TRY(cg_grid_read_failure(q, &g, err));
  CG_CL(clFinish, (q));
  const double ms = cg_ns_to_ms(cg_now_ns() - t0);
  out->resident = !cg_grid_failed(&g);
  snprintf(out->why, sizeof out->why,
           out->resident ? "%zu work-groups of %zu with %zu bytes of local memory passed a "
                           "device-wide barrier together (discovery launch, %.3g ms)"
                         : "%zu work-groups of %zu with %zu bytes of local memory are not all "
                           "resident at once (discovery launch timed out, %.3g ms)",
           s.groups, s.local, s.local_bytes, ms);
cleanup:
  cg_grid_release(&g);
  if (sink) clReleaseMemObject(sink);
  if (k) clReleaseKernel(k);
  if (program) clReleaseProgram(program);
  return rc;
}

cg_rc cg_grid_residency(const cg_device *dev, const cg_program_store *store, cg_grid_shape shape,
                        cg_grid_verdict *out, cg_error *err) {
  cg_rc rc = CG_OK;
  const cg_device_info *info = cg_device_get_info(dev);
  memset(out, 0, sizeof *out);
  CG_CHECK(shape.groups >= 1 && shape.local >= 1, CG_BAD_INPUT,
           "a persistent launch of %zu work-groups of %zu work-items", shape.groups, shape.local);
  const cg_grid_verdict *known = remembered(info->id, shape);
  if (known) {
    *out = *known;
    return CG_OK;
  }
  CG_TRY(discover(dev, store, shape, out, err));
  remember(info->id, shape, out);
cleanup:
  return rc;
}

/* The barriers' state as a launch first finds it (cl/grid_sync.cl): arrivals, generation,
 * failure flag. */
static const cl_int state_zeros[3] = {0, 0, 0};

cg_rc cg_grid_create(const cg_device *dev, cg_grid *g, cg_error *err) {
  cg_rc rc = CG_OK;
  cl_int code = CL_SUCCESS;
  memset(g, 0, sizeof *g);
  g->state = clCreateBuffer(cg_device_context(dev), CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                            sizeof state_zeros, (void *)state_zeros, &code);
  CG_CL_CHECK(clCreateBuffer, code);
cleanup:
  return rc;
}

cg_rc cg_grid_read_failure(cl_command_queue q, cg_grid *g, cg_error *err) {
  cg_rc rc = CG_OK;
  g->failed = 0;
  CG_CL(clEnqueueReadBuffer,
        (q, g->state, CL_FALSE, 2 * sizeof(cl_int), sizeof(cl_int), &g->failed, 0, NULL, NULL));
cleanup:
  return rc;
}

bool cg_grid_failed(const cg_grid *g) { return g->failed != 0; }

/* The state zeroed on q. */
static cg_rc write_zeros(cl_command_queue q, cg_grid *g, cl_bool blocking, cg_error *err) {
  cg_rc rc = CG_OK;
  CG_CL(clEnqueueWriteBuffer,
        (q, g->state, blocking, 0, sizeof state_zeros, state_zeros, 0, NULL, NULL));
cleanup:
  return rc;
}

cg_rc cg_grid_reset(cl_command_queue q, cg_grid *g, cg_error *err) {
  g->failed = 0;
  return write_zeros(q, g, CL_TRUE, err);
}

/* The whole state, though the counting barriers need only the arrivals zeroed (the failure flag
 * is zero unless the previous launch failed, and the host reset it then): Oclgrind takes the
 * flag that one group sets and another reads in the same launch for uninitialised unless the
 * host wrote it last. */
cg_rc cg_grid_rearm(cl_command_queue q, cg_grid *g, cg_error *err) {
  return write_zeros(q, g, CL_FALSE, err);
}

void cg_grid_release(cg_grid *g) {
  if (g->state) clReleaseMemObject(g->state);
  g->state = NULL;
}
