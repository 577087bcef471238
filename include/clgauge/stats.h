/* Summary statistics of timed samples. */
#ifndef CLGAUGE_STATS_H
#define CLGAUGE_STATS_H

/* Summary statistics of n samples (n may be 0: all fields NAN). stddev is the sample one (n-1). */
typedef struct cg_stats {
  int n;
  double median, min, max, mean, stddev;
} cg_stats;
void cg_stats_compute(const double *samples, int n, cg_stats *out);

#endif
