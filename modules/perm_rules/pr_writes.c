/* SPDX-License-Identifier: MIT */
/*
 * perm_rules: a file written and then run in the same string (issue 14).
 *
 * `echo 'sudo id' > x.sh; sh x.sh` hides its command in a file the rules
 * never read.  Code already in the workspace is the sandbox's business
 * (issue 14's clarifications), but a file this very string writes is part
 * of the string: running it is ASK.  Writes are redirection targets and
 * the outputs of tee, cp, mv, ln, install, dd of=, sed -i, curl -o and
 * wget -O; an expansion as a target, a download to its remote name and an
 * archive extracted may be any file.  Runs are a path as the program, a
 * shell's or an interpreter's script file, `source`, and the files a tool
 * reads as code: a Makefile for make, package.json for npm, build.rs for
 * cargo, conftest.py for pytest.
 */
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "pr_internal.h"

static const char *normal(const char *path)
{
        while (path[0] == '.' && path[1] == '/')
                for (path += 2; *path == '/'; path++)
                        ;
        return path;
}

void pr_written_add(struct pr_written *wr, const char *path)
{
        char *copy;

        if (!*path || strncmp(path, "/dev/", 5) == 0)
                return;
        if (wr->n >= PR_MAX_WRITTEN) {
                wr->overflow = true;
                return;
        }
        copy = strdup(normal(path));
        if (!copy) {
                wr->overflow = true;   /* out of memory: every later run is suspect */
                return;
        }
        wr->paths[wr->n++] = copy;
}

void pr_written_done(struct pr_written *wr)
{
        for (size_t i = 0; i < wr->n; i++)
                free(wr->paths[i]);
        *wr = (struct pr_written){ 0 };
}

static void add_word(struct pr_written *wr, const struct pr_word *w)
{
        if (w->flags & PR_W_DYN)
                wr->dyn = true;
        else
                pr_written_add(wr, w->text);
}

/* The value of option `opt` (short -o, -oVALUE, or long --output[=V]) at
 * word i, or NULL; *i moves past a separate value. */
static const struct pr_word *opt_value(const struct pr_word *w, size_t n, size_t *i, const char *shorts,
                                       const char *const *longs, struct pr_word *scratch)
{
        const char *t = w[*i].text;

        if (t[0] == '-' && t[1] != '-' && t[1] && strchr(shorts, t[strlen(t) - 1]) && strlen(t) == 2) {
                if (*i + 1 >= n)
                        return NULL;
                return &w[++*i];
        }
        if (t[0] == '-' && t[1] && t[1] != '-' && strchr(shorts, t[1]) && t[2]) {
                *scratch = (struct pr_word){ (char *) t + 2, w[*i].flags };
                return scratch;
        }
        for (const char *const *l = longs; *l; l++) {
                size_t len = strlen(*l);
                if (strncmp(t, *l, len) != 0)
                        continue;
                if (t[len] == '=') {
                        *scratch = (struct pr_word){ (char *) t + len + 1, w[*i].flags };
                        return scratch;
                }
                if (t[len] == '\0' && *i + 1 < n)
                        return &w[++*i];
        }
        return NULL;
}

static void download_writes(struct pr_written *wr, const struct pr_word *w, size_t n, bool wget)
{
        static const char *const curl_long[] = { "--output", NULL }, *const wget_long[] = { "--output-document", NULL };
        bool named = false, remote_name = false;
        struct pr_word scratch;

        for (size_t i = 1; i < n; i++) {
                const struct pr_word *v = opt_value(w, n, &i, wget ? "O" : "o", wget ? wget_long : curl_long, &scratch);
                if (v) {
                        named = true;
                        if (strcmp(v->text, "-") != 0)
                                add_word(wr, v);
                } else if (!wget && (strcmp(w[i].text, "-O") == 0 || strcmp(w[i].text, "--remote-name") == 0 ||
                                     strcmp(w[i].text, "--remote-name-all") == 0 || strstr(w[i].text, "J"))) {
                        remote_name |= w[i].text[0] == '-';
                }
        }
        if (remote_name || (wget && !named))
                wr->dyn = true;   /* saved under the remote name */
}

