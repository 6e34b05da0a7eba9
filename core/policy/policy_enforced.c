/* SPDX-License-Identifier: MIT */
/*
 * A setting that no stack line enforces is an error (issue 13, §6): under
 * `default`, `network: { mode: proxy, allow: [...] }` gave a command no
 * network at all while `check` said ok and `explain` showed the proxy and
 * its list.  What the coverage check cannot see (cover bits say what is
 * kept out, not what a proxy lets through) is judged here, on the stack's
 * lines, once every layer is in: the setting, where it was set, the
 * profile, and what would enforce it.
 *
 * The network destinations are decided in the egress phase (a proxy's
 * line: net_proxy in the shipped `proxy` profile), so:
 *   - network.mode: proxy needs an egress line;
 *   - network.allow means something only in proxy mode (off reaches
 *     nothing, on everything), network.deny in proxy mode and under off
 *     (where it holds anyway), never under on;
 *   - network.proxy_port is the port of that proxy.
 * A stack that builds no sandbox (full-access) is exempt: explain says so.
 */
#include <stdio.h>

#include "policy_internal.h"
#include "util/util.h"

#define ENFORCER "an egress line, net_proxy's in the proxy profile (--profile proxy)"

static bool has_phase(const struct core_policy *p, enum stk_phase phase)
{
        for (size_t i = 0; i < p->n_lines; i++)
                if (p->lines[i].phase == phase)
                        return true;
        return false;
}

static void unenforced(struct ploader *l, const struct core_origin *o, const char *setting, const char *why)
{
        perr_origin(l, o, "%s is set but not enforced by profile %s: %s; expected it only where a line "
                    "enforces it (%s), or the setting removed", setting, l->p->profile, why, ENFORCER);
}

static void list_needs_proxy(struct ploader *l, const struct core_list *list, const char *setting, bool off_holds)
{
        const struct core_policy *p = l->p;

        if (list->n && p->network != STK_NET_PROXY && !(off_holds && p->network == STK_NET_OFF))
                unenforced(l, &list->items[0].origin, setting,
                           p->network == STK_NET_OFF ? "with network.mode: off nothing is reachable"
                                                     : "with network.mode: on everything is reachable");
}

int pcheck_enforced(struct ploader *l)
{
        const struct core_policy *p = l->p;
        bool egress = has_phase(p, STK_PHASE_EGRESS);

        if (core_policy_no_sandbox(p))
                return 0;
        if (p->network == STK_NET_PROXY && !egress)
                unenforced(l, &p->network_origin, "network.mode: proxy",
                           "no line of its stack is in the egress phase, so the command would have no network at all");
        list_needs_proxy(l, &p->net_allow, "network.allow", false);
        list_needs_proxy(l, &p->net_deny, "network.deny", true);
        if (p->proxy_port && !(p->network == STK_NET_PROXY && egress))
                unenforced(l, &p->proxy_port_origin, "network.proxy_port", "no proxy runs");
        return 0;
}
