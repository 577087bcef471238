/* The cl backend's choice of a persistent path (see persistent.h). */
#include "backends/cl/persistent.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char cg_cl_persist_failed_path[] =
    "launches: a persistent launch found a work-group not resident (its device-wide barrier "
    "timed out) and was redone with launches, as are the runs after it";

cg_rc cg_cl_persist_want(const cg_backend_env *env, int groups, bool gpu_default,
                         cg_kernel_config *config, cg_cl_persist_plan *plan, bool *want,
                         cg_error *err) {
  cg_rc rc = CG_OK;
  const cg_device_info *info = cg_device_get_info(cg_cl_env_device(env));
  const bool gpu = (info->type & CL_DEVICE_TYPE_GPU) != 0;
  memset(plan, 0, sizeof *plan);
  plan->origin = CG_ORIGIN_DEFAULT;
  plan->groups_origin = CG_ORIGIN_DEFAULT;
  /* On a GPU, on by default where the caller measured its persistent path faster (the residency
   * check and the barrier's failure flag still guard it); never by default on a CPU. */
  const int v = cg_kernel_override(env->overrides, "PERSIST", gpu && gpu_default ? 1 : 0,
                                   &plan->origin);
  CG_CHECK(v >= 0 && v <= 2, CG_BAD_INPUT,
           "--kernel-param PERSIST=%d: 0 (launches), 1 (persistent where resident) or 2 "
           "(persistent without the residency check)",
           v);
  plan->unchecked = v == 2;
  plan->groups = cg_kernel_override(env->overrides, "PGROUPS", groups, &plan->groups_origin);
  CG_CHECK(plan->groups >= 1, CG_BAD_INPUT,
           "--kernel-param PGROUPS=%d: a persistent launch has at least one work-group",
           plan->groups);
  plan->spin_origin = CG_ORIGIN_DEFAULT;
  plan->spin = cg_kernel_override(env->overrides, "SPIN", CG_GRID_SPIN, &plan->spin_origin);
  CG_CHECK(plan->spin >= 1, CG_BAD_INPUT,
           "--kernel-param SPIN=%d: a waiting work-group polls the barrier at least once",
           plan->spin);
  *want = v >= 1;
  if (!*want) {
    snprintf(config->path, sizeof config->path, "launches: %s",
             plan->origin != CG_ORIGIN_DEFAULT ? "PERSIST=0"
             : gpu ? "the persistent path is off by default here, slower than the launches "
                     "where measured (PERSIST=1 runs it where its work-groups are resident)"
                   : "not a GPU (a work-group spinning at a device-wide barrier holds a CPU thread "
                     "that the others may need)");
    cg_kernel_config_set(config, "PERSIST", 0, plan->origin);
  }
cleanup:
  return rc;
}

cg_rc cg_cl_persist_check(const cg_backend_env *env, const char *what, size_t local,
                          size_t local_bytes, bool fits, const char *why,
                          cg_kernel_config *config, cg_cl_persist_plan *plan, cg_error *err) {
  cg_rc rc = CG_OK;
  const cg_device *dev = cg_cl_env_device(env);
  char *path = config->path;
  const size_t cap = sizeof config->path;
  if (!fits) {
    snprintf(path, cap, "launches: %s", why);
  } else if (plan->unchecked) {
    plan->on = true;
    snprintf(path, cap, "%s: PERSIST=2, residency not checked (a failed barrier still redoes "
             "the work with launches)", what);
  } else {
    cg_grid_verdict v;
    const cg_program_store store = {env->kernel_dir, env->binary_cache};
    const cg_grid_shape shape = {(size_t)plan->groups, local, local_bytes};
    CG_TRY(cg_grid_residency(dev, &store, shape, &v, err));
    plan->on = v.resident;
    snprintf(path, cap, "%s: %s", v.resident ? what : "launches", v.why);
  }
  if (!plan->on) plan->origin = CG_ORIGIN_FALLBACK;
  cg_kernel_config_set(config, "PERSIST", plan->on, plan->origin);
  if (plan->on) cg_kernel_config_set(config, "PGROUPS", plan->groups, plan->groups_origin);
  if (plan->on && plan->spin_origin != CG_ORIGIN_DEFAULT)
    cg_kernel_config_set(config, "SPIN", plan->spin, plan->spin_origin);
cleanup:
  return rc;
}

/* The most work-items of a one-dimensional group: the device's limits, and the kernel's where k. */
static cg_rc most_items(const cg_device_info *info, cl_kernel k, size_t *most, cg_error *err) {
  cg_rc rc = CG_OK;
  cg_cl_group_limits lim;
  CG_TRY(cg_cl_device_limits(info, &lim, err));
  if (k) CG_TRY(cg_cl_kernel_limits(info, k, &lim, NULL, err));
  *most = lim.items < lim.dim[0] ? lim.items : lim.dim[0];
cleanup:
  return rc;
}

cg_rc cg_cl_persist_ask_local(const cg_backend_env *env, size_t want, bool pow2, size_t *asked,
                              cg_origin *origin, cg_error *err) {
  cg_rc rc = CG_OK;
  const cg_device_info *info = cg_device_get_info(cg_cl_env_device(env));
  size_t most = 0;
  CG_TRY(most_items(info, NULL, &most, err));
  *origin = CG_ORIGIN_DEFAULT;
  const int v = cg_kernel_override(env->overrides, "WG_PERSIST", (int)want, origin);
  if (*origin == CG_ORIGIN_OVERRIDE) {
    CG_CHECK(v >= 1 && (!pow2 || (v & (v - 1)) == 0), CG_BAD_INPUT,
             "--kernel-param WG_PERSIST=%d: %s", v, pow2 ? "a power of two from 1" : "below 1");
    CG_CHECK((size_t)v <= most, CG_BAD_INPUT,
             "--kernel-param WG_PERSIST=%d: the device allows %zu work-items per group", v, most);
    *asked = (size_t)v;
  } else {
    const size_t cap = pow2 ? cg_pow2_floor(most) : most;
    *asked = want < cap ? want : cap;
    if (*asked < want) *origin = CG_ORIGIN_FALLBACK;
  }
cleanup:
  return rc;
}

cg_rc cg_cl_persist_fit_local(const cg_device_info *info, cl_kernel k, const char *name,
                              size_t asked, bool pow2, size_t *local, cg_origin *origin,
                              cg_error *err) {
  cg_rc rc = CG_OK;
  size_t most = 0;
  CG_TRY(most_items(info, k, &most, err));
  CG_CHECK(*origin != CG_ORIGIN_OVERRIDE || asked <= most, CG_BAD_INPUT,
           "--kernel-param WG_PERSIST=%zu: kernel %s allows %zu work-items here", asked, name,
           most);
  CG_CHECK(most >= 1, CG_ERROR, "kernel %s allows no work-item here", name);
  const size_t cap = pow2 ? cg_pow2_floor(most) : most;
  *local = asked <= cap ? asked : cap;
  if (*local < asked) *origin = CG_ORIGIN_FALLBACK;
cleanup:
  return rc;
}

cg_rc cg_cl_persist_zero(cl_command_queue q, cl_mem buf, size_t bytes, cg_error *err) {
  cg_rc rc = CG_OK;
  void *zeros = calloc(1, bytes);
  CG_CHECK(zeros, CG_ERROR, "out of memory");
  CG_CL(clEnqueueWriteBuffer, (q, buf, CL_TRUE, 0, bytes, zeros, 0, NULL, NULL));
cleanup:
  free(zeros);
  return rc;
}
