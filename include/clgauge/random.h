/* Seeded pseudo-random numbers, so that every backend of one run sees the same inputs. */
#ifndef CLGAUGE_RANDOM_H
#define CLGAUGE_RANDOM_H

#include <stddef.h>
#include <stdint.h>

typedef struct cg_rng {
  uint64_t state;
} cg_rng;

void cg_rng_seed(cg_rng *rng, uint64_t seed);
uint64_t cg_rng_next(cg_rng *rng);
/* Uniform in [0, 1). */
double cg_rng_uniform(cg_rng *rng);
/* Standard normal (Box-Muller). */
double cg_rng_normal(cg_rng *rng);
/* Fill n floats with standard normal samples. */
void cg_rng_fill_normal(cg_rng *rng, float *out, size_t n);

#endif
