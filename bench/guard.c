/* The results files kept current while a run goes on, and the run stopped cleanly by SIGINT,
 * SIGTERM, SIGHUP or the record watchdog (--record-timeout).
 *
 * Design. The engine fills the report in the main thread, and a record may sit in a driver call
 * that nothing can interrupt safely, so nothing that reacts to a signal or a timeout may touch
 * the report. Instead:
 *  - when a record starts, the main thread copies the records so far into a snapshot (the last
 *    one being the record that starts) and writes the results files whole from it, with every
 *    record but the running one: the files always hold every finished record, so a crash or a
 *    hang of the driver costs only the record it hit;
 *  - the signal handlers do one async-signal-safe thing: write the signal's number into a pipe;
 *  - a watchdog thread waits on that pipe, with the running record's deadline as its timeout.
 *    When a signal or the deadline comes, it takes the lock that the main thread holds while it
 *    updates the snapshot or writes a file (so no write of the main thread is cut short and no
 *    temporary file is left), marks the running record of the snapshot `interrupted`, writes the
 *    files from the snapshot through the same whole-file writer, and ends the process: for a
 *    signal by raising it again with its default action (the exit status a shell expects:
 *    130, 143, 129), for a timeout with exit status 5 after printing the table. It never returns
 *    the lock: the main thread may still be inside the driver call, and the process ends here.
 * A second signal while the watchdog writes ends the process at once. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "front.h"
#include "clgauge/clock.h"

static const int stop_signals[] = {SIGINT, SIGTERM, SIGHUP};
enum { NSIGNALS = sizeof stop_signals / sizeof stop_signals[0] };

static struct {
  bool active;
  pthread_t thread;
  pthread_mutex_t lock;
  int pipe[2];        /* the handlers' and the main thread's wake-ups for the watchdog */
  const common_opts *o;
  const char *command_name;
  /* under lock: */
  cg_report snap;     /* copies of the records so far (owning their runs and losses) */
  int running;        /* index in snap of the record in progress, -1 for none */
  uint64_t deadline;  /* cg_now_ns() when the running record times out; 0: none */
  bool done;          /* the final files are written: nothing more to save */
  bool warned;        /* an update of the files failed once, and was reported */
  struct sigaction old[NSIGNALS]; /* the dispositions before guard_start */
  bool handled[NSIGNALS];         /* not ignored when clgauge started (nohup, a background job) */
} g = {.lock = PTHREAD_MUTEX_INITIALIZER, .pipe = {-1, -1}, .running = -1};

/* Set by the watchdog when it starts to stop the run, read by the handlers (a lock-free atomic
 * is safe in a handler and between threads). */
static atomic_int stopping;

static void on_signal(int sig) {
  const int saved = errno;
  if (atomic_load(&stopping)) {
    /* a second signal while the files are written: at once, with the default action */
    signal(sig, SIG_DFL);
    raise(sig);
  }
  const unsigned char b = (unsigned char)sig;
  if (write(g.pipe[1], &b, 1) < 0) {
    /* the pipe is full of wake-ups already: the watchdog is on its way */
  }
  errno = saved;
}

/* Write the files from the first n records of the snapshot; returns 0 or EXIT_FAILURE, and
 * reports a failure (once only for the updates during the run, quiet). */
static int write_files(int n, bool final) {
  int status = 0;
  cg_report view = g.snap;
  view.count = n;
  const char *paths[] = {g.o->json, g.o->csv}, *opts[] = {"--json", "--csv"};
  for (int k = 0; k < 2; ++k) {
    if (!paths[k]) continue;
    cg_error err = {0};
    const cg_rc rc = k == 0 ? cg_report_write_json(&view, paths[k], &err)
                            : cg_report_write_csv(&view, paths[k], &err);
    if (rc != CG_OK) {
      if (final || !g.warned) cli_error("%s: %s", opts[k], err.msg);
      g.warned |= !final;
      status = EXIT_FAILURE;
    } else if (final && !g.o->quiet) {
      fprintf(stderr, "wrote %s\n", paths[k]);
    }
  }
  return status;
}

static void free_copies(int from) {
  for (int i = from; i < g.snap.count; ++i) {
    free(g.snap.records[i].runs);
    free(g.snap.records[i].losses);
  }
  if (from < g.snap.count) g.snap.count = from;
}

