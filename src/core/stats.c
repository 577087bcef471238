/* Summary statistics of timed samples. */
#include "clgauge/stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

void cg_stats_compute(const double *samples, int n, cg_stats *out) {
  out->n = n;
  out->median = out->min = out->max = out->mean = out->stddev = NAN;
  if (n <= 0) return;
  double *sorted = malloc((size_t)n * sizeof *sorted);
  if (!sorted) return;
  memcpy(sorted, samples, (size_t)n * sizeof *sorted);
  qsort(sorted, (size_t)n, sizeof *sorted, cmp_double);
  out->min = sorted[0];
  out->max = sorted[n - 1];
  out->median = n % 2 ? sorted[n / 2] : 0.5 * (sorted[n / 2 - 1] + sorted[n / 2]);
  double sum = 0;
  for (int i = 0; i < n; ++i) sum += sorted[i];
  out->mean = sum / n;
  double ss = 0;
  for (int i = 0; i < n; ++i) ss += (sorted[i] - out->mean) * (sorted[i] - out->mean);
  out->stddev = n > 1 ? sqrt(ss / (n - 1)) : 0.0;
  free(sorted);
}
