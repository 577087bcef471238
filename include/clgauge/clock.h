/* Host clocks: the monotonic clock and the CPU time of the process, and a named duration. */
#ifndef CLGAUGE_CLOCK_H
#define CLGAUGE_CLOCK_H

#include <stdint.h>

/* CLOCK_MONOTONIC in nanoseconds. */
uint64_t cg_now_ns(void);
/* User plus system CPU time of this process so far (getrusage), in nanoseconds. */
uint64_t cg_cpu_ns(void);
double cg_ns_to_ms(uint64_t ns);

/* The time of one command of an iteration (a kernel launch, a library call), by name. */
typedef struct cg_kernel_time {
  const char *name; /* static string */
  double ms;
} cg_kernel_time;

/* The most commands of one iteration that a split keeps. */
enum { CG_MAX_SPLIT = 24 };

#endif
