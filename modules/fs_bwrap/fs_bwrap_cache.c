/* SPDX-License-Identifier: MIT */
/*
 * What the probes learnt, kept per boot: `bwrap --version` and the namespace
 * trial fork and exec on every run otherwise (about 8 ms of a 40 ms start,
 * bench/startup).  The key is everything the answer depends on: the boot,
 * our uid, our user, mount and pid namespaces (a container, a masked /proc),
 * the seccomp filters on us (Docker's profile), the userns sysctls and the
 * bwrap file itself (device, inode, size, mtime, ctime).
 *
 * Why a stale or forged entry cannot weaken the sandbox: claiming that
 * namespaces work when they do not makes bwrap fail and the run stop (242);
 * claiming they do not makes this line fail, and a `sufficient` fs_bwrap
 * hands over to the next module, whose coverage the core still checks.
 * The file lives in the user's runtime (or cache) directory, which the
 * sandboxed command cannot write.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/stk_path.h"
#include "fs_bwrap_internal.h"

/* The runtime directory first (per boot, like the answer), else the cache. */
static int cache_path(char *buf, size_t n)
{
        const char *rt = getenv("XDG_RUNTIME_DIR");
        int k;

        if (!rt || rt[0] != '/')
                return stk_path_stockade_cache(buf, n, "");
        k = snprintf(buf, n, "%s/stockade", rt);
        return k < 0 || (size_t) k >= n ? -ENAMETOOLONG : 0;
}

static int boot_id(char ret[40])
{
        FILE *f = fopen("/proc/sys/kernel/random/boot_id", "re");
        int ok = f && fscanf(f, "%36s", ret) == 1;

        if (f)
                fclose(f);
        return ok ? 0 : -EIO;
}

static void read_first_word(const char *path, char *buf, size_t n)
{
        FILE *f = fopen(path, "re");

        if (!f || !fgets(buf, (int) n, f))
                snprintf(buf, n, "-");
        buf[strcspn(buf, " \n")] = '\0';
        if (f)
                fclose(f);
}

static void ns_id(const char *name, char *buf, size_t n)
{
        char path[64];
        ssize_t k;

        snprintf(path, sizeof(path), "/proc/self/ns/%s", name);
        k = readlink(path, buf, n - 1);
        buf[k > 0 ? k : 0] = '\0';
}

/* "Seccomp_filters:" of /proc/self/status: filters stacked on us. */
static int seccomp_filters(void)
{
        char line[256];
        int n = -1;
        FILE *f = fopen("/proc/self/status", "re");

        while (f && fgets(line, sizeof(line), f))
                if (sscanf(line, "Seccomp_filters: %d", &n) == 1)
                        break;
        if (f)
                fclose(f);
        return n;
}

/* The machine's side of the key. */
static int env_key(char *buf, size_t n)
{
        char id[40], user[64], mnt[64], pid[64], max_ns[32], aa[32], clone[32];
        int k;

        if (boot_id(id) < 0)
                return -EIO;
        ns_id("user", user, sizeof(user));
        ns_id("mnt", mnt, sizeof(mnt));
        ns_id("pid", pid, sizeof(pid));
        read_first_word("/proc/sys/user/max_user_namespaces", max_ns, sizeof(max_ns));
        read_first_word("/proc/sys/kernel/apparmor_restrict_unprivileged_userns", aa, sizeof(aa));
        read_first_word("/proc/sys/kernel/unprivileged_userns_clone", clone, sizeof(clone));
        k = snprintf(buf, n, "%s uid=%u %s %s %s seccomp=%d userns=%s,%s,%s", id, (unsigned) geteuid(), user, mnt,
                     pid, seccomp_filters(), max_ns, aa, clone);
        return k < 0 || (size_t) k >= n ? -ENAMETOOLONG : 0;
}

/* The key: everything that would change the answer. */
int fs_bwrap_cache_key(int bwrap_fd, char *buf, size_t n)
{
        char env[400];
        struct stat st;
        int k;

        if (env_key(env, sizeof(env)) < 0 || fstat(bwrap_fd, &st) < 0)
                return -EIO;
        k = snprintf(buf, n, "v1 %s bwrap=%llu:%llu:%lld:%lld.%ld:%lld.%ld", env,
                     (unsigned long long) st.st_dev, (unsigned long long) st.st_ino, (long long) st.st_size,
                     (long long) st.st_mtim.tv_sec, st.st_mtim.tv_nsec, (long long) st.st_ctim.tv_sec,
                     st.st_ctim.tv_nsec);
        return k < 0 || (size_t) k >= n ? -ENAMETOOLONG : 0;
}

/* 1 and the answer when the file holds this key, 0 when not. */
int fs_bwrap_cache_read(const char *key, int *ret_version, struct fs_bwrap_ns_probe *ret_ns)
{
        char dir[4096], path[4200], line[1024];
        size_t klen = strlen(key);
        struct fs_bwrap_ns_probe ns;
        int version, n;
        FILE *f;

        if (cache_path(dir, sizeof(dir)) < 0 || snprintf(path, sizeof(path), "%s/fs_bwrap.probe", dir) < 0)
                return 0;
        f = fopen(path, "re");
        if (!f)
                return 0;
        n = fgets(line, sizeof(line), f) != NULL;
        fclose(f);
        if (!n || strncmp(line, key, klen) != 0 || line[klen] != ' ')
                return 0;
        n = 0;
        if (sscanf(line + klen, " version=%d stage=%d err=%d%n", &version, &ns.stage, &ns.err, &n) != 3 ||
            n == 0 || (line[klen + (size_t) n] != '\n' && line[klen + (size_t) n] != '\0') || version <= 0 || ns.err < 0)
                return 0;
        *ret_version = version;
        *ret_ns = ns;
        return 1;
}

/* Best effort: a cache that cannot be written only costs the next run time. */
void fs_bwrap_cache_write(const char *key, int version, const struct fs_bwrap_ns_probe *ns)
{
        char dir[4096], path[4200], tmp[4300];
        FILE *f;
        int fd;

        if (cache_path(dir, sizeof(dir)) < 0)
                return;
        /* ~/.cache itself may be missing: make the parent, then ours. */
        char *slash = strrchr(dir, '/');
        if (slash && slash != dir) {
                *slash = '\0';
                (void) mkdir(dir, 0700); /* EEXIST is the usual case */
                *slash = '/';
        }
        if (mkdir(dir, 0700) < 0 && errno != EEXIST)
                return;
        snprintf(path, sizeof(path), "%s/fs_bwrap.probe", dir);
        snprintf(tmp, sizeof(tmp), "%s/.fs_bwrap.probe.%d", dir, (int) getpid());
        fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
        if (fd < 0)
                return;
        f = fdopen(fd, "w");
        if (!f) {
                close(fd);
                (void) unlink(tmp);
                return;
        }
        fprintf(f, "%s version=%d stage=%d err=%d\n", key, version, ns->stage, ns->err);
        if (fclose(f) != 0 || rename(tmp, path) < 0)
                (void) unlink(tmp); /* the next run probes again */
}
