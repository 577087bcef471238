/* The backtrace handler of the night's device calls: preloaded (LD_PRELOAD) into a test or
 * clgauge, it prints the frames of a SIGSEGV, SIGBUS or SIGABRT to stderr before the default
 * action. Built into the bundle before a call:
 *   gcc -shared -fPIC -O1 -o .device/segv.so bench/results/2026-12-04-h200-night/backtrace.c */
#define _GNU_SOURCE
#include <execinfo.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

static void on_signal(int sig) {
  static const char head[] = "\n*** signal caught, backtrace:\n";
  (void)!write(2, head, sizeof head - 1);
  void *frames[64];
  backtrace_symbols_fd(frames, backtrace(frames, 64), 2);
  signal(sig, SIG_DFL);
  raise(sig);
}

__attribute__((constructor)) static void install(void) {
  static char stack[1 << 16]; /* the main thread's frames even when its stack overflowed */
  const stack_t ss = {.ss_sp = stack, .ss_size = sizeof stack};
  sigaltstack(&ss, NULL);
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_signal;
  sa.sa_flags = SA_ONSTACK;
  sigaction(SIGSEGV, &sa, NULL);
  sigaction(SIGBUS, &sa, NULL);
  sigaction(SIGABRT, &sa, NULL);
}
