#!/bin/sh
# The layering rule of docs/ARCHITECTURE.md ("Layers"), checked on every
# #include of the tree (mk/layers.sh), and shown to fail once: on a copy
# of the tree where core/util includes the run layer.
. "$(dirname "$0")/../lib.sh"

here=$(cd "$(dirname "$0")/../.." && pwd)
check_output "every include follows the layering rule" '^[0-9]+ files checked, 0 violations$' sh "$here/mk/layers.sh" "$here"

# The self-check: a copy with one forbidden edge, which must be named.
mkdir -p "$T_TMP/tree"
(cd "$here" && tar cf - docs/ARCHITECTURE.md lib core tools modules) | (cd "$T_TMP/tree" && tar xf -)
printf '#include "run/core.h"\n' >> "$T_TMP/tree/core/util/log.c"
check_status "a forbidden include fails the check" 1 sh "$here/mk/layers.sh" "$T_TMP/tree"
check_output "... naming the file, the line and the rule" 'core/util/log.c:[0-9]+: includes "run/core.h" \(core/run\), which core/util may not use' \
        sh "$here/mk/layers.sh" "$T_TMP/tree"
printf '#include "../core/run/core.h"\n' >> "$T_TMP/tree/modules/perm_rules/perm_rules.c"
check_output "a module reaching into the core by a relative path is named too" \
        'modules/perm_rules/perm_rules.c:[0-9]+: includes "../core/run/core.h": no .. in an include' sh "$here/mk/layers.sh" "$T_TMP/tree"
