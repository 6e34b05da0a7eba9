/* SPDX-License-Identifier: MIT */
/* The status channel between the command's side and the supervisor. */
#pragma once
#include <sys/types.h>

enum core_status_kind {
        CORE_STATUS_NONE = 0,
        CORE_STATUS_READY,      /* about to execve the command (sender pid attached) */
        CORE_STATUS_FAIL_SETUP, /* the sandbox could not be set up */
        CORE_STATUS_FAIL_EXEC,  /* the command could not be executed */
        CORE_STATUS_FD,         /* an fd for a module's supervise_fd (text: the module) */
        CORE_STATUS_HANDOFF,    /* supervisor to child: a prepare hook's result (its own framing) */
};

struct core_status_msg {
        int kind;
        int err;                /* positive errno */
        char text[496];
};

/* Send (best effort: the supervisor may be gone) and receive; recv returns
 * 1 with a message, 0 when nothing is pending, -ESHUTDOWN once every
 * sender has closed its end, other -errno on error. */
void core_status_send(int fd, enum core_status_kind kind, int err, const char *fmt, ...)
        __attribute__((format(printf, 4, 5)));
/* An fd for the supervisor: 0 or -errno (here it matters: fail closed). */
int core_status_send_fd(int fd, int passed, const char *module);
/* *ret_fd is -1 unless the message carried one. */
int core_status_recv(int fd, struct core_status_msg *ret, pid_t *ret_pid, int *ret_fd);

/* The other way, supervisor to child (ABI 1.4 prepare): what the prepare
 * hook of in-sandbox line `ordinal` handed over, or its error (positive
 * errno), one message each.  The child's read waits. */
int core_status_send_handoff(int fd, int ordinal, int err, const void *data, size_t len);
/* *ret_data is malloc()ed, NULL when len is 0.  0 or -errno. */
int core_status_recv_handoff(int fd, int *ret_ordinal, int *ret_err, void **ret_data, size_t *ret_len);
