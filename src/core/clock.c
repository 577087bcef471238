/* Host clocks: the monotonic clock and the process's CPU time. */
#include "clgauge/clock.h"

#include <sys/resource.h>
#include <time.h>

uint64_t cg_now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

uint64_t cg_cpu_ns(void) {
  struct rusage ru;
  if (getrusage(RUSAGE_SELF, &ru) != 0) return 0;
  uint64_t us = (uint64_t)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000u +
                (uint64_t)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec);
  return us * 1000u;
}

double cg_ns_to_ms(uint64_t ns) { return (double)ns / 1e6; }
