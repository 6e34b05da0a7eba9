/* SPDX-License-Identifier: MIT */
/*
 * The trust rule for policy files (issue 13, §1; stk_trust.h): a system or
 * user layer file, `--policy FILE` and what they include decide what every
 * later run enforces, so whoever may rewrite one may switch the sandbox
 * off.  Each such file must be owned by root or by the user stockade runs
 * as and be writable by its owner alone, and so must every directory above
 * it (or be root-owned and sticky, as /tmp).  A 0666 file in
 * /etc/stockade/default.d/ was read silently before.
 *
 * The project layer is exempt: it is untrusted by design (tighten-only),
 * and it lives in the workspace the command may write anyway.  The
 * builtin layer is the binary itself (or a test's directory).
 */
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>

#include "common/stk_trust.h"
#include "policy_internal.h"
#include "util/util.h"

bool ptrust_layer(enum core_layer layer)
{
        return layer == CORE_LAYER_SYSTEM || layer == CORE_LAYER_USER;
}

static void refuse(struct ploader *l, const struct core_origin *o, const char *what, const char *path,
                   const struct stat *st, const char *why)
{
        uid_t uid = geteuid();

        if (st)
                perr_origin(l, o, "refusing policy file: %s %s is %s (owner uid %u, mode %04o); expected one "
                            "owned by root or uid %u and writable by its owner alone (chown, or chmod go-w %s)",
                            what, path, why, (unsigned) st->st_uid, (unsigned) (st->st_mode & 07777),
                            (unsigned) uid, path);
        else
                perr_origin(l, o, "refusing policy file: %s %s %s; expected a directory owned by root or uid %u "
                            "and writable by its owner alone", what, path, why, (unsigned) uid);
}

/* 0: trusted; 1: refused and reported. */
int ptrust_file(struct ploader *l, const struct core_origin *o, const char *canon, const struct stat *st)
{
        _cleanup_free_ char *dir = NULL;
        const char *why = NULL;
        struct stat dst;
        int r = stk_trust_stat(st, geteuid(), STK_TRUST_REGULAR, &why);

        if (r < 0) {
                refuse(l, o, "the file", canon, st, why);
                return 1;
        }
        r = stk_trust_ancestors(canon, geteuid(), &dir, &why);
        if (r == -ENOMEM)
                return r;
        if (r < 0) {
                /* for the message only: the check itself was on an fd */
                bool have = dir && lstat(dir, &dst) == 0;
                refuse(l, o, "its directory", dir ? dir : canon, have ? &dst : NULL, why);
                return 1;
        }
        return 0;
}