/* Operands (words not starting with '-', after `--` all words) from i. */
static void operand_writes(struct pr_written *wr, const struct pr_word *w, size_t n, size_t from)
{
        bool opts = true;

        for (size_t i = from; i < n; i++) {
                if (opts && strcmp(w[i].text, "--") == 0) {
                        opts = false;
                        continue;
                }
                if (opts && w[i].text[0] == '-' && !(w[i].flags & PR_W_DYN))
                        continue;
                add_word(wr, &w[i]);
                if (!(w[i].flags & PR_W_DYN) && strchr(w[i].text, '/'))
                        pr_written_add(wr, pr_basename(w[i].text));   /* cp a/x.sh . writes x.sh */
        }
}

void pr_written_from_words(struct pr_written *wr, const struct pr_word *w, size_t n)
{
        const char *p = pr_basename(w[0].text);

        if (strcmp(p, "tee") == 0 || strcmp(p, "cp") == 0 || strcmp(p, "mv") == 0 || strcmp(p, "ln") == 0 ||
            strcmp(p, "install") == 0 || strcmp(p, "rsync") == 0 || strcmp(p, "sponge") == 0) {
                operand_writes(wr, w, n, 1);
        } else if (strcmp(p, "sed") == 0 || strcmp(p, "perl") == 0) {
                for (size_t i = 1; i < n; i++)
                        if (w[i].text[0] == '-' && (strchr(w[i].text, 'i') || strncmp(w[i].text, "--in-place", 10) == 0))
                                operand_writes(wr, w, n, 1);
        } else if (strcmp(p, "dd") == 0) {
                for (size_t i = 1; i < n; i++)
                        if (strncmp(w[i].text, "of=", 3) == 0)
                                pr_written_add(wr, w[i].text + 3);
        } else if (strcmp(p, "curl") == 0 || strcmp(p, "wget") == 0) {
                download_writes(wr, w, n, p[0] == 'w');
        } else if (strcmp(p, "unzip") == 0 || strcmp(p, "cpio") == 0 || strcmp(p, "7z") == 0 ||
                   (strcmp(p, "tar") == 0 && n > 1 && (strchr(w[1].text, 'x') || strstr(w[1].text, "--extract")))) {
                wr->dyn = true;   /* an archive's files */
        }
}

static bool was_written(const struct pr_written *wr, const char *path)
{
        const char *p = normal(path), *base = pr_basename(p);

        for (size_t i = 0; i < wr->n; i++)
                if (strcmp(wr->paths[i], p) == 0 || strcmp(pr_basename(wr->paths[i]), base) == 0)
                        return true;
        return false;
}

/* Files a tool reads as code (fnmatch on a written file's basename). */
struct code_files {
        const char *prog;          /* fnmatch */
        const char *const *files;
};
#define F(...) (const char *const[]){ __VA_ARGS__, NULL }
static const struct code_files code_files[] = {
        { "make", F("Makefile", "makefile", "GNUmakefile", "*.mk") },
        { "gmake", F("Makefile", "makefile", "GNUmakefile", "*.mk") },
        { "npm", F("package.json", ".npmrc") }, { "yarn", F("package.json", ".yarnrc*", ".npmrc") },
        { "pnpm", F("package.json", ".npmrc") }, { "bun", F("package.json", "bunfig.toml") },
        { "npx", F("package.json", ".npmrc") }, { "cargo", F("build.rs", "Cargo.toml", "config.toml", "config") },
        { "pytest", F("conftest.py", "pytest.ini", "tox.ini", "setup.cfg", "pyproject.toml") },
        { "tox", F("tox.ini", "setup.cfg", "pyproject.toml", "conftest.py") }, { "just", F("justfile", "Justfile") },
        { "cmake", F("CMakeLists.txt", "*.cmake") }, { "go", F("*.go", "go.mod") }, { "rake", F("Rakefile") },
        { "gradle", F("build.gradle*", "settings.gradle*") }, { "mvn", F("pom.xml") },
};

/* Does `prog` read code from a file this string wrote (any, when a write
 * was an expansion or a download)? */
