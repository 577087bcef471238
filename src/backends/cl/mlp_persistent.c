/* The fused mlp variant's persistent path (see mlp_persistent.h and cl/mlp_persistent.cl). */
#include "backends/cl/mlp_persistent.h"

#include <stdio.h>
#include <stdlib.h>

#include "backends/cl/persistent.h"
#include "clgauge/clock.h"
#include "clgauge/grid.h"

enum { G2MAX = 8 }; /* as in cl/mlp_persistent.cl */

struct cg_cl_mlp_persistent {
  cl_program program;
  cl_kernel kernel;
  cl_mem part, h1g, w1_saved, small_saved;
  cg_grid grid;
  size_t groups, local, slice;
  cl_int spin;      /* the barrier's polls before it gives up */
  int iters;        /* of the run enqueued last */
  bool on, failed;  /* failed: a launch did, the path is launches from then on */
};

void cg_cl_mlp_persistent_release(cg_cl_mlp_persistent *p) {
  if (!p) return;
  cl_mem *bufs[] = {&p->part, &p->h1g, &p->w1_saved, &p->small_saved};
  for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; ++i) cg_cl_release_mem(bufs[i]);
  cg_grid_release(&p->grid);
  if (p->kernel) clReleaseKernel(p->kernel);
  if (p->program) clReleaseProgram(p->program);
  free(p);
}

bool cg_cl_mlp_persistent_on(const cg_cl_mlp_persistent *p) { return p && p->on; }

const char *cg_cl_mlp_persistent_path(const cg_cl_mlp_persistent *p) {
  return p && p->failed ? cg_cl_persist_failed_path : NULL;
}

/* Local floats of a group holding `slice` rows of w1 (the kernel's arrays, in its order). */
static size_t local_floats(cg_mlp_shape s, size_t slice) {
  const size_t N = (size_t)s.batch, H = (size_t)s.hidden, O = (size_t)s.dout;
  return N * slice + slice * H + N * H + H * O + 2 * O * O + 2 * N * O;
}

cg_rc cg_cl_mlp_persistent_setup(const cg_backend_env *env, const cg_mlp_device *md,
                                 cg_kernel_config *config, double *compile_ms,
                                 cg_cl_mlp_persistent **out, cg_error *err) {
  cg_rc rc = CG_OK;
  cl_int code = CL_SUCCESS;
  cg_cl_mlp_persistent *p = NULL;
  *out = NULL;
  const cg_device *dev = cg_cl_env_device(env);
  const cg_device_info *info = cg_device_get_info(dev);
  const cg_mlp_shape s = md->setup.shape;
  const size_t N = (size_t)s.batch, D = (size_t)s.din, H = (size_t)s.hidden, O = (size_t)s.dout;
  /* As few groups as the local memory allows (each sums every group's partials): the most rows
   * of w1 a group can hold beside the arrays every group keeps whole. */
  const size_t room = info->local_mem / sizeof(float), whole = local_floats(s, 0) + 16;
  const size_t most = room > whole ? (room - whole) / (N + H) : 0;
  const size_t cu = info->compute_units ? info->compute_units : 1;
  size_t groups = most ? (D + most - 1) / most : cu + 1;
  cg_cl_persist_plan plan;
  bool want = false;
  CG_TRY(cg_cl_persist_want(env, (int)(groups <= cu ? groups : cu), false, config, &plan,
                           &want, err));
  if (!want) goto cleanup;
  p = calloc(1, sizeof *p);
  CG_CHECK(p, CG_ERROR, "out of memory");
  const uint64_t t0 = cg_now_ns();
  cg_build_tally tally = {0};
  CG_TRY(cg_backend_build(env, "mlp_persistent.cl", NULL, &p->program, &tally, err));
  p->kernel = clCreateKernel(p->program, "mlp_persistent", &code);
  CG_CL_CHECK(clCreateKernel, code);
  *compile_ms += cg_ns_to_ms(cg_now_ns() - t0);
  /* 256 work-items (eight warps for the small part every group repeats), within the kernel's
   * limit */
  size_t items = 0;
  CG_TRY(cg_cl_persist_most_items(info, p->kernel, &items, err));
  p->local = items < 256 ? items : 256;
  p->groups = (size_t)plan.groups;
  p->spin = plan.spin;
  p->slice = (D + p->groups - 1) / p->groups;
  const size_t bytes = (local_floats(s, p->slice) + 1) * sizeof(float);
  char why[200];
  bool fits = bytes <= info->local_mem && H * O <= G2MAX * p->local;
  snprintf(why, sizeof why,
           "the persistent kernel needs %zu bytes of local memory per group at %zu groups (the "
           "device has %llu) and h x dout <= %d x %zu",
           bytes, p->groups, (unsigned long long)info->local_mem, (int)G2MAX, p->local);
  CG_TRY(cg_cl_persist_check(env, "persistent, one launch per run", p->local, bytes, fits, why,
                             config, &plan, err));
  if (!plan.on) goto cleanup;
  CG_TRY(cg_cl_buffer(dev, "the partial products (2 x groups x batch x hidden)",
                      2 * p->groups * N * H * sizeof(float), CL_MEM_READ_WRITE, &p->part, err));
  CG_TRY(cg_cl_buffer(dev, "h1 (2 x batch x hidden)", 2 * N * H * sizeof(float),
                      CL_MEM_READ_WRITE, &p->h1g, err));
  CG_TRY(cg_cl_buffer(dev, "the copy of w1", D * H * sizeof(float), CL_MEM_READ_WRITE,
                      &p->w1_saved, err));
  CG_TRY(cg_cl_buffer(dev, "the copies of w2, w3 and g3", (H * O + 2 * O * O) * sizeof(float),
                      CL_MEM_READ_WRITE, &p->small_saved, err));
  CG_TRY(cg_cl_persist_zero(md->queue, p->part, 2 * p->groups * N * H * sizeof(float), err));
  CG_TRY(cg_cl_persist_zero(md->queue, p->h1g, 2 * N * H * sizeof(float), err));
  CG_TRY(cg_grid_create(dev, &p->grid, err));
  p->on = true;
  *out = p;
  p = NULL;
cleanup:
  cg_cl_mlp_persistent_release(p);
  return rc;
}

