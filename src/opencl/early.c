/* The head start: discovery and the device's opening on a thread of their own (see early.h). */
#include "clgauge/early.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "clgauge/clock.h"

/* One per process. The main thread reads the list only after `listed` (under the lock), and
 * what the opening made only after joining the thread, so that only `listed` needs the lock;
 * `opening` and `info` are written before `listed`, and `handed` says the list was waited for. */
static struct {
  bool started, joined, handed, taken;
  pthread_t thread;
  pthread_mutex_t lock;
  pthread_cond_t cond;
  char selector[512];
  bool open;
  /* the discovery */
  bool listed;
  cg_device_list list;
  cg_rc list_rc;
  cg_error list_err;
  uint64_t list_t0, list_t1;
  /* the opening */
  bool opening;
  uint64_t asked; /* when the main thread first waited for the opening (0: not yet) */
  cg_device_info info; /* the device opened (a copy: the list belongs to the caller by then) */
  cg_device *device;
  cg_rc open_rc;
  cg_error open_err;
  uint64_t open_t0, open_t1;
} early = {.lock = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER};

static void *early_main(void *unused) {
  (void)unused;
  early.list_t0 = cg_now_ns();
  early.list_rc = cg_device_list_query(&early.list, &early.list_err);
  early.list_t1 = cg_now_ns();
  int index = -1;
  cg_error ignored = {0};
  /* the caller's own selection on the same list gives every error and message */
  if (early.open && early.list_rc == CG_OK && early.list.count > 0 &&
      !cg_device_selector_is_list(early.selector) &&
      cg_device_select(&early.list, early.selector, &index, &ignored) == CG_OK) {
    early.info = early.list.items[index];
    /* Oclgrind 21.10's --uninitialized check crashes in a context made on another thread than
     * the one that uses it: the caller opens that one itself */
    early.opening = !strstr(early.info.platform, "Oclgrind");
  }
  pthread_mutex_lock(&early.lock);
  early.listed = true; /* the list is the caller's from here on */
  pthread_cond_signal(&early.cond);
  pthread_mutex_unlock(&early.lock);
  if (early.opening) {
    early.open_t0 = cg_now_ns();
    early.open_rc = cg_device_open(&early.info, &early.device, &early.open_err);
    early.open_t1 = cg_now_ns();
  }
  return NULL;
}

void cg_early_start(const char *selector, bool open) {
  if (early.started) return;
  snprintf(early.selector, sizeof early.selector, "%s", selector ? selector : "");
  early.open = open && strlen(selector ? selector : "") < sizeof early.selector;
  early.started = pthread_create(&early.thread, NULL, early_main, NULL) == 0;
}

/* The part of [t0, t1] before `asked`: the time the thread worked beside the caller. */
static double overlap(uint64_t t0, uint64_t t1, uint64_t asked) {
  const uint64_t end = t1 < asked ? t1 : asked;
  return end > t0 ? cg_ns_to_ms(end - t0) : 0;
}

cg_rc cg_early_list(cg_device_list *out, double *overlap_ms, cg_error *err) {
  *overlap_ms = 0;
  if (!early.started || early.handed) return cg_device_list_query(out, err);
  const uint64_t asked = cg_now_ns();
  pthread_mutex_lock(&early.lock);
  while (!early.listed) pthread_cond_wait(&early.cond, &early.lock);
  pthread_mutex_unlock(&early.lock);
  *out = early.list;
  memset(&early.list, 0, sizeof early.list);
  early.handed = true;
  if (early.list_rc != CG_OK) *err = early.list_err;
  /* the query's own clock starts inside the thread's: never more than query_ms */
  *overlap_ms = overlap(early.list_t0, early.list_t1, asked);
  if (*overlap_ms > out->query_ms) *overlap_ms = out->query_ms;
  return early.list_rc;
}

static void early_join(void) {
  if (early.started && !early.joined) pthread_join(early.thread, NULL);
  early.joined = true;
}

/* Join the thread, noting when the main thread began to wait for the opening: from then on
 * the opening no longer ran beside other work. */
static void early_wait_opening(void) {
  if (early.started && early.opening && !early.asked) early.asked = cg_now_ns();
  early_join();
}

void cg_early_wait(void) {
  if (early.started && early.handed) early_wait_opening();
}

bool cg_early_take(const cg_device_info *info, cg_device **out, cg_rc *rc, cg_error *err) {
  if (!early.started || !early.handed || early.taken || !early.opening ||
      early.info.id != info->id)
    return false;
  early_wait_opening();
  const uint64_t asked = early.asked;
  early.taken = true;
  *out = early.device;
  early.device = NULL;
  *rc = early.open_rc;
  if (early.open_rc != CG_OK)
    *err = early.open_err;
  else
    cg_device_set_open_overlap(*out, overlap(early.open_t0, early.open_t1, asked));
  return true;
}

void cg_early_end(void) {
  early_join();
  cg_device_close(early.device);
  cg_device_list_free(&early.list);
  /* a later cg_early_start may begin again; the lock and condition stay as they are */
  early.started = early.joined = early.handed = early.taken = false;
  early.listed = early.opening = false;
  early.asked = 0;
  early.device = NULL;
}
