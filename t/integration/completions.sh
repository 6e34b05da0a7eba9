#!/bin/sh
# Shell completions (completions/): they offer what the binary really has,
# so a new command, option or profile that is not added to them fails here.
. "$(dirname "$0")/../lib.sh"
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
C=$ROOT/completions

# bash_complete WORD...: what the bash completion offers for the words (the
# last is the one being completed), one a line.
bash_complete() {
        bash -c '. "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _stockade; printf "%s\n" "${COMPREPLY[@]}"' \
                bash "$C/stockade.bash" "$@"
}

# missing WANT GOT: the words of WANT that are not lines of GOT
missing() { for w in $1; do printf '%s\n' "$2" | grep -qx -- "$w" || printf '%s ' "$w"; done; }

if ! command -v bash > /dev/null; then
        skip "bash completion" "no bash"
else
        cmds=$("$STK" --help | sed -n 's/^ *\(usage: \)\{0,1\}stockade \([a-z][a-z-]*\).*/\2/p' | sort -u)
        m=$(missing "$cmds" "$(bash_complete stockade '')")
        [ -z "$m" ] && ok "bash: every command of stockade --help is offered" ||
                not_ok "bash: every command of stockade --help is offered" "missing: $m"

        profiles=$(cd "$ROOT/etc" && ls *.yaml | sed 's/\.yaml$//')
        m=$(missing "$profiles" "$(bash_complete stockade run --profile '')")
        [ -z "$m" ] && ok "bash: every shipped profile is offered after --profile" ||
                not_ok "bash: every shipped profile is offered after --profile" "missing: $m"

        for cmd in $cmds; do
                # the options on the command's own usage lines (a help that
                # is the general one names the others' too)
                opts=$("$STK" "$cmd" --help 2>&1 |
                       awk -v c="$cmd" '$0 ~ "stockade " c "( |$)" { on = 1; print; next }
                                        /stockade [a-z]/ { on = 0 } on' |
                       grep -o -- '--[a-z][a-z-]*' | sort -u)
                [ -n "$opts" ] || continue
                m=$(missing "$opts" "$(bash_complete stockade "$cmd" --)")
                [ -z "$m" ] && ok "bash: every option of stockade $cmd --help is offered" ||
                        not_ok "bash: every option of stockade $cmd --help is offered" "missing: $m"
        done

        got=$(bash_complete stockade run -- ech)
        printf '%s\n' "$got" | grep -qx echo && ok "bash: after run --, the command is completed as a command" ||
                not_ok "bash: after run --, the command is completed as a command" "$got"
fi

if command -v zsh > /dev/null; then
        check "zsh: the completion parses" zsh -n "$C/_stockade"
else
        skip "zsh: the completion parses" "no zsh"
fi
if command -v fish > /dev/null; then
        check "fish: the completion parses" fish --no-execute "$C/stockade.fish"
        got=$(fish -c "source $C/stockade.fish; complete -C 'stockade '" 2>&1 | cut -f1)
        m=$(missing "$cmds" "$got")
        [ -z "$m" ] && ok "fish: every command of stockade --help is offered" ||
                not_ok "fish: every command of stockade --help is offered" "missing: $m"
else
        skip "fish: the completion parses" "no fish"
fi
