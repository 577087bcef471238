/* Check suite of the clgauge program as a process: what a shell can do to it that a command-line
 * test cannot (a closed pipe, a full disk, signals while it runs, a missing home directory),
 * and what it leaves behind: its exit status or signal, its results files, no temporary files.
 * Runs the cpu backend, so it needs no OpenCL device (those parts that need one skip). */
#include <cjson/cJSON.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "clgauge/report.h"
#include "test_util.h"

/* A running clgauge: its process, the read end of its stderr (when asked for), and the files
 * its stdout and stderr went to otherwise. */
typedef struct child {
  pid_t pid;
  int err_pipe; /* -1 when stderr goes to err_path */
  char dir[256], err_path[512];
} child;

/* Start the program with args (NULL-terminated, without the program) in a new temporary
 * directory (child->dir, the working directory of the run). stdout goes to out_fd when it is
 * >= 0 (the child's copy; the caller keeps its own), else to dir/stdout; stderr to a pipe when
 * err_pipe is set, else to dir/stderr. env: "NAME=VALUE" to set, "NAME" to unset. */
static void start(child *c, const char *const *args, int out_fd, bool err_pipe,
                  const char *const *env) {
  cg_test_tempdir(c->dir, sizeof c->dir);
  snprintf(c->err_path, sizeof c->err_path, "%s/stderr", c->dir);
  int pipefd[2] = {-1, -1};
  if (err_pipe) ck_assert_int_eq(pipe(pipefd), 0);
  fflush(stdout);
  fflush(stderr);
  c->pid = fork();
  ck_assert_int_ge(c->pid, 0);
  if (c->pid == 0) {
    char out_path[600];
    snprintf(out_path, sizeof out_path, "%s/stdout", c->dir);
    const int out = out_fd >= 0 ? out_fd : open(out_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int err = err_pipe ? pipefd[1] : open(c->err_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (out < 0 || err < 0 || dup2(out, 1) < 0 || dup2(err, 2) < 0 || chdir(c->dir) != 0) _exit(126);
    if (err_pipe) close(pipefd[0]);
    for (int i = 0; env && env[i]; ++i) {
      const char *eq = strchr(env[i], '=');
      if (eq) {
        char name[128];
        snprintf(name, sizeof name, "%.*s", (int)(eq - env[i]), env[i]);
        setenv(name, eq + 1, 1);
      } else {
        unsetenv(env[i]);
      }
    }
    /* what an interactive shell hands on: default dispositions */
    const int sigs[] = {SIGPIPE, SIGINT, SIGTERM, SIGHUP};
    for (int i = 0; i < 4; ++i) signal(sigs[i], SIG_DFL);
    const char *argv[64] = {CLGAUGE_PROGRAM};
    int n = 1;
    for (; args[n - 1] && n < 63; ++n) argv[n] = args[n - 1];
    argv[n] = NULL;
    execv(CLGAUGE_PROGRAM, (char *const *)argv);
    _exit(127);
  }
  c->err_pipe = -1;
  if (err_pipe) {
    close(pipefd[1]);
    c->err_pipe = pipefd[0];
  }
}

/* Wait for the child; its wait status. */
static int finish(child *c) {
  int status = 0;
  while (waitpid(c->pid, &status, 0) < 0) ck_assert_int_eq(errno, EINTR);
  if (c->err_pipe >= 0) close(c->err_pipe);
  return status;
}

/* What the child wrote to dir/name (malloc'd), "" when nothing. */
static char *child_file(const child *c, const char *name) {
  char path[600];
  snprintf(path, sizeof path, "%s/%s", c->dir, name);
  char *text = cg_test_read_file(path, NULL);
  return text ? text : strdup("");
}

/* Run to the end with stdout to out_fd (or a file): the wait status, and stderr's text. */
static int run(const char *const *args, int out_fd, const char *const *env, child *c,
               char **err) {
  start(c, args, out_fd, false, env);
  const int status = finish(c);
  *err = child_file(c, "stderr");
  return status;
}

/* The records of a results file in the run's directory: their count, and the status of each
 * into statuses (room for max). -1 when the file is missing or not JSON. */
static int results_statuses(const child *c, const char *name, const char **statuses, int max,
                            cJSON **root_out) {
  char *text = child_file(c, name);
  cJSON *root = cJSON_Parse(text);
  free(text);
  *root_out = root;
  if (!root) return -1;
  const cJSON *records = cJSON_GetObjectItem(root, "records");
  if (!cJSON_IsArray(records)) return -1;
  int n = 0;
  for (const cJSON *r = records->child; r; r = r->next, ++n)
    if (n < max) statuses[n] = cJSON_GetStringValue(cJSON_GetObjectItem(r, "status"));
  return n;
}

static const char *const small_matmul[] = {"matmul", "--n", "8", "--runs", "2", "--loops", "1",
                                           "--backend", "cpu", "--json", "p.json", NULL};

/* ---- stdout that cannot be written ---- */

/* The reader of a pipe is gone before anything is written (as `| head -1` after its line): the
 * results file is complete, the process is not killed by SIGPIPE, and the exit status says that
 * stdout could not be written. */
START_TEST(test_closed_pipe) {
  int fds[2];
  ck_assert_int_eq(pipe(fds), 0);
  close(fds[0]);
  child c;
  char *err = NULL;
  const int status = run(small_matmul, fds[1], NULL, &c, &err);
  close(fds[1]);
  cJSON *root = NULL;
  const char *st[4];
  const int n = results_statuses(&c, "p.json", st, 4, &root);
  ck_assert_msg(WIFEXITED(status), "killed by signal %d; stderr:\n%s", WTERMSIG(status), err);
  ck_assert_msg(WEXITSTATUS(status) == 1, "exit status %d; stderr:\n%s", WEXITSTATUS(status), err);
  ck_assert_msg(strstr(err, "cannot write to standard output: Broken pipe"), "stderr:\n%s", err);
  ck_assert_msg(n == 1 && strcmp(st[0], "ok") == 0, "results file: %d records", n);
  cJSON_Delete(root);
  free(err);
  cg_test_rmtree(c.dir);
}
END_TEST

/* A full disk under stdout: exit status 1 and a message, for a run, for list and for --help;
 * the results file of the run is still written. */
START_TEST(test_full_disk) {
  const char *const list[] = {"list", NULL}, *const help[] = {"--help", NULL};
  const char *const *const commands[] = {small_matmul, list, help};
  for (int k = 0; k < 3; ++k) {
    const int full = open("/dev/full", O_WRONLY);
    ck_assert_int_ge(full, 0);
    child c;
    char *err = NULL;
    const int status = run(commands[k], full, NULL, &c, &err);
    close(full);
    ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 1, "%s: status 0x%x; stderr:\n%s",
                  commands[k][0], (unsigned)status, err);
    ck_assert_msg(strstr(err, "cannot write to standard output: No space left on device"),
                  "%s: stderr:\n%s", commands[k][0], err);
    if (k == 0) {
      cJSON *root = NULL;
      const char *st[4];
      ck_assert_int_eq(results_statuses(&c, "p.json", st, 4, &root), 1);
      cJSON_Delete(root);
    }
    free(err);
    cg_test_rmtree(c.dir);
  }
}
END_TEST

/* ---- a run stopped, and results kept current ---- */

/* Two records on the host: the first (din = hidden = 2) done in milliseconds, the second
 * (1500) taking tens of seconds, long enough to be stopped while it runs. */
static const char *const two_records[] = {
    "mlp",        "--backend",     "cpu",      "--sweep-hidden", "2,1500", "--iters",
    "2000",       "--print-every", "1000",     "--json",         "p.json", "--csv",
    "p.csv",      NULL};

/* Read the child's stderr until its `count`-th line starting with `prefix` (a record's start),
 * within 120 s; the text read so far into log. */
static void await_line(child *c, const char *prefix, int count, char *log, size_t size) {
  size_t used = 0;
  int seen = 0;
  const uint64_t give_up = (uint64_t)time(NULL) + 120;
  log[0] = '\0';
  while (seen < count) {
    ck_assert_msg((uint64_t)time(NULL) < give_up, "no %d lines '%s' on stderr:\n%s", count,
                  prefix, log);
    struct pollfd p = {c->err_pipe, POLLIN, 0};
    if (poll(&p, 1, 1000) <= 0) continue;
    ck_assert_msg(used + 1 < size, "stderr too long:\n%s", log);
    const ssize_t n = read(c->err_pipe, log + used, 1);
    ck_assert_msg(n == 1, "stderr closed before %d lines '%s':\n%s", count, prefix, log);
    log[++used] = '\0';
    if (log[used - 1] != '\n') continue;
    const char *line = log;
    for (const char *nl = strchr(log, '\n'); nl && nl + 1 < log + used; nl = strchr(nl + 1, '\n'))
      line = nl + 1;
    seen += strncmp(line, prefix, strlen(prefix)) == 0;
  }
}

/* The rest of the child's stderr, appended to log. */
static void drain(child *c, char *log, size_t size) {
  size_t used = strlen(log);
  ssize_t n;
  while (used + 1 < size && (n = read(c->err_pipe, log + used, size - used - 1)) > 0) used += n;
  log[used] = '\0';
}

/* No temporary file of the whole-file writer left in the run's directory. */
static void expect_no_temporary(const child *c) {
  DIR *d = opendir(c->dir);
  ck_assert_ptr_nonnull(d);
  for (struct dirent *e; (e = readdir(d));)
    ck_assert_msg(!strstr(e->d_name, ".tmp"), "temporary file %s left", e->d_name);
  closedir(d);
}

/* SIGINT, SIGTERM and SIGHUP while the second record runs: the process ends by that signal,
 * and the files hold the first record, finished, and the second, interrupted, naming the
 * signal; no temporary file is left. */
START_TEST(test_stopped_by_signal) {
  static const int sigs[] = {SIGINT, SIGTERM, SIGHUP};
  static const char *const names[] = {"SIGINT", "SIGTERM", "SIGHUP"};
  const int sig = sigs[_i];
  child c;
  start(&c, two_records, -1, true, NULL);
  char log[8192];
  await_line(&c, "[1/1] mlp cpu/openblas", 2, log, sizeof log);
  ck_assert_int_eq(kill(c.pid, sig), 0);
  drain(&c, log, sizeof log);
  const int status = finish(&c);
  ck_assert_msg(WIFSIGNALED(status) && WTERMSIG(status) == sig, "%s: status 0x%x; stderr:\n%s",
                names[_i], (unsigned)status, log);
  cJSON *root = NULL;
  const char *st[4];
  const int n = results_statuses(&c, "p.json", st, 4, &root);
  ck_assert_msg(n == 2 && strcmp(st[0], "ok") == 0 && strcmp(st[1], "interrupted") == 0,
                "%s: %d records (%s, %s)", names[_i], n, n > 0 ? st[0] : "-", n > 1 ? st[1] : "-");
  const cJSON *second = cJSON_GetArrayItem(cJSON_GetObjectItem(root, "records"), 1);
  const char *reason = cJSON_GetStringValue(cJSON_GetObjectItem(second, "reason"));
  ck_assert_msg(reason && strstr(reason, names[_i]), "reason: %s", reason ? reason : "null");
  ck_assert_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(root, "schema")),
                   CG_REPORT_SCHEMA);
  cJSON_Delete(root);
  char *csv = child_file(&c, "p.csv");
  ck_assert_msg(strstr(csv, "\"ok\"") && strstr(csv, "\"interrupted\""), "p.csv:\n%s", csv);
  free(csv);
  ck_assert_msg(strstr(log, "stopped; the results files hold the 1 record finished"),
                "stderr:\n%s", log);
  expect_no_temporary(&c);
  cg_test_rmtree(c.dir);
}
END_TEST

