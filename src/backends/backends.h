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

#endif
