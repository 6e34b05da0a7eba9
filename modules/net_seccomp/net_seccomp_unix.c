/* SPDX-License-Identifier: MIT */
/*
 * guard_unix, the supervisor's side: with the network off or through the
 * proxy, every connect() of the command arrives here as a seccomp user notification (a read-only
 * bind does not stop connect() to a socket file, so /run/docker.sock or a
 * session bus would otherwise be reachable).
 *
 * No check-then-use race: the supervisor never lets the kernel redo the
 * call with memory the command can still change.  It copies the address
 * once, resolves it itself inside the command's root (openat2 on
 * /proc/PID/root, RESOLVE_IN_ROOT), decides on the inode it opened, and
 * connects the command's own socket (pidfd_getfd: the same open file)
 * through /proc/self/fd/N of that inode.  Abstract addresses resolve in the
 * socket's network namespace, so they are connected only when the command
 * has one of its own.
 *
 * What may be reached: a socket file on a writable mount of the command's
 * view (its workspace, its private /tmp) when it has a mount namespace of
 * its own; without one, a socket beneath a writable root.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <linux/sockios.h>
#include <unistd.h>
#include <linux/openat2.h>
#include <linux/seccomp.h>
#include <seccomp.h>

#include "net_seccomp_internal.h"
#include "common/stk_path.h"

static int open_proc(pid_t pid, const char *what)
{
        char path[64];

        snprintf(path, sizeof(path), "/proc/%d/%s", (int) pid, what);
        return open(path, O_PATH | O_CLOEXEC);
}


/* The socket file, opened O_PATH inside the command's root (absolute) or
 * beneath its cwd (relative: no "..", no absolute symlink). */
static int resolve(pid_t pid, const char *path)
{
        struct open_how how = { .flags = O_PATH | O_CLOEXEC };
        int dfd = open_proc(pid, path[0] == '/' ? "root" : "cwd"), fd;

        if (dfd < 0)
                return -errno;
        how.resolve = path[0] == '/' ? RESOLVE_IN_ROOT : RESOLVE_BENEATH;
        how.resolve |= RESOLVE_NO_MAGICLINKS;
        fd = (int) syscall(SYS_openat2, dfd, path[0] == '/' ? path + 1 : path, &how, sizeof(how));
        if (fd < 0)
                fd = -errno;
        close(dfd);
        return fd;
}


/* unix_allow: the very inode of a listed path, as the supervisor sees it
 * now (no path string of the command's is trusted). */
static bool listed(const struct stat *st, const char *const *allow)
{
        struct stat a;

        for (size_t i = 0; allow && allow[i]; i++)
                if (stat(allow[i], &a) == 0 && S_ISSOCK(a.st_mode) && a.st_dev == st->st_dev && a.st_ino == st->st_ino)
                        return true;
        return false;
}

/* May the command reach the socket file open as `fd`? */
static bool may_reach(pid_t pid, int fd, const struct ns_unix_policy *pol)
{
        char real[PATH_MAX];
        struct statvfs sv;
        struct stat st;

        if (fstat(fd, &st) < 0 || !S_ISSOCK(st.st_mode))
                return false;
        if (listed(&st, pol->allow))
                return true;
        if (!stk_sc_same_ns(pid, "mnt"))
                /* The wrapper's mounts: everything outside its writable roots
                 * is a read-only bind (fs_bwrap), its private /tmp is not.
                 * A mount namespace the command made itself, with no wrapper
                 * (allow: [namespaces]), proves nothing: refused. */
                return pol->wrapped && fstatvfs(fd, &sv) == 0 && !(sv.f_flag & ST_RDONLY);
        return stk_sc_fd_path(fd, real, sizeof(real)) == 0 && stk_sc_beneath_any(real, pol->write);
}



/* Connect the command's socket `sockfd` ourselves; 0 or -errno for it. */
static int connect_for(pid_t pid, int sockfd, const struct sockaddr_un *sa, socklen_t len,
                       const struct ns_unix_policy *pol)
{
        struct sockaddr_un via = { .sun_family = AF_UNIX };
        int sock = stk_sc_fd_of(pid, sockfd), target = -1, r = sock < 0 ? sock : 0;

        if (r >= 0 && sa->sun_path[0] == '\0') {
                /* Abstract (or unnamed): resolved in the socket's network
                 * namespace; without one of its own the command would reach
                 * the host's abstract sockets through us. */
                r = stk_sc_same_ns(pid, "net") ? -EPERM : 0;
                if (r >= 0 && connect(sock, (const struct sockaddr *) sa, len) < 0)
                        r = -errno;
        } else if (r >= 0) {
                target = resolve(pid, sa->sun_path);
                r = target < 0 ? target : may_reach(pid, target, pol) ? 0 : -EACCES;
                snprintf(via.sun_path, sizeof(via.sun_path), "/proc/self/fd/%d", target);
                if (r >= 0 && connect(sock, (const struct sockaddr *) &via, sizeof(via)) < 0)
                        r = -errno;
        }
        if (target >= 0)
                close(target);
        if (sock >= 0)
                close(sock);
        return r;
}

