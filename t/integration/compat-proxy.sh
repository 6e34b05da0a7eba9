#!/bin/sh
# The compatibility suite (t/compat/run, issue 15) under the proxy profile:
# one line per workload, ok, not ok (command, stack, errno) or skip (77).
: "${STK_BUILD:?run through make check}"
exec sh "$(dirname "$0")/../compat/run" --profile proxy