/* GCC 12's analyzer loses the copies stored at a varying index of the snapshot (and freed
 * through free_copies) and reports them as leaked: false positives. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wanalyzer-malloc-leak"
/* Copy the report's records from index `from` on into the snapshot (replacing older copies). */
static bool copy_records(const cg_report *report, int from) {
  free_copies(from);
  if (report->count > g.snap.cap) {
    cg_record *grown = realloc(g.snap.records, (size_t)report->count * sizeof *grown);
    if (!grown) return false;
    g.snap.records = grown;
    g.snap.cap = report->count;
  }
  for (int i = from; i < report->count; ++i) {
    /* Built whole before it enters the snapshot, so that a failed allocation leaves the
     * snapshot as it was up to i. */
    const cg_record *r = &report->records[i];
    cg_record copy = *r;
    copy.runs = NULL;
    copy.losses = NULL;
    if (r->nruns > 0) {
      copy.runs = malloc((size_t)r->nruns * sizeof *copy.runs);
      if (!copy.runs) return false;
      memcpy(copy.runs, r->runs, (size_t)r->nruns * sizeof *copy.runs);
    }
    if (r->nlosses > 0) {
      copy.losses = malloc((size_t)r->nlosses * sizeof *copy.losses);
      if (!copy.losses) {
        free(copy.runs);
        return false;
      }
      memcpy(copy.losses, r->losses, (size_t)r->nlosses * sizeof *copy.losses);
    }
    g.snap.records[i] = copy;
    g.snap.count = i + 1;
  }
  g.snap.command = report->command;
  g.snap.discovery_ms = report->discovery_ms;
  /* borrowed like the command: the run's devices (set before the run) and a sweep's crossovers
   * (set before the final files) outlive the snapshot */
  g.snap.devices = report->devices;
  g.snap.ndevices = report->ndevices;
  g.snap.crossovers = report->crossovers;
  g.snap.ncrossovers = report->ncrossovers;
  memcpy(g.snap.sweep_option, report->sweep_option, sizeof g.snap.sweep_option);
  /* the probes are taken before the run and stay in the report until its end */
  g.snap.probes = report->probes;
  g.snap.nprobes = report->nprobes;
  return true;
}
#pragma GCC diagnostic pop

static const char *signal_name(int sig) {
  return sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" : sig == SIGHUP ? "SIGHUP" : "a signal";
}

/* With the lock held, for good: the files from the snapshot with the running record marked,
 * then the end of the process. sig 0: the running record's deadline passed. */
static void stop(int sig) {
  atomic_store(&stopping, 1);
  const int n = g.snap.count;
  cg_record *r = g.running >= 0 ? &g.snap.records[g.running] : NULL;
  if (r && !g.done) {
    if (sig)
      cg_record_set_status(r, CG_STATUS_INTERRUPTED, "interrupted by %s while this record ran",
                           signal_name(sig));
    else
      cg_record_set_status(r, CG_STATUS_INTERRUPTED,
                           "timed out: ran longer than --record-timeout %g s, and the run stopped "
                           "here (a driver call cannot be interrupted safely)",
                           g.o->record_timeout);
  }
  const bool files = !g.done && (g.o->json || g.o->csv);
  if (files) write_files(n, false);
  if (sig) {
    if (files)
      fprintf(stderr, "%s: %s: stopped; the results files hold the %d record%s finished%s\n",
              g.command_name, signal_name(sig), r ? n - 1 : n, (r ? n - 1 : n) == 1 ? "" : "s",
              r ? " and the running one, marked interrupted" : "");
    signal(sig, SIG_DFL);
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, sig);
    pthread_sigmask(SIG_UNBLOCK, &set, NULL);
    raise(sig);
    _exit(128 + sig);
  }
  fprintf(stderr,
          "%s: %s/%s%s%s ran longer than --record-timeout %g s: stopped%s\n", g.command_name,
          r ? r->backend : "?", r ? r->variant : "?", r && r->mode[0] ? "/" : "",
          r ? r->mode : "", g.o->record_timeout,
          files ? "; the results files hold the records finished and this one, marked "
                  "interrupted"
                : "");
  if (!g.done) {
    cg_report view = g.snap;
    view.count = n;
    cg_report_print_table(&view, stdout);
  }
  fflush(stdout);
  _exit(EXIT_RECORD_TIMEOUT);
}

static void *watch(void *unused) {
  for (;;) {
    pthread_mutex_lock(&g.lock);
    const uint64_t deadline = g.deadline;
    pthread_mutex_unlock(&g.lock);
    int timeout = -1;
    if (deadline) {
      const uint64_t now = cg_now_ns();
      const uint64_t left_ms = now >= deadline ? 0 : (deadline - now) / 1000000 + 1;
      timeout = left_ms > INT_MAX ? INT_MAX : (int)left_ms;
    }
    struct pollfd p = {g.pipe[0], POLLIN, 0};
    const int ready = poll(&p, 1, timeout);
    if (ready < 0) continue; /* EINTR: a handler ran on this thread; the byte is in the pipe */
    unsigned char b = 0;
    if (ready > 0) {
      if (read(g.pipe[0], &b, 1) != 1) continue;
      if (b == UCHAR_MAX) return NULL; /* guard_end */
      if (b == 0) continue;            /* a new deadline */
      pthread_mutex_lock(&g.lock);
      stop(b);
    }
    pthread_mutex_lock(&g.lock);
    if (g.deadline && cg_now_ns() >= g.deadline) stop(0);
    pthread_mutex_unlock(&g.lock);
  }
}

