/* SPDX-License-Identifier: MIT */
/*
 * probe.h - what every escape probe shares.
 *
 * A probe attempts ONE escape and ends with exactly one line on stdout:
 *   CONTAINED <why>   exit 0: the attempt failed (with the exact errno name)
 *   ESCAPED <what>    exit 1: it worked
 *   NA <reason>       exit 2: it cannot be tried here (no such ABI, no tty)
 * t/escape/run checks from outside wherever it can and overrides the claim
 * when the outside disagrees.  Probes aim only at the fixtures the harness
 * made, named in the environment (ESC_*): they stay harmless when they win.
 */
#ifndef STOCKADE_ESCAPE_PROBE_H
#define STOCKADE_ESCAPE_PROBE_H

#include <errno.h>
#include <stddef.h>
#include <sys/socket.h>
#include <sys/types.h>

enum { PROBE_CONTAINED = 0, PROBE_ESCAPED = 1, PROBE_NA = 2 };

_Noreturn void contained(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
_Noreturn void escaped(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
_Noreturn void na(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* "EROFS" for EROFS: exact, and the same on every libc locale. */
const char *ename(int err);

/* The fixture the harness named in the environment; NA when it did not. */
const char *fixture(const char *name);
/* $ESC_OUT/<rel>, the stand-in for "outside the sandbox". */
const char *outside(const char *rel);
/* $ESC_WS/scratch/<rel>: a directory inside the workspace the probe may
 * write to (Landlock profiles refuse new entries at a protected root's top). */
const char *scratch(const char *rel);
long fixture_long(const char *name);

/* The marker line probes write into outside files: never a real payload. */
extern const char probe_marker[];

/* Write the marker through fd; ESCAPED if it lands, else CONTAINED naming
 * `what` and the errno. */
_Noreturn void write_or_contained(int fd, const char *what);

/* The victim process the harness started ($ESC_VICTIM); CONTAINED when
 * that pid names another process here (a pid namespace reuses numbers). */
pid_t victim_pid(void);
/* The address of the victim's flag, from $ESC_STATE/victim.addr, and the
 * value the probes write there (the victim logs any change). */
unsigned long victim_flag_addr(void);
#define VICTIM_TAMPERED 0x0bad
#define VICTIM_INTACT 0x5afe

/* The harness's listener for `family` (AF_INET: 127.0.0.1, AF_INET6: ::1)
 * on port $portvar, as a sockaddr; NA when the harness has none. */
socklen_t listener_addr(int family, const char *portvar, struct sockaddr_storage *ret);
/* socket() + connect() (1 s at most) to it, or CONTAINED naming `what`. */
int connect_listener(int family, int type, const char *portvar, const char *what);
/* Wait up to ms for a reply on a connected datagram socket: ESCAPED on an
 * answer, CONTAINED on an error or silence. */
_Noreturn void await_echo(int fd, int ms, const char *what);

/* --- io_uring without liburing (raw syscalls, one request at a time) --- */
struct ring;
/* NULL and errno set when no ring can be made. */
struct ring *ring_open(void);
/* After ring_open failed: NA when the host has no io_uring at all, else
 * CONTAINED with the errno. */
_Noreturn void ring_unavailable(void);
/* Submit one SQE built by the caller, wait for its CQE; returns cqe.res
 * (a negative errno on failure). */
struct io_uring_sqe *ring_sqe(struct ring *r);
int ring_submit_wait(struct ring *r);

#endif
