/* Check suite of the host thread pool (src/core/workers.c): every part of every job runs once,
 * on as many threads as asked and none on the caller, jobs after jobs; a started job runs while
 * the caller goes on, and waiting for it returns its wall time; counts outside 1..CG_WORKERS_MAX
 * are refused naming the count. Needs no OpenCL. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "clgauge/clock.h"
#include "clgauge/workers.h"
#include "test_util.h"

enum { SLOTS = 1000 };

typedef struct job {
  int hits[SLOTS];            /* each slot written by the part that owns it */
  atomic_int calls;           /* parts run in this job */
  pthread_t who[CG_WORKERS_MAX];
  int round;
} job;

/* Part p owns the slots [p * SLOTS / parts, (p + 1) * SLOTS / parts). */
static void count_part(void *ctx, int part, int parts) {
  job *j = ctx;
  ck_assert_int_ge(part, 0);
  ck_assert_int_lt(part, parts);
  for (int i = part * SLOTS / parts; i < (part + 1) * SLOTS / parts; ++i) j->hits[i] += j->round;
  j->who[part] = pthread_self();
  atomic_fetch_add(&j->calls, 1);
}

START_TEST(test_parts_once) {
  for (int threads = 1; threads <= 7; ++threads) {
    cg_workers *w = NULL;
    cg_error err = {0};
    ck_assert_msg(cg_workers_create(threads, &w, &err) == CG_OK, "%s", err.msg);
    ck_assert_int_eq(cg_workers_parts(w), threads);
    job *j = calloc(1, sizeof *j);
    ck_assert_ptr_nonnull(j);
    int sum = 0;
    for (int round = 1; round <= 300; ++round) {
      j->round = round;
      atomic_store(&j->calls, 0);
      if (round % 2) {
        cg_workers_run(w, count_part, j);
      } else {
        cg_workers_start(w, count_part, j);
        cg_workers_wait(w);
      }
      /* every part done when run returns, each once */
      ck_assert_int_eq(atomic_load(&j->calls), threads);
      sum += round;
    }
    for (int i = 0; i < SLOTS; ++i)
      ck_assert_msg(j->hits[i] == sum, "%d threads: slot %d holds %d, not %d", threads, i,
                    j->hits[i], sum);
    /* each part on a thread of its own, none on the caller */
    for (int a = 0; a < threads; ++a) {
      ck_assert_msg(!pthread_equal(j->who[a], pthread_self()), "part %d ran on the caller", a);
    }
    for (int a = 0; a < threads; ++a)
      for (int b = a + 1; b < threads; ++b)
        ck_assert_msg(!pthread_equal(j->who[a], j->who[b]), "%d threads: parts %d and %d on one",
                      threads, a, b);
    free(j);
    cg_workers_free(w);
  }
  cg_workers_free(NULL);
}
END_TEST

/* A part that runs until the caller lets it go, or gives up after 20 s. */
typedef struct gate {
  atomic_int open;    /* set by the caller after cg_workers_start returned */
  atomic_int entered; /* parts that began */
  atomic_int gave_up; /* parts that never saw the gate open */
} gate;

static void gated_part(void *ctx, int part, int parts) {
  (void)part;
  (void)parts;
  gate *g = ctx;
  atomic_fetch_add(&g->entered, 1);
  const uint64_t t0 = cg_now_ns();
  while (!atomic_load(&g->open)) {
    if (cg_now_ns() - t0 > 20000000000ull) {
      atomic_fetch_add(&g->gave_up, 1);
      return;
    }
    struct timespec nap = {0, 100000};
    nanosleep(&nap, NULL);
  }
}

/* start returns while the parts run (they wait for the caller), and wait returns only when
 * they are done, with at least the time the caller kept them waiting. */
START_TEST(test_start_then_wait) {
  for (int threads = 1; threads <= 4; ++threads) {
    cg_workers *w = NULL;
    cg_error err = {0};
    ck_assert_msg(cg_workers_create(threads, &w, &err) == CG_OK, "%s", err.msg);
    gate g = {0};
    cg_workers_start(w, gated_part, &g);
    /* every part begins while the caller is still here */
    const uint64_t t0 = cg_now_ns();
    while (atomic_load(&g.entered) < threads && cg_now_ns() - t0 < 20000000000ull) {
      struct timespec nap = {0, 100000};
      nanosleep(&nap, NULL);
    }
    ck_assert_int_eq(atomic_load(&g.entered), threads);
    struct timespec hold = {0, 20000000}; /* 20 ms with the parts held */
    nanosleep(&hold, NULL);
    atomic_store(&g.open, 1);
    const uint64_t ns = cg_workers_wait(w);
    ck_assert_int_eq(atomic_load(&g.gave_up), 0);
    ck_assert_msg(ns >= 20000000ull, "%d threads: the job took %llu ns, held 20 ms", threads,
                  (unsigned long long)ns);
    ck_assert_msg(cg_workers_wait(w) == 0, "a second wait found a job");
    /* a job left running is waited for by free */
    gate g2 = {0};
    atomic_store(&g2.open, 1);
    cg_workers_start(w, gated_part, &g2);
    cg_workers_free(w);
    ck_assert_int_eq(atomic_load(&g2.entered), threads);
  }
}
END_TEST

START_TEST(test_bad_counts) {
  const int bad[] = {0, -1, CG_WORKERS_MAX + 1};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
    cg_workers *w = (cg_workers *)&bad; /* overwritten with NULL */
    cg_error err = {0};
    ck_assert_int_eq(cg_workers_create(bad[i], &w, &err), CG_BAD_INPUT);
    ck_assert_ptr_null(w);
    char count[16];
    snprintf(count, sizeof count, "%d", bad[i]);
    ck_assert_msg(strstr(err.msg, count), "%d not named in: %s", bad[i], err.msg);
  }
  ck_assert_int_ge(cg_online_cpus(), 1);
}
END_TEST

static Suite *workers_suite(void) {
  Suite *s = suite_create("workers");
  TCase *tc = tcase_create("pool");
  tcase_add_test(tc, test_parts_once);
  tcase_add_test(tc, test_start_then_wait);
  tcase_add_test(tc, test_bad_counts);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return cg_test_main(workers_suite, false); }
