# SPDX-License-Identifier: MIT
# bash completion for stockade(1).  Installed as
# $(datadir)/bash-completion/completions/stockade.
_stockade()
{
        local cur prev cmd i
        cur=${COMP_WORDS[COMP_CWORD]}
        prev=${COMP_WORDS[COMP_CWORD-1]}
        cmd=
        for ((i = 1; i < COMP_CWORD; i++)); do
                case ${COMP_WORDS[i]} in
                -*) ;;
                *) cmd=${COMP_WORDS[i]}; break ;;
                esac
        done
        # after `run ... --` the command and its arguments are the command's own
        for ((i = 1; i < COMP_CWORD; i++)); do
                if [[ ${COMP_WORDS[i]} == -- ]]; then
                        COMPREPLY=($(compgen -c -- "$cur"))
                        [[ $i -lt $((COMP_CWORD - 1)) ]] && COMPREPLY=($(compgen -f -- "$cur"))
                        return
                fi
        done
        case $prev in
        --profile|-p)
                COMPREPLY=($(compgen -W "default workspace-write read-only ci proxy agent landlock full-access" -- "$cur"))
                return ;;
        --policy|-P|--audit|-a|--html|--file|--json-file|--output)
                COMPREPLY=($(compgen -f -- "$cur"))
                return ;;
        --json|-j) # a FILE for run; a flag elsewhere
                if [[ ${COMP_WORDS[1]} == run ]]; then
                        COMPREPLY=($(compgen -f -- "$cur"))
                        return
                fi ;;
        --write)
                COMPREPLY=($(compgen -d -- "$cur"))
                return ;;
        --network)
                COMPREPLY=($(compgen -W "off proxy" -- "$cur"))
                return ;;
        --allow-domain|--allow-env|--timeout)
                return ;;
        --socket|-s)
                COMPREPLY=($(compgen -f -- "$cur"))
                return ;;
        --workspace|-w)
                COMPREPLY=($(compgen -d -- "$cur"))
                return ;;
        --since|--run|--runs|--only|--stack|--codex-profile)
                return ;;
        esac
        if [[ -z $cmd ]]; then
                COMPREPLY=($(compgen -W "run check explain doctor approvals caches compare log import sh mcp serve --version --help" -- "$cur"))
                return
        fi
        case $cmd in
        run)
                COMPREPLY=($(compgen -W "--profile --policy --workspace --allow-broad-workspace --write --read-only --network --allow-domain --allow-env --timeout --json --audit --verbose --help --" -- "$cur")) ;;
        check)
                [[ $cur == -* ]] && COMPREPLY=($(compgen -W "--profile --policy --workspace --allow-broad-workspace --write --read-only --network --allow-domain --allow-env --verbose --help" -- "$cur")) ||
                        COMPREPLY=($(compgen -f -- "$cur")) ;;
        explain)
                COMPREPLY=($(compgen -W "--profile --policy --workspace --allow-broad-workspace --write --read-only --network --allow-domain --allow-env --audit --json --details --verbose --help --" -- "$cur")) ;;
        doctor)
                COMPREPLY=($(compgen -W "--json --policy --verbose --help" -- "$cur")) ;;
        approvals)
                COMPREPLY=($(compgen -W "--file list revoke clear --help" -- "$cur")) ;;
        caches)
                [[ $prev == --workspace ]] && COMPREPLY=($(compgen -d -- "$cur")) ||
                        COMPREPLY=($(compgen -W "--workspace --shared --all list clear --help" -- "$cur")) ;;
        compare)
                COMPREPLY=($(compgen -W "--profile --stack --json --html --runs --only --help" -- "$cur")) ;;
        import)
                if [[ $cur == -* ]]; then
                        COMPREPLY=($(compgen -W "--profile --output --force --dry-run --codex-profile --help" -- "$cur"))
                elif [[ $prev == import ]]; then
                        COMPREPLY=($(compgen -W "srt codex" -- "$cur"))
                else
                        COMPREPLY=($(compgen -f -- "$cur"))
                fi ;;
        mcp)
                COMPREPLY=($(compgen -W "--profile --policy --workspace --help" -- "$cur")) ;;
        serve)
                COMPREPLY=($(compgen -W "--socket --profile --policy --workspace --help" -- "$cur")) ;;
        sh)
                COMPREPLY=($(compgen -W "-c -l -i -e -x -o --login --norc --noprofile" -- "$cur")) ;;
        log)
                [[ $cur == -* ]] &&
                        COMPREPLY=($(compgen -W "--since --denied --run --json --profile --policy --workspace --help" -- "$cur")) ||
                        COMPREPLY=($(compgen -f -- "$cur")) ;;
        esac
}
complete -F _stockade stockade