/* --record-timeout: the second record runs past it; the run stops with exit status 5, the
 * table printed and the files holding both records, the second interrupted as timed out. */
START_TEST(test_record_timeout) {
  const char *args[32];
  int n = 0;
  for (; two_records[n]; ++n) args[n] = two_records[n];
  args[n++] = "--record-timeout";
  args[n++] = "1.5";
  args[n] = NULL;
  child c;
  char *err = NULL;
  const int status = run(args, -1, NULL, &c, &err);
  ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 5, "status 0x%x; stderr:\n%s",
                (unsigned)status, err);
  ck_assert_msg(strstr(err, "ran longer than --record-timeout 1.5 s: stopped"), "stderr:\n%s",
                err);
  cJSON *root = NULL;
  const char *st[4];
  const int count = results_statuses(&c, "p.json", st, 4, &root);
  ck_assert_msg(count == 2 && strcmp(st[0], "ok") == 0 && strcmp(st[1], "interrupted") == 0,
                "%d records", count);
  const cJSON *second = cJSON_GetArrayItem(cJSON_GetObjectItem(root, "records"), 1);
  const char *reason = cJSON_GetStringValue(cJSON_GetObjectItem(second, "reason"));
  ck_assert_msg(reason && strstr(reason, "timed out"), "reason: %s", reason ? reason : "null");
  cJSON_Delete(root);
  char *out = child_file(&c, "stdout");
  ck_assert_msg(strstr(out, "cpu      openblas  interrupted"), "stdout:\n%s", out);
  free(out);
  expect_no_temporary(&c);
  free(err);
  cg_test_rmtree(c.dir);
}
END_TEST

