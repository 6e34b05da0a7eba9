/* SPDX-License-Identifier: MIT */
/*
 * The kernel side of fs_landlock: ABI detection, the rights each ABI offers,
 * directory listing for the planner, and building + enforcing the ruleset
 * with raw syscalls (Debian has no liblandlock).
 *
 * Reference: Documentation/userspace-api/landlock.rst ("Landlock ABI
 * versions", "Backward and forward compatibility").
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fs_landlock_internal.h"

/* Not in glibc: thin wrappers so every call site checks a plain int. */
static int ll_create_ruleset(const struct ll_ruleset_attr *attr, size_t size, uint32_t flags)
{
        return (int)syscall(SYS_landlock_create_ruleset, attr, size, flags);
}

static int ll_add_rule(int ruleset_fd, int type, const void *attr)
{
        return (int)syscall(SYS_landlock_add_rule, ruleset_fd, type, attr, 0);
}

static int ll_restrict_self(int ruleset_fd, uint32_t flags)
{
        return (int)syscall(SYS_landlock_restrict_self, ruleset_fd, flags);
}

int ll_kernel_abi(void)
{
        int abi = ll_create_ruleset(NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);

        return abi < 0 ? -errno : abi;
}

uint64_t ll_abi_fs_rights(int abi)
{
        uint64_t m = (LANDLOCK_ACCESS_FS_MAKE_SYM << 1) - 1; /* ABI 1: bits 0..12 */

        if (abi >= 2)
                m |= LANDLOCK_ACCESS_FS_REFER;
        if (abi >= 3)
                m |= LANDLOCK_ACCESS_FS_TRUNCATE;
        if (abi >= 5)
                m |= LANDLOCK_ACCESS_FS_IOCTL_DEV;
        return abi >= 1 ? m : 0;
}

uint64_t ll_abi_net_rights(int abi)
{
        return abi >= 4 ? LANDLOCK_ACCESS_NET_BIND_TCP | LANDLOCK_ACCESS_NET_CONNECT_TCP : 0;
}

uint64_t ll_abi_scopes(int abi)
{
        return abi >= 6 ? LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET | LANDLOCK_SCOPE_SIGNAL : 0;
}

/* Which ABI first enforces each cover bit, and why.  WRITE and READ_ONLY
 * need ABI 3: before TRUNCATE was handled, truncate(2) of any file the user
 * may write (a read-only island, ~/.bashrc) was allowed.  PROCESS needs
 * signal scoping (6); ptrace of processes outside the domain is refused
 * from ABI 1 on. */
static const struct {
        uint32_t bit;
        int min_abi;
        const char *name;  /* as written in best_effort */
} covers[] = {
        { STK_COVER_WRITE,        3, "write" },
        { STK_COVER_READ_ONLY,    3, "read_only" },
        { STK_COVER_HIDE,         1, "hide" },
        { STK_COVER_PRIVATE_TMP,  3, "private_tmp" },
        { STK_COVER_NET_TCP,      4, "net_tcp" },
        { STK_COVER_NET_ABSTRACT, 6, "net_abstract" },
        { STK_COVER_PROCESS,      6, "process" },
};

int ll_cover_min_abi(uint32_t bit)
{
        for (size_t i = 0; i < sizeof(covers) / sizeof(covers[0]); i++)
                if (covers[i].bit == bit)
                        return covers[i].min_abi;
        return 0;
}

const char *ll_cover_name(uint32_t bit)
{
        for (size_t i = 0; i < sizeof(covers) / sizeof(covers[0]); i++)
                if (covers[i].bit == bit)
                        return covers[i].name;
        return "?";
}

uint32_t ll_abi_covers(int abi)
{
        uint32_t m = 0;

        for (size_t i = 0; i < sizeof(covers) / sizeof(covers[0]); i++)
                if (abi >= covers[i].min_abi && covers[i].bit != STK_COVER_PRIVATE_TMP)
                        m |= covers[i].bit;
        return m;
}

static enum ll_ent_type ent_type(int dfd, const struct dirent *de)
{
        struct stat st;

