/* Private to src/backends: the backend definitions the registry lists. */
#ifndef CLGAUGE_BACKENDS_PRIVATE_H
#define CLGAUGE_BACKENDS_PRIVATE_H

#include "clgauge/backend.h"

extern const cg_backend cg_backend_cpu;
extern const cg_backend cg_backend_clblast;
extern const cg_backend cg_backend_cl;

extern const cg_mlp_ops cg_cl_mlp_ops;
extern const cg_mlp_ops cg_clblast_mlp_ops;

extern const cg_linear_ops cg_cl_linear_ops;
extern const cg_linear_ops cg_clblast_linear_ops;

/* The program builds of one backend instance, counted for its record's compile kind. */
typedef struct cg_build_tally {
  int builds, cached;
} cg_build_tally;

/* Build cl/<name> through the instance's program store and count the build. */
cg_rc cg_backend_build(const cg_backend_env *env, const char *name, const char *options,
                       cl_program *out, cg_build_tally *tally, cg_error *err);

/* "cache" when every build came from the binary cache, else "source". */
const char *cg_build_tally_kind(const cg_build_tally *tally);

#endif
