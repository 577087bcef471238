/* Private to src/backends: the backends and implementations the registry lists. */
#ifndef CLGAUGE_BACKENDS_PRIVATE_H
#define CLGAUGE_BACKENDS_PRIVATE_H

#include "clgauge/backend.h"

extern const cg_backend cg_backend_cpu;
extern const cg_backend cg_backend_clblast;
extern const cg_backend cg_backend_cl;

/* The implementations, named <backend>_<workload>. */
extern const cg_impl cg_cpu_matmul, cg_clblast_matmul, cg_cl_matmul;
extern const cg_impl cg_cpu_mlp, cg_clblast_mlp, cg_cl_mlp;
extern const cg_impl cg_cpu_linear, cg_clblast_linear, cg_cl_linear;
extern const cg_impl cg_cpu_saxpy, cg_clblast_saxpy, cg_cl_saxpy;

#endif