/* A process killed outright (as by a driver's crash) while its second record runs leaves the
 * files with its first record, written when the second started. */
START_TEST(test_killed_keeps_finished_records) {
  child c;
  start(&c, two_records, -1, true, NULL);
  char log[8192];
  await_line(&c, "[1/1] mlp cpu/openblas", 2, log, sizeof log);
  ck_assert_int_eq(kill(c.pid, SIGKILL), 0);
  drain(&c, log, sizeof log);
  const int status = finish(&c);
  ck_assert(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
  cJSON *root = NULL;
  const char *st[4];
  const int n = results_statuses(&c, "p.json", st, 4, &root);
  ck_assert_msg(n == 1 && strcmp(st[0], "ok") == 0, "%d records in p.json", n);
  cJSON_Delete(root);
  char *csv = child_file(&c, "p.csv");
  ck_assert_msg(strstr(csv, "\"ok\"") && !strstr(csv, "interrupted"), "p.csv:\n%s", csv);
  free(csv);
  cg_test_rmtree(c.dir);
}
END_TEST

/* ---- the environment ---- */

/* A home that cannot hold the drivers' caches (as root /nonexistent can be made, a path under a
 * file cannot), or none at all: list says where the caches go instead and succeeds. */
START_TEST(test_home_unusable) {
  const char *bad = getuid() == 0 ? "HOME=/dev/null/home" : "HOME=/nonexistent";
  const char *const unusable[] = {bad, "XDG_CACHE_HOME", NULL};
  const char *const unset[] = {"HOME", "XDG_CACHE_HOME", NULL};
  const char *const *const envs[] = {unusable, unset};
  const char *const list[] = {"list", NULL};
  for (int k = 0; k < 2; ++k) {
    child c;
    char *err = NULL;
    const int status = run(list, -1, envs[k], &c, &err);
    ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "%s: status 0x%x:\n%s",
                  envs[k][0], (unsigned)status, err);
    ck_assert_msg(strstr(err, "the drivers' kernel caches cannot be kept in") &&
                      strstr(err, "clgauge-cache-") && strstr(err, "XDG_CACHE_HOME"),
                  "%s: stderr:\n%s", envs[k][0], err);
    free(err);
    cg_test_rmtree(c.dir);
  }
}
END_TEST