static bool tool_code_written(const struct pr_written *wr, const char *prog)
{
        for (size_t k = 0; k < sizeof(code_files) / sizeof(code_files[0]); k++) {
                if (fnmatch(code_files[k].prog, prog, 0) != 0)
                        continue;
                if (wr->dyn || wr->overflow)
                        return true;
                for (size_t i = 0; i < wr->n; i++)
                        for (const char *const *f = code_files[k].files; *f; f++)
                                if (fnmatch(*f, pr_basename(wr->paths[i]), 0) == 0)
                                        return true;
        }
        return false;
}

/* The script file an interpreter or a shell runs, or NULL. */
static const struct pr_word *script_operand(const struct pr_word *w, size_t n)
{
        static const char *const interps[] = { "python*", "pypy*", "perl*", "ruby*", "node", "nodejs", "php*", "lua*",
                                               "Rscript", "julia", "tclsh*", "deno", "bun", "source", ".", NULL };
        const char *p = pr_basename(w[0].text);
        struct pr_shell sh;
        bool interp = false;

        pr_shell_args(w, n, &sh);
        if (sh.kind == PR_SHELL_FILE)
                return &w[sh.script];
        for (const char *const *i = interps; *i && !interp; i++)
                interp = fnmatch(*i, p, 0) == 0;
        if (!interp)
                return NULL;
        for (size_t i = 1; i < n; i++) {
                const char *t = w[i].text;
                if (t[0] != '-' || (w[i].flags & PR_W_DYN))
                        return &w[i];
                if (strcmp(t, "-m") == 0 || strcmp(t, "-c") == 0 || strcmp(t, "-e") == 0 || strcmp(t, "-E") == 0 ||
                    strcmp(t, "--eval") == 0 || strcmp(t, "-r") == 0)
                        return NULL;
        }
        return NULL;
}

const char *pr_runs_written(const struct pr_written *wr, const struct pr_word *w, size_t n)
{
        const struct pr_word *file = NULL;
        const char *prog = pr_basename(w[0].text);
        bool module_pytest = false;

        if (wr->n == 0 && !wr->dyn && !wr->overflow)
                return NULL;
        if (strchr(w[0].text, '/'))
                file = &w[0];
        else
                file = script_operand(w, n);
        if (file) {
                if (wr->dyn || wr->overflow || (file->flags & PR_W_DYN) || was_written(wr, file->text))
                        return "runs a file this string wrote (or may have written): its commands are not in the string";
                return NULL;
        }
        for (size_t i = 1; i + 1 < n; i++)
                module_pytest |= strcmp(w[i].text, "-m") == 0 && strcmp(w[i + 1].text, "pytest") == 0;
        if (tool_code_written(wr, module_pytest ? "pytest" : prog))
                return "runs a tool whose code file (Makefile, package.json, ...) this string wrote";
        return NULL;
}

/* cwd/path with `.` and `..` components resolved (no symlinks: the
 * protected list is canonical, and the sandbox enforces it anyway). */
char *pr_path_join(const char *cwd, const char *path)
{
        struct stk_buf b = { 0 };
        const char *parts[2] = { path[0] == '/' ? "" : cwd, path };

        for (int k = 0; k < 2; k++)
                for (const char *c = parts[k]; *c;) {
                        size_t len = strcspn(c, "/");
                        if (len == 2 && c[0] == '.' && c[1] == '.') {
                                while (b.len && b.s[b.len - 1] != '/')
                                        b.len--;
                                if (b.len)
                                        b.len--;
                        } else if (len && !(len == 1 && c[0] == '.')) {
                                stk_buf_addc(&b, '/');
                                stk_buf_add(&b, c, len);
                        }
                        c += len;
                        c += *c == '/';
                }
        if (b.len == 0)
                stk_buf_addc(&b, '/');
        return stk_buf_take(&b);
}

const char *pr_path_under(const char *abs, const char *const *list)
{
        for (; list && *list; list++) {
                size_t n = strlen(*list);
                while (n > 1 && (*list)[n - 1] == '/')
                        n--;
                if (strncmp(abs, *list, n) == 0 && (abs[n] == '\0' || abs[n] == '/' || n == 1))
                        return *list;
        }
        return NULL;
}
