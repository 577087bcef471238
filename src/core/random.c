/* splitmix64 generator with uniform and normal samples. */
#include "clgauge/random.h"

#include <math.h>

void cg_rng_seed(cg_rng *rng, uint64_t seed) { rng->state = seed; }

uint64_t cg_rng_next(cg_rng *rng) {
  uint64_t z = (rng->state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

double cg_rng_uniform(cg_rng *rng) { return (double)(cg_rng_next(rng) >> 11) * 0x1.0p-53; }

double cg_rng_normal(cg_rng *rng) {
  double u1 = 1.0 - cg_rng_uniform(rng); /* in (0, 1]: log is finite */
  double u2 = cg_rng_uniform(rng);
  return sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
}

void cg_rng_fill_normal(cg_rng *rng, float *out, size_t n) {
  for (size_t i = 0; i < n; ++i) out[i] = (float)cg_rng_normal(rng);
}