/* ---- several devices in one run ---- */

static int json_int(const cJSON *obj, const char *key) {
  const cJSON *v = cJSON_GetObjectItem(obj, key);
  return cJSON_IsNumber(v) ? v->valueint : -1;
}

/* `matmul --device all` under env: the results file lists the run's devices; the cpu backend
 * ran once; every listed device has its records of each OpenCL backend, ok and verified, and a
 * table of its own on stdout; a platform that lists no device has its records skipped, saying
 * so. Returns the number of listed devices, and into *pocl PoCL's. */
static int expect_all_devices(const char *const *env, int *pocl) {
  const char *const args[] = {"matmul", "--n", "9", "--runs", "3", "--loops", "1", "--device",
                              "all", "--json", "p.json", "--quiet", NULL};
  child c;
  char *err = NULL;
  const int status = run(args, -1, env, &c, &err);
  ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "status 0x%x; stderr:\n%s",
                (unsigned)status, err);
  cJSON *root = NULL;
  const char *st[64];
  const int n = results_statuses(&c, "p.json", st, 64, &root);
  ck_assert_msg(n > 0 && n <= 64, "%d records", n);
  char *out = child_file(&c, "stdout");
  const cJSON *devices = cJSON_GetObjectItem(root, "devices");
  ck_assert(cJSON_IsArray(devices));
  int listed = 0, ndevices = 0;
  for (const cJSON *d = devices->child; d; d = d->next, ++ndevices) {
    const bool is_listed = cJSON_IsTrue(cJSON_GetObjectItem(d, "listed"));
    const int index = json_int(d, "index");
    const char *platform = cJSON_GetStringValue(cJSON_GetObjectItem(d, "platform"));
    ck_assert_ptr_nonnull(platform);
    ck_assert_msg(!is_listed || (cJSON_GetStringValue(cJSON_GetObjectItem(d, "driver_version")) &&
                                 cJSON_GetStringValue(cJSON_GetObjectItem(d, "opencl_version"))),
                  "device %d without its versions", index);
    listed += is_listed;
    if (is_listed && strstr(platform, "Portable Computing Language")) ++*pocl;
    /* every device variant of matmul (clblast's sgemm, cl's kernels) on each */
    const int per_device = cg_test_variant_count("matmul", true);
    int records = 0;
    for (const cJSON *r = cJSON_GetObjectItem(root, "records")->child; r; r = r->next) {
      const cJSON *dev = cJSON_GetObjectItem(r, "device");
      const char *status_text = cJSON_GetStringValue(cJSON_GetObjectItem(r, "status"));
      const char *reason = cJSON_GetStringValue(cJSON_GetObjectItem(r, "reason"));
      if (is_listed && json_int(dev, "index") == index) {
        records++;
        ck_assert_msg(strcmp(status_text, "ok") == 0, "device %d: %s: %s", index, status_text,
                      reason ? reason : "");
        const cJSON *verify = cJSON_GetObjectItem(cJSON_GetObjectItem(r, "phases"), "verify");
        ck_assert(cJSON_IsNumber(cJSON_GetObjectItem(verify, "rel_error")));
      } else if (!is_listed && cJSON_IsNull(cJSON_GetObjectItem(dev, "index")) &&
                 strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(r, "backend")), "cpu") != 0 &&
                 strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(dev, "platform")), platform) ==
                     0) {
        records++;
        ck_assert_str_eq(status_text, "skipped");
        ck_assert_msg(reason && strstr(reason, "lists no device"), "reason: %s",
                      reason ? reason : "null");
      }
    }
    ck_assert_msg(records == per_device, "device %d (%s): %d records, not %d", index, platform,
                  records, per_device);
    char head[64];
    if (is_listed) {
      snprintf(head, sizeof head, "\nmatmul on device %d, ", index);
      ck_assert_msg(strstr(out, head), "no table for device %d; stdout:\n%s", index, out);
    }
  }
  int cpu = 0;
  for (const cJSON *r = cJSON_GetObjectItem(root, "records")->child; r; r = r->next)
    cpu += strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(r, "backend")), "cpu") == 0;
  ck_assert_msg(cpu == 1, "the cpu backend ran %d times", cpu);
  ck_assert_msg(n == 1 + cg_test_variant_count("matmul", true) * ndevices,
                "%d records for %d devices", n, ndevices);
  cJSON_Delete(root);
  free(out);
  free(err);
  cg_test_rmtree(c.dir);
  return listed;
}

