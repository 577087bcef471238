/* Program builds of the OpenCL backends, counted so that a record says whether its compile
 * phase compiled anything or only loaded binaries from the cache. */
#include "backends/backends.h"

cg_rc cg_backend_build(const cg_backend_env *env, const char *name, const char *options,
                       cl_program *out, cg_build_tally *tally, cg_error *err) {
  cg_build_origin origin = CG_BUILT_FROM_SOURCE;
  cg_rc rc = cg_program_build(env->device, &env->programs, name, options, out, &origin, err);
  if (rc == CG_OK) {
    tally->builds++;
    if (origin == CG_BUILT_FROM_CACHE) tally->cached++;
  }
  return rc;
}

const char *cg_build_tally_kind(const cg_build_tally *tally) {
  return tally->builds > 0 && tally->cached == tally->builds ? "cache" : "source";
}
