/* SPDX-License-Identifier: MIT */
/*
 * `stockade caches list|clear`: the sandbox's own tool caches (`caches:`,
 * core/run/caches.c), one set per workspace or one shared, under
 * $XDG_CACHE_HOME/stockade/sandbox-caches.  Clearing removes a set with
 * stk_remove_tree_at: fd-relative and O_NOFOLLOW all the way down, so a
 * symlink a command left in its cache is unlinked, never followed.
 */
#include <dirent.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <sys/stat.h>

#include "cli.h"
#include "run/core.h"
#include "util/util.h"
#include "common/stk_remove_tree.h"

static void usage_caches(FILE *f)
{
        fprintf(f,
                "usage: stockade caches list\n"
                "       stockade caches [--workspace DIR] clear\n"
                "       stockade caches clear --shared | --all\n"
                "\n"
                "The tool caches (npm, pip, go, cargo, ...) that runs with `caches:` on write\n"
                "instead of the user's own, in $XDG_CACHE_HOME/stockade/sandbox-caches: one set\n"
                "per workspace (clear takes the current directory's unless --workspace), or\n"
                "the shared one.  The next run makes a cleared set anew, empty.\n");
}

/* Bytes beneath dfd, no symlink followed (for `list`). */
static unsigned long long tree_bytes(int dfd)
{
        unsigned long long total = 0;
        DIR *d = fdopendir(dfd);
        struct dirent *e;

        if (!d) {
                close(dfd);
                return 0;
        }
        while ((e = readdir(d))) {
                struct stat st;
                if (streq(e->d_name, ".") || streq(e->d_name, ".."))
                        continue;
                if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
                        continue;
                total += (unsigned long long) st.st_blocks * 512;
                if (S_ISDIR(st.st_mode)) {
                        int sub = openat(dirfd(d), e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
                        if (sub >= 0)
                                total += tree_bytes(sub);
                }
        }
        closedir(d);
        return total;
}

/* What a set is for: the note beside it, or "(shared)". */
static void set_owner(int base_fd, const char *set, char *buf, size_t size)
{
        char name[NAME_MAX + 1];
        ssize_t n = -1;
        int fd;

        snprintf(buf, size, "%s", streq(set, "shared") ? "(shared by every workspace)" : "(unknown workspace)");
        if (snprintf(name, sizeof(name), "%s.workspace", set) >= (int) sizeof(name))
                return;
        fd = openat(base_fd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
        if (fd >= 0) {
                n = read(fd, buf, size - 1);
                close(fd);
        }
        if (n > 0)
                buf[n] = '\0';
}

static int cmd_list(const char *base)
{
        DIR *d = opendir(base);
        struct dirent *e;
        int n = 0;

        if (!d) {
                if (errno != ENOENT) {
                        fprintf(stderr, "stockade caches: %s: %s\n", base, strerror(errno));
                        return 1;
                }
                printf("# %s: no cache sets yet\n", base);
                return 0;
        }
        printf("# %s\n", base);
        while ((e = readdir(d))) {
                char owner[PATH_MAX];
                struct stat st;
                int fd;

                if (e->d_name[0] == '.' || fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
                    !S_ISDIR(st.st_mode))
                        continue;
                fd = openat(dirfd(d), e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
                set_owner(dirfd(d), e->d_name, owner, sizeof(owner));
                printf("%-40s %8.1f MiB  %s\n", e->d_name, fd >= 0 ? (double) tree_bytes(fd) / 1048576.0 : 0.0, owner);
                n++;
        }
        closedir(d);
        if (n == 0)
                printf("# no cache sets yet\n");
        return 0;
}

static int clear_one(int base_fd, const char *base, const char *set)
{
        char note[NAME_MAX + 1];
        struct stat st;
        int r = fstatat(base_fd, set, &st, AT_SYMLINK_NOFOLLOW) < 0 ? -errno : stk_remove_tree_at(base_fd, set);

        if (r == -ENOENT) {
                printf("%s/%s: nothing to clear\n", base, set);
                r = 0;
        } else if (r < 0)
                fprintf(stderr, "stockade caches: removing %s/%s: %s\n", base, set, strerror(-r));
        else
                printf("cleared %s/%s\n", base, set);
        if (snprintf(note, sizeof(note), "%s.workspace", set) < (int) sizeof(note) &&
            unlinkat(base_fd, note, 0) < 0 && errno != ENOENT && r >= 0)
                r = -errno;
        return r;
}

static int clear_all(int base_fd, const char *base)
{
        DIR *d = fdopendir(dup(base_fd));
        struct dirent *e;
        int r = 0;

        if (!d)
                return -errno;
        while ((e = readdir(d))) {
                struct stat st;
                if (e->d_name[0] == '.' || fstatat(base_fd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
                    S_ISREG(st.st_mode))
                        continue;
                int q = clear_one(base_fd, base, e->d_name);
                r = r < 0 ? r : q;
        }
        closedir(d);
        return r;
}

/* The workspace as the policy's ${CWD} is: absolute and canonical. */
static int absolute_canonical(const char *dir, char **ret)
{
        char cwd[PATH_MAX], joined[PATH_MAX];

        if (dir[0] == '/')
                return path_canonicalize(dir, ret);
        if (!getcwd(cwd, sizeof(cwd)))
                return -errno;
        if (snprintf(joined, sizeof(joined), "%s/%s", cwd, dir) >= (int) sizeof(joined))
                return -ENAMETOOLONG;
        return path_canonicalize(joined, ret);
}

/* The set `clear` means: --all (NULL), --shared, or the workspace's. */
static int cmd_clear(const char *base, const char *workspace, bool shared, bool all)
{
        char set[128];
        char *canon = NULL;
        int base_fd, r = 0;

        base_fd = open(base, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (base_fd < 0) {
                if (errno == ENOENT) {
                        printf("# %s: no cache sets yet\n", base);
                        return 0;
                }
                fprintf(stderr, "stockade caches: %s: %s\n", base, strerror(errno));
                return 1;
        }
        if (all)
                r = clear_all(base_fd, base);
        else {
                r = shared ? 0 : absolute_canonical(workspace, &canon);
                if (r >= 0)
                        r = core_caches_set_name(shared ? "" : canon, shared, set, sizeof(set));
                if (r >= 0)
                        r = clear_one(base_fd, base, set);
                else
                        fprintf(stderr, "stockade caches: %s: %s\n", workspace, strerror(-r));
                free(canon);
        }
        close(base_fd);
        return r < 0 ? 1 : 0;
}

int cli_caches(int argc, char **argv)
{
        static const struct option opts[] = {
                { "workspace", required_argument, NULL, 'w' },
                { "shared", no_argument, NULL, 's' },
                { "all", no_argument, NULL, 'a' },
                { "help", no_argument, NULL, 'h' },
                { 0 },
        };
        const char *workspace = ".";
        bool shared = false, all = false;
        char base[PATH_MAX];
        int c;

        optind = 1;
        while ((c = getopt_long(argc, argv, "w:sah", opts, NULL)) != -1) {
                switch (c) {
                case 'w': workspace = optarg; break;
                case 's': shared = true; break;
                case 'a': all = true; break;
                case 'h': usage_caches(stdout); return 0;
                default: usage_caches(stderr); return STK_EXIT_USAGE;
                }
        }
        if (optind + 1 != argc || (shared && all) || (!streq(argv[optind], "list") && !streq(argv[optind], "clear"))) {
                usage_caches(stderr);
                return STK_EXIT_USAGE;
        }
        if (core_caches_base(base, sizeof(base)) < 0) {
                fprintf(stderr, "stockade caches: neither XDG_CACHE_HOME nor HOME is an absolute path\n");
                return STK_EXIT_USAGE;
        }
        return streq(argv[optind], "list") ? cmd_list(base) : cmd_clear(base, workspace, shared, all);
}