/* The CPU drivers here: PoCL and Mesa's rusticl (Clover, where it lists no device, skipped). */
START_TEST(test_all_cpu_drivers) {
  const char *const env[] = {"RUSTICL_ENABLE=llvmpipe", NULL};
  int pocl = 0;
  const int listed = expect_all_devices(env, &pocl);
  ck_assert_msg(listed >= 2, "PoCL and rusticl expected, %d devices listed", listed);
}
END_TEST

/* Two devices of one driver: PoCL's pthread and basic. */
START_TEST(test_two_pocl_devices) {
  /* rusticl stays enabled: without a device of its own it leaks a block at its start (seen
   * under LeakSanitizer), which would fail the sanitized run for no fault of ours */
  const char *const env[] = {"POCL_DEVICES=pthread basic", "RUSTICL_ENABLE=llvmpipe", NULL};
  int pocl = 0;
  const int listed = expect_all_devices(env, &pocl);
  ck_assert_msg(pocl == 2, "POCL_DEVICES='pthread basic': %d PoCL devices listed (%d in all)", pocl,
                listed);
}
END_TEST

/* ---- the time budget ---- */

/* A budget far below one run: every record stops after run 0 and two steady runs, says so, and
 * is still verified against the reference of the runs it ran (the trainings' losses and final
 * weights, saxpy's y after fewer updates: a reference of every run asked for would fail them). */
