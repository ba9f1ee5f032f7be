/* Which functions a program runs, in the order each first runs: preloaded
 * (LD_PRELOAD) into the executable named by TRAP_EXE, it puts a breakpoint
 * (int3) on the first byte of each function listed in TRAP_FUNCS (offsets
 * from the executable's load address, u64 little-endian, sorted). A hit
 * notes the function, puts its byte back and runs it on. Every second the
 * offsets hit so far are written to TRAP_OUT.<pid>, one per line (hex), in
 * the order they were first hit. For `cargo xtask startup-order` only: the
 * executable's code pages it patches become private copies. */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

static unsigned long base, text_start, text_end;
static unsigned long *offsets;
static long count;
static unsigned char *original;
static _Atomic unsigned char *hit;
static unsigned int *order;
static _Atomic unsigned int hits;

static long find(unsigned long offset) {
  long lo = 0, hi = count - 1;
  while (lo <= hi) {
    long mid = lo + (hi - lo) / 2;
    if (offsets[mid] == offset) return mid;
    if (offsets[mid] < offset) lo = mid + 1; else hi = mid - 1;
  }
  return -1;
}

static void on_trap(int sig, siginfo_t *info, void *context) {
  (void)sig; (void)info;
  ucontext_t *uc = context;
  unsigned long at = uc->uc_mcontext.gregs[REG_RIP] - 1;
  long i = at >= base ? find(at - base) : -1;
  if (i < 0) { /* not ours: the default action, as without us */
    signal(SIGTRAP, SIG_DFL);
    return;
  }
  /* Two threads may trap on one function at once: the first restores it. */
  if (!atomic_exchange(&hit[i], 1)) {
    *(volatile unsigned char *)at = original[i];
    order[atomic_fetch_add(&hits, 1)] = (unsigned int)i;
  }
  uc->uc_mcontext.gregs[REG_RIP] = at;
}

static void write_out(void) {
  char path[4096];
  snprintf(path, sizeof path, "%s.%d", getenv("TRAP_OUT"), getpid());
  FILE *f = fopen(path, "w");
  if (!f) return;
  unsigned int n = atomic_load(&hits);
  for (unsigned int k = 0; k < n; k++) fprintf(f, "%lx\n", offsets[order[k]]);
  fclose(f);
}

static void *writer(void *unused) {
  (void)unused;
  for (;;) { sleep(1); write_out(); }
  return NULL;
}

__attribute__((constructor)) static void start(void) {
  const char *list = getenv("TRAP_FUNCS"), *want = getenv("TRAP_EXE");
  if (!list || !want || !getenv("TRAP_OUT")) return;
  char exe[4096];
  ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (len < 0) return;
  exe[len] = 0;
  if (!strstr(exe, want)) return;
  FILE *maps = fopen("/proc/self/maps", "r");
  char line[8192];
  while (maps && fgets(line, sizeof line, maps)) {
    unsigned long from, to, file_offset;
    char perms[8], path[4096] = "";
    if (sscanf(line, "%lx-%lx %7s %lx %*s %*s %4095s", &from, &to, perms, &file_offset, path) < 4 || strcmp(path, exe)) continue;
    if (file_offset == 0 && !base) base = from;
    if (perms[2] == 'x') { text_start = from; text_end = to; }
  }
  if (maps) fclose(maps);
  FILE *f = fopen(list, "rb");
  if (!f || !text_end) return;
  fseek(f, 0, SEEK_END);
  long bytes = ftell(f);
  fseek(f, 0, SEEK_SET);
  offsets = malloc(bytes);
  count = (long)fread(offsets, 8, bytes / 8, f);
  fclose(f);
  original = malloc(count);
  hit = calloc(count, 1);
  order = calloc(count, sizeof *order);
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_trap;
  sa.sa_flags = SA_SIGINFO | SA_NODEFER;
  sigaction(SIGTRAP, &sa, NULL);
  mprotect((void *)text_start, text_end - text_start, PROT_READ | PROT_WRITE | PROT_EXEC);
  for (long i = 0; i < count; i++) {
    unsigned char *p = (unsigned char *)(base + offsets[i]);
    if ((unsigned long)p < text_start || (unsigned long)p >= text_end) { hit[i] = 1; continue; }
    original[i] = *p;
    *p = 0xCC;
  }
  pthread_t t;
  pthread_create(&t, NULL, writer, NULL);
}
