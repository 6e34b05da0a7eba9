/* SPDX-License-Identifier: MIT */
/*
 * A warm session (`stockade mcp`, `stockade serve`): the policy resolved and
 * the modules loaded once, each command still a run of its own.  What a
 * previous command could have changed is looked at again before each
 * command (stockade-serve(1)):
 *   - every policy file, read or a layer's that could be (the system file
 *     and drop-in directory, the user file, the project's .stockade.yaml),
 *     by identity: device, inode, size, mtime and ctime to the nanosecond,
 *     or its absence.  Any difference reloads the policy and the modules,
 *     as a cold run would;
 *   - the protected paths and nested repositories are re-scanned (the
 *     settings rebuilt), and the run gets a new id for its audit records.
 */
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core.h"
#include "os/loop.h"
#include "util/util.h"

#ifdef __APPLE__ /* its struct stat names the nanosecond times so */
#define st_mtim st_mtimespec
#define st_ctim st_ctimespec
#endif

struct core_file_id {
        char *path;
        bool exists;
        dev_t dev;
        ino_t ino;
        off_t size;
        struct timespec mtime, ctime;
};

static void file_id(const char *path, struct core_file_id *id)
{
        struct stat st;

        id->exists = stat(path, &st) == 0;
        if (!id->exists)
                return;
        id->dev = st.st_dev, id->ino = st.st_ino, id->size = st.st_size;
        id->mtime = st.st_mtim, id->ctime = st.st_ctim;
}

static bool same_id(const struct core_file_id *a, const struct core_file_id *b)
{
        if (a->exists != b->exists)
                return false;
        return !a->exists || (a->dev == b->dev && a->ino == b->ino && a->size == b->size &&
                              a->mtime.tv_sec == b->mtime.tv_sec && a->mtime.tv_nsec == b->mtime.tv_nsec &&
                              a->ctime.tv_sec == b->ctime.tv_sec && a->ctime.tv_nsec == b->ctime.tv_nsec);
}

static void ids_free(struct core_warm *w)
{
        for (size_t i = 0; i < w->n_ids; i++)
                free(w->ids[i].path);
        free(w->ids);
        w->ids = NULL;
        w->n_ids = 0;
}

static int ids_add(struct core_warm *w, const char *path)
{
        struct core_file_id *n;

        if (path[0] != '/') /* <builtin>/..., <command line>: nothing a command can change */
                return 0;
        n = realloc(w->ids, (w->n_ids + 1) * sizeof(*n));
        if (!n)
                return -ENOMEM;
        w->ids = n;
        n[w->n_ids] = (struct core_file_id) { .path = strdup(path) };
        if (!n[w->n_ids].path)
                return -ENOMEM;
        file_id(path, &n[w->n_ids++]);
        return 0;
}

/* The files a load of this profile reads or would read if they existed. */
static int record_ids(struct core_warm *w)
{
        const struct core_policy *p = w->policy;
        _cleanup_free_ char *sys = NULL, *dropins = NULL, *user = NULL, *user_file = NULL, *project = NULL;
        int r = core_user_dir(&user);

        if (r >= 0 && (asprintf(&sys, "%s/stockade/%s.yaml", STK_SYSCONFDIR, p->profile) < 0 ||
                       asprintf(&dropins, "%s/stockade/%s.d", STK_SYSCONFDIR, p->profile) < 0 ||
                       asprintf(&project, "%s/.stockade.yaml", p->workspace) < 0 ||
                       (user && asprintf(&user_file, "%s/%s.yaml", user, p->profile) < 0)))
                r = -ENOMEM;
        for (size_t i = 0; r >= 0 && i < p->n_files; i++)
                r = ids_add(w, p->files[i].value);
        if (r >= 0 && !w->opts.policy_file)
                r = ids_add(w, sys);
        if (r >= 0 && !w->opts.policy_file)
                r = ids_add(w, dropins);
        if (r >= 0 && user_file && !w->opts.file_alone)
                r = ids_add(w, user_file);
        if (r >= 0 && !w->opts.file_alone)
                r = ids_add(w, project);
        return r;
}

static bool ids_unchanged(const struct core_warm *w)
{
        for (size_t i = 0; i < w->n_ids; i++) {
                struct core_file_id now = { 0 };
                file_id(w->ids[i].path, &now);
                if (!same_id(&now, &w->ids[i]))
                        return false;
        }
        return true;
}

static void unload(struct core_warm *w)
{
        w->run = core_run_free(w->run);
        w->policy = core_policy_free(w->policy);
        ids_free(w);
}

static int load(struct core_warm *w)
{
        int status;

        if (core_load_policy(&w->opts, &w->policy) < 0)
                return STK_EXIT_POLICY;
        w->loads++;
        status = core_open_run(w->policy, &w->run);
        if (status == 0 && record_ids(w) < 0)
                status = STK_EXIT_SETUP;
        if (status)
                unload(w);
        return status;
}

/* The settings again, from the same policy: a previous command may have
 * made a repository or a protected name that the scan now finds. */
static int refresh(struct core_run *run)
{
        struct core_settings fresh;
        int r = core_settings_build(run->policy, &fresh);

        if (r < 0) {
                core_settings_done(&fresh);
                return r;
        }
        core_settings_done(&run->settings);
        run->settings = fresh;
        run->protected_paths = strv_free(run->protected_paths);
        core_make_run_id(run->run_id);
        /* A run's own counts start again with each command: the questions
         * refused under approval.ask_limit (three denied calls of an MCP
         * session refused the fourth unasked, found by a helper), and the
         * supervisor's refusals and the timeout of `run`. */
        run->asks_refused = 0;
        run->ask_limit_said = false;
        run->timed_out = false;
        run->denied_eperm = run->denied_eacces = run->denied_erofs = run->denied_other = 0;
        return 0;
}

int core_warm_get(struct core_warm *w, struct core_run **ret)
{
        int status = 0;

        if (w->run && !ids_unchanged(w)) {
                core_log(STK_LOG_INFO, "a policy file changed: the policy and its modules are loaded again");
                unload(w);
        }
        if (!w->run)
                status = load(w);
        else if (refresh(w->run) < 0)
                status = STK_EXIT_SETUP;
        if (status == 0)
                *ret = w->run;
        return status;
}

int core_warm_forked(struct core_run *run)
{
        loop_free(run->loop); /* the server's copy: the fork watches fds of its own */
        run->loop = NULL;
        /* The client is the server's: an egress question here has nobody
         * to elicit from (the stdio it spoke on are the command's pipes). */
        run->client_confirm = NULL;
        run->client_confirm_data = NULL;
        return core_supervisor_prepare(run);
}

/* Only the modules: the rest of the run (the audit log's summary above all)
 * is the server's, which goes on.  What a module's fini undoes here is what
 * this run made (fs_guard: the command's entries in /dev/shm; fs_bwrap: its
 * mount points); state the server made stays its own (fs_landlock keeps a
 * TMPDIR its owner pid made). */
_Noreturn void core_warm_worker_exit(struct core_run *run, int status)
{
        for (size_t i = 0; i < run->n_modules; i++)
                core_module_unload(&run->modules[i]);
        _exit(status);
}

void core_warm_done(struct core_warm *w)
{
        unload(w);
}
