/* Check suite of the host thread pool (src/core/workers.c): every part of every job runs once,
 * on as many threads as asked, jobs after jobs; counts outside 1..CG_WORKERS_MAX are refused
 * naming the count. Needs no OpenCL. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
      cg_workers_run(w, count_part, j);
      /* every part done when run returns, each once */
      ck_assert_int_eq(atomic_load(&j->calls), threads);
      sum += round;
    }
    for (int i = 0; i < SLOTS; ++i)
      ck_assert_msg(j->hits[i] == sum, "%d threads: slot %d holds %d, not %d", threads, i,
                    j->hits[i], sum);
    /* part 0 on the caller, the others each on a thread of its own */
    ck_assert(pthread_equal(j->who[0], pthread_self()));
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
  tcase_add_test(tc, test_bad_counts);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return cg_test_main(workers_suite, false); }
