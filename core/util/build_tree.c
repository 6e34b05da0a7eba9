/* SPDX-License-Identifier: MIT */
/*
 * Whether this binary may trust the build tree it was made in (its modules,
 * tools and escape suite) besides the compiled-in installed directories.
 *
 * Only a development build may: this file is compiled twice
 * (mk/core.mk), with STK_BUILD_DIR into the binaries the build tree runs
 * ($(B)/stockade, its tools and tests) and without it into the ones `make
 * install` installs ($(B)/inst/), so an installed binary has no path of
 * the build tree in it, trusts only what is installed, and is the same
 * bytes whichever directory it was built in.
 */
#include <limits.h>

#include "os/os.h"
#include "util/util.h"

#ifdef STK_BUILD_DIR
static bool has_prefix(const char *s, const char *dir)
{
        size_t n = strlen(dir);

        return strncmp(s, dir, n) == 0;
}

/* Only the binaries this build tree made: stockade, its tools, its test
 * programs (a copy of stockade elsewhere is an installed one). */
static bool self_in_build_tree(void)
{
        char self[PATH_MAX];

        if (os_self_path(self, sizeof(self)) < 0)
                return false;
        return streq(self, STK_BUILD_DIR "/stockade") || has_prefix(self, STK_BUILD_DIR "/tools/") ||
               has_prefix(self, STK_BUILD_DIR "/t/");
}
#endif

const char *core_build_tree(void)
{
#ifdef STK_BUILD_DIR
        return self_in_build_tree() ? STK_BUILD_DIR : NULL;
#else
        return NULL;
#endif
}

bool core_running_from_build_tree(void)
{
        return core_build_tree() != NULL;
}