        switch (de->d_type) {
        case DT_DIR: return LL_ENT_DIR;
        case DT_LNK: return LL_ENT_LINK;
        case DT_UNKNOWN: break;
        default: return LL_ENT_FILE;
        }
        /* Some filesystems do not fill d_type.  If even lstat fails the entry
         * vanished: calling it a link makes the planner skip it. */
        if (fstatat(dfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
                return LL_ENT_LINK;
        return S_ISDIR(st.st_mode) ? LL_ENT_DIR : S_ISLNK(st.st_mode) ? LL_ENT_LINK : LL_ENT_FILE;
}

static int push_ent(struct ll_dirent **v, size_t *n, size_t *cap, const char *name, enum ll_ent_type t)
{
        if (*n == *cap) {
                size_t c = *cap ? *cap * 2 : 64;
                struct ll_dirent *nv = realloc(*v, c * sizeof(*nv));
                if (!nv)
                        return -ENOMEM;
                *v = nv;
                *cap = c;
        }
        (*v)[*n].name = strdup(name);
        if (!(*v)[*n].name)
                return -ENOMEM;
        (*v)[(*n)++].type = t;
        return 0;
}

int ll_list_dir(void *userdata, const char *dir, struct ll_dirent **ret, size_t *ret_n)
{
        struct ll_dirent *v = NULL;
        size_t n = 0, cap = 0;
        struct dirent *de;
        int r = 0, fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
        DIR *d;

        if (fd < 0) {
                if (errno != ENOENT && errno != ENOTDIR)
                        return -errno;
                *ret = NULL;    /* missing: nothing in it to grant */
                *ret_n = 0;
                return 0;
        }
        d = fdopendir(fd);
        if (!d) {
                r = -errno;
                close(fd);
                return r;
        }
        for (errno = 0; r == 0 && (de = readdir(d)); errno = 0) {
                if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
                        continue;
                r = push_ent(&v, &n, &cap, de->d_name, ent_type(dirfd(d), de));
        }
        if (r == 0 && errno != 0)
                r = -errno;
        closedir(d);
        if (r < 0) {
                ll_dirents_free(v, n);
                return r;
        }
        *ret = v;
        *ret_n = n;
        return 0;
}

/* One path rule.  O_NOFOLLOW: a symlink swapped in since planning must not
 * move the grant onto its target; the fd then names the link itself and we
 * skip it.  A path that vanished has nothing left to grant. */
static int add_path_rule(const struct ll_enforce *e, int ruleset_fd, const struct ll_rule *rule)
{
        struct landlock_path_beneath_attr pb = { 0 };
        struct stat st;
        int r = 0, fd = open(rule->path, O_PATH | O_CLOEXEC | O_NOFOLLOW);

        if (fd < 0) {
                if (errno == ENOENT)
                        return 0;
                r = -errno;
                e->log(e->log_userdata, STK_LOG_ERROR, "open(%s, O_PATH): %s", rule->path, strerror(-r));
                return r;
        }
        if (fstat(fd, &st) < 0) {
                r = -errno;
                e->log(e->log_userdata, STK_LOG_ERROR, "fstat(%s): %s", rule->path, strerror(-r));
                goto out;
        }
        pb.allowed_access = rule->access & ll_abi_fs_rights(e->abi);
        if (!S_ISDIR(st.st_mode))
                pb.allowed_access &= LL_FILE_RIGHTS;
        if (S_ISLNK(st.st_mode) || pb.allowed_access == 0)
                goto out;
        pb.parent_fd = fd;
        if (ll_add_rule(ruleset_fd, LL_RULE_PATH_BENEATH, &pb) < 0) {
                r = -errno;
                e->log(e->log_userdata, STK_LOG_ERROR, "landlock_add_rule(%s, 0x%llx): %s", rule->path,
                       (unsigned long long)pb.allowed_access, strerror(-r));
        }
out:
        close(fd);
        return r;
}

static int add_rules(const struct ll_enforce *e, int ruleset_fd)
{
        for (size_t i = 0; i < e->rules->n; i++) {
                int r = add_path_rule(e, ruleset_fd, &e->rules->v[i]);
                if (r < 0)
                        return r;
        }
        if (e->net.handle && e->net.proxy_port > 0) {
                struct ll_net_port_attr np = {
                        .allowed_access = LANDLOCK_ACCESS_NET_CONNECT_TCP,
                        .port = (uint64_t)e->net.proxy_port,
                };
                if (ll_add_rule(ruleset_fd, LL_RULE_NET_PORT, &np) < 0) {
                        int r = -errno;
                        e->log(e->log_userdata, STK_LOG_ERROR, "landlock_add_rule(tcp connect :%d): %s",
                               e->net.proxy_port, strerror(-r));
                        return r;
                }
        }
        return 0;
}

/* landlock_restrict_self() needs no_new_privs (or CAP_SYS_ADMIN, which we
 * must not rely on): set it, and read it back rather than trust prctl. */
static int set_no_new_privs(const struct ll_enforce *e)
{
        if (prctl(PR_SET_NO_NEW_PRIVS, 1L, 0L, 0L, 0L) < 0 ||
            prctl(PR_GET_NO_NEW_PRIVS, 0L, 0L, 0L, 0L) != 1) {
                int r = errno ? -errno : -EPERM;
                e->log(e->log_userdata, STK_LOG_ERROR, "prctl(PR_SET_NO_NEW_PRIVS): %s", strerror(-r));
                return r;
        }
        return 0;
}

int ll_enforce(const struct ll_enforce *e)
{
        struct ll_ruleset_attr attr = {
                .handled_access_fs = ll_abi_fs_rights(e->abi),
                .handled_access_net = e->net.handle ? ll_abi_net_rights(e->abi) : 0,
                .scoped = e->scopes & ll_abi_scopes(e->abi),
        };
        uint32_t flags = 0;
        int r, fd;

        if (e->abi < 1)
                return -EOPNOTSUPP;
        fd = ll_create_ruleset(&attr, sizeof(attr), 0);
        if (fd < 0) {
                r = -errno;
                e->log(e->log_userdata, STK_LOG_ERROR, "landlock_create_ruleset(fs=0x%llx net=0x%llx scoped=0x%llx): %s",
                       (unsigned long long)attr.handled_access_fs, (unsigned long long)attr.handled_access_net,
                       (unsigned long long)attr.scoped, strerror(-r));
                return r;
        }
        r = add_rules(e, fd);
        if (r >= 0)
                r = set_no_new_privs(e);
        /* ABI 7: by default the kernel audits denials only until the next
         * execve; the command is what we want to see (landlock.rst, "Logging"). */
        if (e->log_new_exec && e->abi >= 7)
                flags |= LANDLOCK_RESTRICT_SELF_LOG_NEW_EXEC_ON;
        if (r >= 0 && ll_restrict_self(fd, flags) < 0) {
                r = -errno;
                e->log(e->log_userdata, STK_LOG_ERROR, "landlock_restrict_self(flags=0x%x): %s", flags, strerror(-r));
        }
        close(fd);
        return r < 0 ? r : 0;
}