START_TEST(test_budget_cuts_runs) {
  static const char *const cmds[][16] = {
      {"mlp", "--batch", "5", "--din", "9", "--hidden", "7", "--dout", "3", "--iters", "40",
       "--print-every", "4", NULL},
      {"linear", "--samples", "77", "--features", "6", "--classes", "3", "--epochs", "10", NULL},
      {"saxpy", "--n", "1003", "--runs", "10", "--warmup", "1", NULL},
  };
  for (int k = 0; k < 3; ++k) {
    const char *args[32];
    int n = 0;
    for (; cmds[k][n]; ++n) args[n] = cmds[k][n];
    const char *const tail[] = {"--budget-s", "1e-9", "--json", "p.json", "--quiet", NULL};
    for (int t = 0; tail[t]; ++t) args[n++] = tail[t];
    args[n] = NULL;
    child c;
    char *err = NULL;
    const int status = run(args, -1, NULL, &c, &err);
    ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "%s: status 0x%x; stderr:\n%s",
                  cmds[k][0], (unsigned)status, err);
    cJSON *root = NULL;
    const char *st[16];
    const int count = results_statuses(&c, "p.json", st, 16, &root);
    ck_assert_msg(count >= 3, "%s: %d records", cmds[k][0], count);
    for (const cJSON *r = cJSON_GetObjectItem(root, "records")->child; r; r = r->next) {
      const char *name = cJSON_GetStringValue(cJSON_GetObjectItem(r, "backend"));
      const cJSON *budget = cJSON_GetObjectItem(r, "budget");
      ck_assert_msg(strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(r, "status")), "ok") == 0,
                    "%s %s: %s", cmds[k][0], name,
                    cJSON_GetStringValue(cJSON_GetObjectItem(r, "reason")));
      ck_assert_msg(cJSON_IsTrue(cJSON_GetObjectItem(budget, "cut")), "%s %s: not cut",
                    cmds[k][0], name);
      ck_assert_int_eq(json_int(budget, "runs_asked"), 10);
      ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItem(r, "runs")), 3);
      if (strcmp(name, "cpu") != 0) {
        const cJSON *verify = cJSON_GetObjectItem(cJSON_GetObjectItem(r, "phases"), "verify");
        ck_assert_msg(cJSON_IsNumber(cJSON_GetObjectItem(verify, "rel_error")),
                      "%s %s: not verified", cmds[k][0], name);
      }
    }
    char *out = child_file(&c, "stdout");
    ck_assert_msg(strstr(out, "3 of 10 runs"), "%s: stdout:\n%s", cmds[k][0], out);
    free(out);
    cJSON_Delete(root);
    free(err);
    cg_test_rmtree(c.dir);
  }
}
END_TEST

Suite *cg_front_suite(void) {
  Suite *s = suite_create("front");
  TCase *tc = tcase_create("stdout");
  tcase_add_test(tc, test_closed_pipe);
  tcase_add_test(tc, test_full_disk);
  tcase_set_timeout(tc, 120);
  suite_add_tcase(s, tc);
  tc = tcase_create("stopped");
  tcase_add_loop_test(tc, test_stopped_by_signal, 0, 3);
  tcase_add_test(tc, test_record_timeout);
  tcase_add_test(tc, test_killed_keeps_finished_records);
  tcase_set_timeout(tc, 180);
  suite_add_tcase(s, tc);
  tc = tcase_create("environment");
  tcase_add_test(tc, test_home_unusable);
  tcase_set_timeout(tc, 120);
  suite_add_tcase(s, tc);
  tc = tcase_create("devices");
  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, test_all_cpu_drivers);
  tcase_add_test(tc, test_two_pocl_devices);
  suite_add_tcase(s, tc);
  tc = tcase_create("budget");
  tcase_add_test(tc, test_budget_cuts_runs);
  tcase_set_timeout(tc, 120);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return cg_test_main(cg_front_suite, false); }