/* The address, copied once from the command's memory. */
static int read_addr(const struct seccomp_notif *req, struct sockaddr_storage *ss, socklen_t *len)
{
        struct sockaddr_un *sa = (struct sockaddr_un *) ss;
        uint64_t want = req->data.args[2];
        struct iovec local = { ss, sizeof(*ss) }, remote = { (void *) (uintptr_t) req->data.args[1], 0 };
        ssize_t n;

        memset(ss, 0, sizeof(*ss));
        if (want < sizeof(sa_family_t) || want > sizeof(*ss))
                return -EINVAL;
        remote.iov_len = local.iov_len = (size_t) want;
        n = process_vm_readv(req->pid, &local, 1, &remote, 1, 0);
        if (n != (ssize_t) want)
                return -EFAULT;
        *len = (socklen_t) want;
        if (ss->ss_family != AF_UNIX)
                return 0;
        if (want > sizeof(*sa))
                return -EINVAL;
        /* sun_path need not be terminated: make our copy so, and a path
         * that fills the field is too long for our "/proc/self/fd" trick
         * only if it is a path; it stays as given for the checks. */
        if (want < sizeof(*sa))
                ((char *) sa)[want] = '\0';
        else
                sa->sun_path[sizeof(sa->sun_path) - 1] = '\0';
        return 0;
}

/* Network mode proxy: the one TCP destination is the proxy on loopback.
 * Landlock matches ports only, so without this the command could reach the
 * proxy's port number on any host. */
static bool is_proxy(const struct sockaddr_storage *ss, socklen_t len, const struct ns_unix_policy *pol)
{
        if (pol->proxy_port <= 0)
                return false;
        if (ss->ss_family == AF_INET && len >= sizeof(struct sockaddr_in)) {
                const struct sockaddr_in *a = (const struct sockaddr_in *) ss;
                return ntohs(a->sin_port) == pol->proxy_port && a->sin_addr.s_addr == htonl(INADDR_LOOPBACK);
        }
        return false; /* the proxy listens on 127.0.0.1 only */
}

/* Connect the command's TCP socket to the proxy ourselves, with our copy
 * of the address; 0 or -errno for it (EINPROGRESS for a non-blocking one). */
/* The address is on loopback (127/8, ::1): in a network namespace of the
 * command's own, the only interface. */
static bool is_loopback(const struct sockaddr_storage *ss, socklen_t len)
{
        if (ss->ss_family == AF_INET && len >= sizeof(struct sockaddr_in))
                return (ntohl(((const struct sockaddr_in *) ss)->sin_addr.s_addr) >> 24) == 127;
        if (ss->ss_family == AF_INET6 && len >= sizeof(struct sockaddr_in6)) {
                const struct in6_addr *a = &((const struct sockaddr_in6 *) ss)->sin6_addr;
                return IN6_IS_ADDR_LOOPBACK(a) ||
                       (IN6_IS_ADDR_V4MAPPED(a) && a->s6_addr[12] == 127);
        }
        return ss->ss_family == AF_UNSPEC; /* dissolving a UDP association */
}

static void describe(const struct sockaddr_storage *ss, char *buf, size_t size)
{
        char addr[INET6_ADDRSTRLEN] = "?";
        int port = 0;

        if (ss->ss_family == AF_INET) {
                const struct sockaddr_in *a = (const struct sockaddr_in *) ss;
                (void) inet_ntop(AF_INET, &a->sin_addr, addr, sizeof(addr));
                port = ntohs(a->sin_port);
        } else if (ss->ss_family == AF_INET6) {
                const struct sockaddr_in6 *a = (const struct sockaddr_in6 *) ss;
                (void) inet_ntop(AF_INET6, &a->sin6_addr, addr, sizeof(addr));
                port = ntohs(a->sin6_port);
        }
        snprintf(buf, size, "connect() to %s port %d", addr, port);
}

static void tell_refused(const struct ns_unix_policy *pol, const char *what)
{
        if (pol->refused)
                pol->refused(pol->userdata, what);
}

/* The socket itself (SIOCGSKNS: its own namespace, whichever process made
 * it) lives in a network namespace that is not ours: with ip_contained,
 * the wrapper's, where loopback is the only interface.  Any failure to
 * tell is "ours". */
static bool in_contained_ns(int sock, const struct ns_unix_policy *pol)
{
        struct stat theirs, ours;
        int ns;
        bool other;

        if (!pol->ip_contained)
                return false;
        ns = ioctl(sock, SIOCGSKNS);
        if (ns < 0)
                return false;
        other = fstat(ns, &theirs) == 0 && stat("/proc/self/ns/net", &ours) == 0 &&
                (theirs.st_ino != ours.st_ino || theirs.st_dev != ours.st_dev);
        close(ns);
        return other;
}

/* 0 when the command's IP socket may connect to `ss`, else -errno (and
 * the user told once). */
