/* A bare cblas_sgemm loop with nothing around it: the yardstick for the cpu backend's harness.
 *   bare_sgemm [n] [products] [repeats]   prints the median GFLOP/s over the repeats. */
#include <cblas.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 1000;
  int products = argc > 2 ? atoi(argv[2]) : 10;
  int repeats = argc > 3 ? atoi(argv[3]) : 10;
  if (n < 1 || products < 1 || repeats < 1 || repeats > 1000) {
    fprintf(stderr, "usage: bare_sgemm [n >= 1] [products >= 1] [repeats 1..1000]\n");
    return 2;
  }
  size_t elems = (size_t)n * (size_t)n;
  float *a = malloc(elems * sizeof *a), *b = malloc(elems * sizeof *b),
        *c = malloc(elems * sizeof *c);
  if (!a || !b || !c) {
    fprintf(stderr, "bare_sgemm: out of memory for n=%d\n", n);
    return 1;
  }
  for (size_t i = 0; i < elems; ++i) {
    a[i] = (float)((i * 7919) % 1000) / 1000.0f - 0.5f;
    b[i] = (float)((i * 104729) % 1000) / 1000.0f - 0.5f;
  }
  double times[1000];
  for (int r = 0; r <= repeats; ++r) { /* repeat 0 warms up and is dropped */
    double t0 = now_s();
    for (int p = 0; p < products; ++p)
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f, a, n, b, n, 0.0f, c,
                  n);
    if (r > 0) times[r - 1] = now_s() - t0;
  }
  /* repeats >= 1 (checked above): the loop wrote times[0..repeats-1] */
  /* cppcheck-suppress uninitvar */
  qsort(times, (size_t)repeats, sizeof times[0], cmp);
  double med = times[repeats / 2];
  printf("bare cblas_sgemm n=%d: %.3f ms per product, %.1f GFLOP/s (median of %d runs of %d)\n", n,
         med * 1e3 / products, 2.0 * n * n * (double)n * products / med / 1e9, repeats, products);
  free(a);
  free(b);
  free(c);
  return 0;
}