cg_rc cg_cl_mlp_persistent_enqueue(cg_cl_mlp_persistent *p, cg_mlp_device *md, int iters,
                                   cg_error *err) {
  cg_rc rc = CG_OK;
  const cg_mlp_shape s = md->setup.shape;
  const size_t N = (size_t)s.batch, H = (size_t)s.hidden, O = (size_t)s.dout;
  CG_CHECK(iters >= 1, CG_BAD_INPUT, "mlp enqueue of %d iterations", iters);
  cg_mlp_device_run_begin(md);
  p->iters = iters;
  cl_kernel k = p->kernel;
  const cl_int ints[] = {s.batch, s.din, s.hidden, s.dout, iters, md->setup.update_w3 ? 1 : 0};
  for (cl_uint i = 0; i < 6; ++i) CG_CL(clSetKernelArg, (k, i, sizeof(cl_int), &ints[i]));
  const cl_float lr = md->setup.lr;
  CG_CL(clSetKernelArg, (k, 6, sizeof lr, &lr));
  const cl_mem bufs[] = {md->x,       md->t,          md->w1,  md->w2,  md->w3,
                         md->g3,      md->loss,       p->w1_saved, p->small_saved,
                         p->part,     p->h1g,         p->grid.state};
  for (cl_uint i = 0; i < 12; ++i) CG_CL(clSetKernelArg, (k, 7 + i, sizeof(cl_mem), &bufs[i]));
  CG_CL(clSetKernelArg, (k, 19, sizeof p->spin, &p->spin));
  const size_t locals[] = {N * p->slice, p->slice * H, N * H, H * O, O * O, O * O, N * O, N * O};
  for (cl_uint i = 0; i < 8; ++i)
    CG_CL(clSetKernelArg, (k, 20 + i, locals[i] * sizeof(float), NULL));
  const size_t global = p->groups * p->local;
  CG_CL(clEnqueueNDRangeKernel,
        (md->queue, k, 1, NULL, &global, &p->local, 0, NULL, &md->span.begin));
  md->span.end = md->span.begin;
  clRetainEvent(md->span.end);
  CG_TRY(cg_grid_read_failure(md->queue, &p->grid, err));
cleanup:
  return rc;
}

cg_rc cg_cl_mlp_persistent_check(cg_cl_mlp_persistent *p, cg_mlp_device *md, bool *redo,
                                 int *iters, cg_error *err) {
  cg_rc rc = CG_OK;
  CG_CL(clFinish, (md->queue));
  *redo = cg_grid_failed(&p->grid);
  *iters = p->iters;
  if (!*redo) goto cleanup;
  const cg_mlp_shape s = md->setup.shape;
  const size_t D = (size_t)s.din, H = (size_t)s.hidden, O = (size_t)s.dout;
  CG_CL(clEnqueueCopyBuffer, (md->queue, p->w1_saved, md->w1, 0, 0, D * H * 4, 0, NULL, NULL));
  CG_CL(clEnqueueCopyBuffer, (md->queue, p->small_saved, md->w2, 0, 0, H * O * 4, 0, NULL, NULL));
  CG_CL(clEnqueueCopyBuffer,
        (md->queue, p->small_saved, md->w3, H * O * 4, 0, O * O * 4, 0, NULL, NULL));
  CG_CL(clEnqueueCopyBuffer,
        (md->queue, p->small_saved, md->g3, (H * O + O * O) * 4, 0, O * O * 4, 0, NULL, NULL));
  CG_TRY(cg_grid_reset(md->queue, &p->grid, err));
  p->on = false;
  p->failed = true;
cleanup:
  return rc;
}
