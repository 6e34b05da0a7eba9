# perm_rules differential test: which logged invocations really did what
# the agent profile keeps from running unasked.  Input: the stubs' log (a
# program and its words, separated by \037).  Output: one line per
# dangerous invocation, "<what>: <the invocation>".
BEGIN { FS = "\037" }
function danger(what) { line = $0; gsub(/\037/, " ", line); print what ": " line; hit = 1 }
function git_push(   i, sub_) {
        for (i = 2; i <= NF; i++) {
                if ($i ~ /^(-C|-c|--git-dir|--work-tree|--namespace|--super-prefix|--config-env|--list-cmds|--attr-source)$/) { i++; continue }
                if ($i ~ /^-/) continue
                sub_ = $i; break
        }
        return sub_ ~ /^(push|send-pack|http-push)$/
}
function rm_rf(   i, j, c, r, f, opts) {
        opts = 1
        for (i = 2; i <= NF; i++) {
                if (!opts || $i !~ /^-./) continue
                if ($i == "--") { opts = 0; continue }
                if ($i ~ /^--/) {
                        if (index("--recursive", $i) == 1 && length($i) >= 3) r = 1
                        if (index("--force", $i) == 1 && length($i) >= 3) f = 1
                        continue
                }
                for (j = 2; j <= length($i); j++) {
                        c = substr($i, j, 1)
                        if (c == "r" || c == "R") r = 1
                        if (c == "f") f = 1
                }
        }
        return r && f
}
function any_word(re,   i) { for (i = 2; i <= NF; i++) if ($i ~ re) return 1; return 0 }
{
        hit = 0; p = $1
        if (p == "git" && git_push()) danger("git push")
        else if (p ~ /^git-(push|send-pack|http-push)$/) danger("git push")
        else if (p == "rm" && rm_rf()) danger("rm -rf")
        else if (p ~ /^(npm|pnpm|yarn|bun)$/ && any_word("^(publish|unpublish|pu|pub|publ|publi)$")) danger("publish")
        else if (p == "cargo" && any_word("^(publish|yank)$")) danger("publish")
        else if (p == "twine" && any_word("^upload$")) danger("publish")
        else if (p == "gem" && any_word("^push$")) danger("publish")
        else if (p ~ /^(poetry|uv|hatch|flit)$/ && any_word("^publish$")) danger("publish")
        else if (p ~ /^(sudo|sudoedit|su|doas|pkexec|run0)$/) danger("root")
        else if (p ~ /^(ssh|slogin|scp|sftp|rsync)$/) danger("remote")
        else if (p ~ /^(docker|podman|nerdctl|kubectl|oc)$/) danger("containers")
        else if (p ~ /^(mkfs.*|mke2fs|mkswap|wipefs|shutdown|reboot|poweroff|halt)$/) danger("machine")
        else if (p == "dd" && any_word("^of=/dev/")) danger("machine")
        else if (p == "systemctl" && any_word("^(poweroff|reboot|halt)$")) danger("machine")
        else if (p == "payload") danger("downloaded code ran")
}