static void wake(unsigned char b) {
  if (g.pipe[1] >= 0 && write(g.pipe[1], &b, 1) < 0) {
    /* full of wake-ups: the watchdog reads the deadline anyway */
  }
}

void guard_start(const common_opts *o, const char *command_name) {
  g.o = o;
  g.command_name = command_name;
  g.running = -1;
  if (pipe(g.pipe) != 0) {
    fprintf(stderr, "%s: no watchdog (pipe: %s): a signal or a stuck record loses the running "
                    "record\n", command_name, strerror(errno));
    return;
  }
  for (int i = 0; i < 2; ++i) fcntl(g.pipe[i], F_SETFD, FD_CLOEXEC);
  fcntl(g.pipe[1], F_SETFL, fcntl(g.pipe[1], F_GETFL) | O_NONBLOCK);
  const int rc = pthread_create(&g.thread, NULL, watch, NULL);
  if (rc != 0) {
    fprintf(stderr, "%s: no watchdog (%s): a signal or a stuck record loses the running "
                    "record\n", command_name, strerror(rc));
    close(g.pipe[0]);
    close(g.pipe[1]);
    g.pipe[0] = g.pipe[1] = -1;
    return;
  }
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_signal;
  sa.sa_flags = SA_RESTART; /* the drivers' system calls go on as if nothing happened */
  sigemptyset(&sa.sa_mask);
  for (int i = 0; i < NSIGNALS; ++i) sigaddset(&sa.sa_mask, stop_signals[i]);
  /* A signal ignored from the start (nohup's SIGHUP, a shell's background job's SIGINT) stays
   * ignored, as the one who started clgauge asked. */
  for (int i = 0; i < NSIGNALS; ++i) {
    sigaction(stop_signals[i], NULL, &g.old[i]);
    g.handled[i] = g.old[i].sa_handler != SIG_IGN;
    if (g.handled[i]) sigaction(stop_signals[i], &sa, NULL);
  }
  g.active = true;
}

void guard_record_started(const cg_report *report) {
  if (!g.active || report->count == 0) return;
  pthread_mutex_lock(&g.lock);
  const int from = g.running >= 0 ? g.running : g.snap.count;
  if (copy_records(report, from < report->count ? from : report->count - 1)) {
    g.running = report->count - 1;
    if (g.o->json || g.o->csv) write_files(g.running, false);
  } else {
    g.running = -1; /* out of memory: the files keep what they had */
  }
  g.deadline = g.o->record_timeout > 0 ? cg_now_ns() + (uint64_t)(g.o->record_timeout * 1e9) : 0;
  pthread_mutex_unlock(&g.lock);
  wake(0);
}

void guard_job_done(const cg_report *report) {
  if (!g.active) return;
  pthread_mutex_lock(&g.lock);
  const int from = g.running >= 0 ? g.running : g.snap.count;
  if (from < report->count && copy_records(report, from)) g.running = -1;
  g.deadline = 0;
  pthread_mutex_unlock(&g.lock);
  wake(0);
}

int guard_write_results(const cg_report *report, const common_opts *o) {
  if (!g.active) {
    /* no watchdog: the files straight from the report */
    g.o = o;
    g.snap = *report;
    const int status = write_files(report->count, true);
    memset(&g.snap, 0, sizeof g.snap);
    return status;
  }
  pthread_mutex_lock(&g.lock);
  int status = 0;
  /* every record again: the assessment against the probes (cg_report_assess) after the run
   * fills in the bounds and flags of records copied while it went on */
  if (copy_records(report, 0)) {
    g.running = -1;
    status = write_files(g.snap.count, true);
  } else {
    cli_error("out of memory writing the results files");
    status = EXIT_FAILURE;
  }
  g.done = true;
  g.deadline = 0;
  pthread_mutex_unlock(&g.lock);
  return status;
}

void guard_end(void) {
  if (!g.active) return;
  for (int i = 0; i < NSIGNALS; ++i)
    if (g.handled[i]) sigaction(stop_signals[i], &g.old[i], NULL);
  wake(UCHAR_MAX);
  pthread_join(g.thread, NULL);
  close(g.pipe[0]);
  close(g.pipe[1]);
  g.pipe[0] = g.pipe[1] = -1;
  pthread_mutex_lock(&g.lock);
  free_copies(0);
  free(g.snap.records);
  memset(&g.snap, 0, sizeof g.snap);
  g.active = false;
  pthread_mutex_unlock(&g.lock);
}