static int may_connect_inet(int sock, const struct sockaddr_storage *ss, socklen_t len,
                            const struct ns_unix_policy *pol)
{
        char what[128];
        int r = 0;

        if (in_contained_ns(sock, pol))
                /* Off the loopback nothing is routed there (ENETUNREACH,
                 * as the kernel would say), said once with the reason. */
                r = is_loopback(ss, len) || is_proxy(ss, len, pol) ? 0 : -ENETUNREACH;
        else if (pol->network != STK_NET_PROXY)
                r = -EAFNOSUPPORT;
        else if (ss->ss_family != AF_UNSPEC && !is_proxy(ss, len, pol))
                r = -EACCES;
        if (r < 0) {
                describe(ss, what, sizeof(what));
                tell_refused(pol, what);
        }
        return r;
}

static int connect_inet_for(pid_t pid, int sockfd, const struct sockaddr_storage *ss, socklen_t len,
                            const struct ns_unix_policy *pol)
{
        int sock = stk_sc_fd_of(pid, sockfd), r;

        if (sock < 0)
                return sock;
        r = may_connect_inet(sock, ss, len, pol);
        if (r >= 0 && connect(sock, (const struct sockaddr *) ss, len) < 0)
                r = -errno;
        close(sock);
        return r;
}

/* Connect for the command, or refuse: 0 or -errno for it. */
static int answer_connect(int listener, const struct seccomp_notif *req, const struct ns_unix_policy *pol)
{
        struct sockaddr_storage ss;
        socklen_t len = 0;
        int r = read_addr(req, &ss, &len);

        /* The pid may have been reused if the caller died since. */
        if (r >= 0 && seccomp_notify_id_valid(listener, req->id) < 0)
                r = -ESRCH;
        if (r >= 0 && ss.ss_family == AF_UNIX)
                r = connect_for(req->pid, (int) req->data.args[0], (const struct sockaddr_un *) &ss, len, pol);
        else if (r >= 0)
                r = connect_inet_for(req->pid, (int) req->data.args[0], &ss, len, pol);
        return r;
}

/* socket() of a family the network mode refuses (the table's notify rows):
 * the same EPERM, and the user is told why. */
static int answer_socket(const struct seccomp_notif *req, const struct ns_unix_policy *pol)
{
        char what[64];

        snprintf(what, sizeof(what), "socket(family %d)", (int) (req->data.args[0] & 0xffffffff));
        if ((req->data.args[0] & 0xffffffff) == AF_INET)
                snprintf(what, sizeof(what), "socket(AF_INET)");
        else if ((req->data.args[0] & 0xffffffff) == AF_INET6)
                snprintf(what, sizeof(what), "socket(AF_INET6)");
        tell_refused(pol, what);
        return -EPERM;
}

int ns_unix_answer(int listener, const struct seccomp_notif *req, const struct ns_unix_policy *pol,
                   struct seccomp_notif_resp *resp)
{
        struct stk_sc_caps caps = { .dropped = false };
        int r;

        if (req->data.nr == __NR_socket) {
                *resp = (struct seccomp_notif_resp) { .id = req->id, .error = answer_socket(req, pol) };
                return 0;
        }
        if (req->data.nr != __NR_connect)
                return 1;
        /* Everything we do for the command, the path lookups too, without
         * our capabilities: it has none (a root supervisor would otherwise
         * search directories the command cannot, and reach what it may
         * not). */
        r = stk_sc_caps_off(&caps);
        if (r >= 0)
                r = answer_connect(listener, req, pol);
        stk_sc_caps_on(&caps);
        resp->id = req->id;
        resp->val = 0;
        resp->error = r < 0 ? r : 0;
        resp->flags = 0;
        return 0;
}

int ns_unix_handle(int listener, const struct ns_unix_policy *pol)
{
        struct seccomp_notif *req = NULL;
        struct seccomp_notif_resp *resp = NULL;
        struct pollfd pfd = { .fd = listener, .events = POLLIN };
        int r;

        /* RECV blocks until a call arrives, and none will once every
         * filtered process is gone (POLLHUP): look before receiving. */
        if (poll(&pfd, 1, 0) < 0)
                return errno == EINTR ? 0 : -errno;
        if (!(pfd.revents & POLLIN))
                return pfd.revents & (POLLHUP | POLLERR) ? 1 : 0;
        if (seccomp_notify_alloc(&req, &resp) < 0)
                return -ENOMEM;
        /* The ioctl itself, not seccomp_notify_receive(): libseccomp folds
         * every failure into ECANCELED, and ENOENT (the caller died before
         * we looked) is routine, not an error. */
        memset(req, 0, sizeof(*req));
        if (ioctl(listener, SECCOMP_IOCTL_NOTIF_RECV, req) < 0) {
                r = errno == ENOENT || errno == EINTR ? 0 : -errno;
                seccomp_notify_free(req, resp);
                return r;
        }
        if (ns_unix_answer(listener, req, pol, resp) == 1)
                *resp = (struct seccomp_notif_resp) { .id = req->id, .error = -EPERM };
        (void) seccomp_notify_respond(listener, resp); /* ENOENT: the caller is gone */
        seccomp_notify_free(req, resp);
        return 0;
}
