/* CLBlast's Xgemm parameters per device, applied with CLBlastOverrideParameters, and what this
 * process has applied so far (CLBlast's own state is process-wide, and so is this list). */
#include "backends/clblast/xgemm_override.h"

#include <clblast_c.h>
#include <stdio.h>
#include <string.h>

#include "clgauge/xgemm_tuner.h"

enum { MAX_DEVICES = 16 };
static struct {
  cl_device_id device;
  int values[CG_XGEMM_NPARAMS];
} applied[MAX_DEVICES];
static int napplied;

static int applied_index(cl_device_id device) {
  for (int i = 0; i < napplied; ++i)
    if (applied[i].device == device) return i;
  return -1;
}

/* "XGEMM_MWG=64,..." of a setting, for messages. */
static void setting_text(const int *values, char *out, size_t size) {
  size_t used = 0;
  out[0] = '\0';
  for (int p = 0; p < CG_XGEMM_NPARAMS && used < size; ++p)
    used += (size_t)snprintf(out + used, size - used, "%s%s=%d", p ? "," : "", cg_xgemm_params[p],
                             values[p]);
}

cg_rc cg_clblast_xgemm_apply(const cg_backend_env *env, cg_kernel_config *config, cg_error *err) {
  cg_rc rc = CG_OK;
  const cl_device_id device = cg_device_get_info(cg_cl_env_device(env))->id;
  int values[CG_XGEMM_NPARAMS];
  cg_origin origins[CG_XGEMM_NPARAMS];
  char missing[256] = "";
  int given = 0;
  for (int p = 0; p < CG_XGEMM_NPARAMS; ++p) {
    origins[p] = CG_ORIGIN_DEFAULT;
    values[p] = cg_kernel_override(env->overrides, cg_xgemm_params[p], -1, &origins[p]);
    if (origins[p] != CG_ORIGIN_DEFAULT)
      ++given;
    else
      snprintf(missing + strlen(missing), sizeof missing - strlen(missing), "%s%s",
               missing[0] ? ", " : "", cg_xgemm_params[p]);
  }
  const int at = applied_index(device);
  char text[512];
  if (given == 0) {
    if (at >= 0) {
      setting_text(applied[at].values, text, sizeof text);
      CG_CHECK(false, CG_UNSUPPORTED,
               "an earlier record of this process set CLBlast's Xgemm parameters on this device "
               "(%s), which CLBlast keeps until the process ends: run the untuned CLBlast in a "
               "process of its own (--no-tuned)",
               text);
    }
    return CG_OK;
  }
  CG_CHECK(given == CG_XGEMM_NPARAMS, CG_BAD_INPUT,
           "CLBlast's Xgemm takes its %d parameters together (CLBlastOverrideParameters); "
           "missing: %s",
           (int)CG_XGEMM_NPARAMS, missing);
  if (at < 0 || memcmp(applied[at].values, values, sizeof values) != 0) {
    CG_CHECK(at >= 0 || napplied < MAX_DEVICES, CG_UNSUPPORTED,
             "CLBlast's Xgemm parameters set on more than %d devices in one process",
             (int)MAX_DEVICES);
    size_t sizes[CG_XGEMM_NPARAMS];
    for (int p = 0; p < CG_XGEMM_NPARAMS; ++p) sizes[p] = (size_t)values[p];
    CG_CL(CLBlastOverrideParameters, (device, "Xgemm", CLBlastPrecisionSingle, CG_XGEMM_NPARAMS,
                                      (const char **)cg_xgemm_clblast_names, sizes));
    /* CLBlast's caches of compiled programs are keyed without the parameters: emptied, so
     * that the next call compiles with the new ones. */
    CG_CL(CLBlastClearCache, ());
    const int slot = at >= 0 ? at : napplied++;
    applied[slot].device = device;
    memcpy(applied[slot].values, values, sizeof values);
  }
  for (int p = 0; p < CG_XGEMM_NPARAMS; ++p)
    cg_kernel_config_set(config, cg_xgemm_params[p], values[p], origins[p]);
cleanup:
  return rc;
}

void cg_clblast_xgemm_warn(const cg_backend_env *env) {
  const int at = applied_index(cg_device_get_info(cg_cl_env_device(env))->id);
  if (at < 0) return;
  char text[512], line[640];
  setting_text(applied[at].values, text, sizeof text);
  snprintf(line, sizeof line,
           "CLBlast's GEMM runs the Xgemm parameters an earlier matmul record of this process set "
           "(%s)",
           text);
  cg_backend_warn(env, line);
}
