/* SPDX-License-Identifier: MIT */
/* A credential in the environment: the harness exported
 * ESCAPE_FIXTURE_TOKEN (a *_TOKEN name, like GITHUB_TOKEN). */
#include <stdlib.h>
#include <string.h>
#include "probe.h"

int main(void)
{
        const char *v = getenv("ESCAPE_FIXTURE_TOKEN");

        if (!v)
                contained("ESCAPE_FIXTURE_TOKEN is not in the environment");
        escaped("ESCAPE_FIXTURE_TOKEN is in the environment (%zu bytes)", strlen(v));
}
