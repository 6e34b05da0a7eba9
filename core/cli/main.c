/* SPDX-License-Identifier: MIT */
/* stockade(1): the command line. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <json-c/json.h>

#include "cli.h"
#include "doctor/doctor.h"
#include "os/os.h"
#include "run/core.h"
#include "util/util.h"
#include "common/stk_time.h"

extern char **environ;

static void usage_main(FILE *f)
{
        fprintf(f,
                "usage: stockade run [--profile P | --policy FILE] [--workspace DIR] [--write DIR] [--read-only]\n"
                "                    [--network off|proxy] [--allow-domain NAME] [--allow-env NAME] [--timeout SECONDS]\n"
                "                    [--json FILE] [--audit FILE] [-v] [--] CMD [ARG...]   (stockade run --help)\n"
                "       stockade check [--profile P | FILE...]\n"
                "       stockade explain [--profile P] [--policy FILE] [--workspace DIR] [--allow-broad-workspace] [--json] [--details] [-- CMD...]\n"
                "       stockade sh [OPTION...] -c STRING [ARG...]    (also as stockade-sh, stockade-bash)\n"
                "       stockade mcp [--profile P] [--policy FILE] [--workspace DIR]   (an MCP server on stdio)\n"
                "       stockade serve --socket PATH [--profile P] [--workspace DIR]   (the same, on a unix socket)\n"
                "       stockade doctor [--json]\n"
                "       stockade approvals [--file PATH] list | revoke N|KEY... | clear\n"
                "       stockade caches list | [--workspace DIR] clear | clear --shared|--all\n"
                "       stockade compare [--profile P ...] [--stack NAME|FILE ...] [--json] [--html FILE] [--runs N]\n"
                "       stockade log [--since T] [--denied] [--run ID] [--json] [FILE]\n"
                "       stockade import srt|codex [FILE] [--profile P] [--output FILE] [--force] [--dry-run]\n"
                "       stockade --version | --help\n"
                "\n"
                "Runs CMD inside the sandbox the profile's module stack builds.  Exit status:\n"
                "CMD's own (128+N for signal N), or %d denied by policy, %d policy error,\n"
                "%d sandbox setup failed, %d integrity check failed, %d usage.  See stockade(1).\n",
                STK_EXIT_DENIED, STK_EXIT_POLICY, STK_EXIT_SETUP, STK_EXIT_INTEGRITY, STK_EXIT_USAGE);
}

/* run --json FILE: opened before anything runs, so that a bad FILE stops
 * the run instead of losing its result; never the command's (CLOEXEC). */
static int open_result(const char *file)
{
        int fd = open(file, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOCTTY, 0600);

        if (fd < 0)
                fprintf(stderr, "stockade: --json %s: %s\n", file, strerror(errno));
        return fd;
}

static int run_one(struct cli_opts *o, char **cmd)
{
        _cleanup_close_ int result_fd = -1;
        struct core_policy *p = NULL;
        struct core_run *run = NULL;
        int64_t t0 = stk_now_ms();
        int status;

        if (o->json_file && (result_fd = open_result(o->json_file)) < 0)
                return STK_EXIT_USAGE;
        if (core_load_policy(&o->open, &p) < 0)
                return STK_EXIT_POLICY;
        status = core_open_run(p, &run);
        if (status == 0 && o->json_file && core_result_start(run) < 0)
                status = STK_EXIT_SETUP;
        if (status == 0) {
                run->timeout_s = o->timeout_s;
                status = core_run_command(run, cmd, environ);
                if (o->json_file && core_result_write(run, result_fd, status, stk_now_ms() - t0) < 0)
                        fprintf(stderr, "stockade: --json %s: %s\n", o->json_file, strerror(errno));
        }
        core_run_free(run);
        core_policy_free(p);
        return status;
}

static int cmd_run(int argc, char **argv)
{
        struct cli_opts o = { 0 };
        int i = cli_parse(argc, argv, CLI_RUN, &o), status;

        if (o.help) {
                cli_usage(stdout, CLI_RUN);
                status = 0;
        } else if (i < 0 || i >= argc) {
                if (i >= argc)
                        fprintf(stderr, "stockade run: no command given\n");
                cli_usage_hint(CLI_RUN);
                status = STK_EXIT_USAGE;
        } else {
                status = run_one(&o, argv + i);
        }
        cli_opts_done(&o);
        return status;
}

static int cmd_check(int argc, char **argv)
{
        struct cli_opts o = { 0 };
        int i = cli_parse(argc, argv, CLI_CHECK, &o), bad = 0;

        if (o.help || i < 0) {
                if (o.help)
                        cli_usage(stdout, CLI_CHECK);
                else
                        cli_usage_hint(CLI_CHECK);
                cli_opts_done(&o);
                return o.help ? 0 : STK_EXIT_USAGE;
        }
        if (i == argc) {
                bad = cli_check_one(&o);
                cli_opts_done(&o);
                return bad;
        }
        o.open.file_alone = true;
        for (; i < argc; i++) {
                o.open.policy_file = argv[i];
                bad |= cli_check_one(&o) != 0;
        }
        cli_opts_done(&o);
        return bad ? STK_EXIT_POLICY : 0;
}

int main(int argc, char **argv)
{
        if (argc >= 2 && streq(argv[1], "__inner"))
                return core_inner_main(argc, argv);
        if (cli_sh_shell(argv[0])) /* called as stockade-sh or stockade-bash */
                return cli_sh(argc, argv, cli_sh_shell(argv[0]));
        if (argc < 2 || streq(argv[1], "--help") || streq(argv[1], "-h") || streq(argv[1], "help")) {
                usage_main(argc < 2 ? stderr : stdout);
                return argc < 2 ? STK_EXIT_USAGE : 0;
        }
        if (streq(argv[1], "--version")) {
                printf("stockade %s (module ABI %d.%d, %s build)\n", STK_VERSION, STK_ABI_MAJOR, STK_ABI_MINOR, os_backend);
                return 0;
        }
        if (streq(argv[1], "run"))
                return cmd_run(argc - 1, argv + 1);
        if (streq(argv[1], "check"))
                return cmd_check(argc - 1, argv + 1);
        if (streq(argv[1], "explain"))
                return cli_explain(argc - 1, argv + 1);
        if (streq(argv[1], "doctor"))
                return doctor_main(argc - 1, argv + 1);
        if (streq(argv[1], "approvals"))
                return cli_approvals(argc - 1, argv + 1);
        if (streq(argv[1], "caches"))
                return cli_caches(argc - 1, argv + 1);
        if (streq(argv[1], "mcp"))
                return cli_mcp(argc - 1, argv + 1);
        if (streq(argv[1], "serve"))
                return cli_serve(argc - 1, argv + 1);
        if (streq(argv[1], "sh"))
                return cli_sh(argc - 1, argv + 1, "/bin/sh");
        if (streq(argv[1], "compare"))
                return cli_compare(argc - 1, argv + 1);
        if (streq(argv[1], "log"))
                return cli_log(argc - 1, argv + 1);
        if (streq(argv[1], "import"))
                return cli_import(argc - 1, argv + 1);
        fprintf(stderr, "stockade: unknown command \"%s\"\n", argv[1]);
        usage_main(stderr);
        return STK_EXIT_USAGE;
}
