# SPDX-License-Identifier: MIT
# fish completion for stockade(1).  Installed as
# $(datadir)/fish/vendor_completions.d/stockade.fish.
set -l cmds run check explain doctor approvals caches compare log import sh mcp serve
set -l profiles default workspace-write read-only ci proxy agent landlock full-access
complete -c stockade -f
complete -c stockade -n "not __fish_seen_subcommand_from $cmds" -a "$cmds"
complete -c stockade -n "not __fish_seen_subcommand_from $cmds" -l version -d 'print the version'
complete -c stockade -l help -d 'usage'
complete -c stockade -n "__fish_seen_subcommand_from run explain log compare check import mcp serve" -l profile -x -a "$profiles" -d 'profile'
complete -c stockade -n "__fish_seen_subcommand_from run explain log doctor mcp serve" -l policy -r -F -d 'policy file'
complete -c stockade -n "__fish_seen_subcommand_from run explain log mcp serve" -l workspace -x -a '(__fish_complete_directories)' -d 'workspace'
complete -c stockade -n "__fish_seen_subcommand_from run explain" -l audit -r -F -d 'append the audit log to FILE'
complete -c stockade -n "__fish_seen_subcommand_from run check explain" -l write -x -a '(__fish_complete_directories)' -d 'a directory writable too'
complete -c stockade -n "__fish_seen_subcommand_from run check explain" -l read-only -d 'the workspace read-only'
complete -c stockade -n "__fish_seen_subcommand_from run check explain" -l network -x -a 'off proxy' -d 'no network, or only the proxy'
complete -c stockade -n "__fish_seen_subcommand_from run check explain" -l allow-domain -x -d 'a name the proxy may reach'
complete -c stockade -n "__fish_seen_subcommand_from run check explain" -l allow-env -x -d 'an environment variable to pass'
complete -c stockade -n "__fish_seen_subcommand_from run" -l timeout -x -d 'stop the command after SECONDS'
complete -c stockade -n "__fish_seen_subcommand_from run" -l json -r -F -d 'write the result as JSON to FILE'
complete -c stockade -n "__fish_seen_subcommand_from run doctor" -l verbose -d 'log more'
complete -c stockade -n "__fish_seen_subcommand_from explain doctor compare log" -l json -d 'JSON output'
complete -c stockade -n "__fish_seen_subcommand_from explain" -l details -d 'every line and rule'
complete -c stockade -n "__fish_seen_subcommand_from approvals" -l file -r -F -d 'approvals store'
complete -c stockade -n "__fish_seen_subcommand_from approvals" -a 'list revoke clear'
complete -c stockade -n "__fish_seen_subcommand_from caches" -a 'list clear'
complete -c stockade -n "__fish_seen_subcommand_from caches" -l workspace -r -a '(__fish_complete_directories)' -d 'the workspace whose set to clear'
complete -c stockade -n "__fish_seen_subcommand_from caches" -l shared -d 'the shared set'
complete -c stockade -n "__fish_seen_subcommand_from caches" -l all -d 'every set'
complete -c stockade -n "__fish_seen_subcommand_from compare" -l stack -r -F -d 'stack name or file'
complete -c stockade -n "__fish_seen_subcommand_from compare" -l html -r -F -d 'write a page'
complete -c stockade -n "__fish_seen_subcommand_from compare" -l runs -x -d 'timed runs'
complete -c stockade -n "__fish_seen_subcommand_from compare" -l only -x -d 'probes'
complete -c stockade -n "__fish_seen_subcommand_from log" -l since -x -d 'from a date or an age'
complete -c stockade -n "__fish_seen_subcommand_from log" -l denied -d 'only refusals'
complete -c stockade -n "__fish_seen_subcommand_from log" -l run -x -d 'one run by id prefix'
complete -c stockade -n "__fish_seen_subcommand_from check log" -F
complete -c stockade -n "__fish_seen_subcommand_from import; and not __fish_seen_subcommand_from srt codex" -a 'srt codex'
complete -c stockade -n "__fish_seen_subcommand_from import" -l output -r -F -d 'write FILE instead'
complete -c stockade -n "__fish_seen_subcommand_from import" -l force -d 'replace an existing file'
complete -c stockade -n "__fish_seen_subcommand_from import" -l dry-run -d 'print, write nothing'
complete -c stockade -n "__fish_seen_subcommand_from import" -l codex-profile -x -d 'a Codex profile'
complete -c stockade -n "__fish_seen_subcommand_from import" -F
complete -c stockade -n "__fish_seen_subcommand_from serve" -l socket -r -F -d 'the unix socket'
