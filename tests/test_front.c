/* Check suite of the clgauge program as a process: what a shell can do to it that a command-line
 * test cannot (a closed pipe, a full disk, signals while it runs, a missing home directory),
 * and what it leaves behind: its exit status or signal, its results files, no temporary files.
 * Runs the cpu backend, so it needs no OpenCL device (those parts that need one skip). */
#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

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
    /* what a shell hands on: default dispositions */
    signal(SIGPIPE, SIG_DFL);
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

Suite *cg_front_suite(void) {
  Suite *s = suite_create("front");
  TCase *tc = tcase_create("stdout");
  tcase_add_test(tc, test_closed_pipe);
  tcase_add_test(tc, test_full_disk);
  tcase_set_timeout(tc, 120);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return cg_test_main(cg_front_suite, false); }
