#!/bin/sh
# perm_rules differential test (issue 14).  Each string of the corpus
# (t/diff/adversarial.txt, t/diff/everyday.txt) is
#   - judged by perm_rules under the `agent` profile (stockade explain), and
#   - really run by bash inside a throwaway bwrap sandbox in which every
#     dangerous program (git, rm, curl, npm, cargo, sudo, ssh, docker, dd,
#     mkfs, ...) is a stub that logs what would have run (t/diff/stub), on
#     the PATH and over the real binaries (/usr/bin, /usr/sbin, git-core);
#     t/diff/oracle.awk says which logged invocations were dangerous.
# It fails when a string that really did something dangerous got ALLOW,
# outside the categories the man page declares beyond a rule engine
# (`interp`: inline interpreter code), and when more than 2 everyday
# commands are asked or denied.  The counts are printed.
. "$(dirname "$0")/../../../t/lib.sh"

D=$(cd "$(dirname "$0")/diff" && pwd)
[ -x "$STK" ] || { skip "differential" "no stockade binary at $STK"; exit 0; }
command -v bwrap > /dev/null || { skip "differential" "no bwrap"; exit 0; }
bwrap --ro-bind / / --dev /dev true 2> /dev/null || { skip "differential" "bwrap cannot run here"; exit 0; }
export XDG_CONFIG_HOME="$T_TMP/xdg"   # no user layer from the real home

DANGEROUS="git rm curl wget npm pnpm yarn bun cargo twine gem poetry uv hatch flit sudo sudoedit su doas
pkexec run0 ssh slogin scp sftp rsync docker podman nerdctl kubectl oc mkfs mkfs.ext2 mkfs.ext3 mkfs.ext4
mkfs.vfat mkfs.xfs mkfs.btrfs mke2fs mkswap wipefs dd shutdown reboot poweroff halt systemctl payload"

# $T_TMP/stub/bin: the stubs.  $T_TMP/farm/{bin,sbin}: /usr/bin and /usr/sbin
# as links to the real files (mounted at /run/real/...), the dangerous ones
# replaced by the stub.  $T_TMP/farm/git-core: every git-<sub> a stub.
build_farm() {
        mkdir -p "$T_TMP/stub/bin" "$T_TMP/farm/bin" "$T_TMP/farm/sbin" "$T_TMP/farm/git-core"
        for p in $DANGEROUS; do cp "$D/stub" "$T_TMP/stub/bin/$p"; done
        for dir in bin sbin; do
                for f in /usr/$dir/* /usr/$dir/.[!.]*; do
                        [ -e "$f" ] || [ -L "$f" ] || continue
                        ln -s "/run/real/$dir/${f##*/}" "$T_TMP/farm/$dir/${f##*/}"
                done
                for p in $DANGEROUS; do
                        rm -f "$T_TMP/farm/$dir/$p"
                        cp "$D/stub" "$T_TMP/farm/$dir/$p"
                done
        done
        for f in /usr/lib/git-core/*; do cp "$D/stub" "$T_TMP/farm/git-core/${f##*/}"; done
}

# The bwrap argv around `bash -c STRING` for workspace $1.
sandbox() {
        ws=$1; shift
        set -- --ro-bind / / --dev /dev --proc /proc --tmpfs /tmp --tmpfs /run \
                --ro-bind /usr/bin /run/real/bin --ro-bind /usr/sbin /run/real/sbin \
                --ro-bind "$T_TMP/farm/bin" /usr/bin --ro-bind "$T_TMP/farm/sbin" /usr/sbin \
                --ro-bind "$T_TMP/farm/git-core" /usr/lib/git-core \
                --ro-bind "$T_TMP/stub/bin" /run/stub/bin --bind "$T_TMP/log" /run/stub/log-dir \
                --symlink log-dir/log /run/stub/log \
                --bind "$ws" "$ws" --chdir "$ws" --unshare-net --unshare-pid --unshare-ipc --die-with-parent \
                --setenv HOME "$ws/home" --setenv PATH /usr/local/bin:/usr/bin:/usr/sbin:/bin:/sbin "$@"
        for extra in /usr/local/bin/docker /root/.cargo/bin/cargo; do
                [ -e "$extra" ] && set -- --ro-bind "$D/stub" "$extra" "$@"
        done
        bwrap "$@"
}

# Split a corpus into records: a line "%% CATEGORY" starts one; lines
# starting with "##" are comments.  Writes $T_TMP/rec/KIND.N and .cat.
split_corpus() {
        kind=$1 file=$2
        awk -v dir="$T_TMP/rec" -v kind="$kind" '
                /^##/ { next }
                /^%% / { if (out) close(out); n++; out = sprintf("%s/%s.%04d", dir, kind, n);
                         print substr($0, 4) > (out ".cat"); close(out ".cat"); first = 1; next }
                out { if (!first) printf "\n" > out; printf "%s", $0 > out; first = 0 }
        ' "$file"
}

verdict() {
        "$STK" explain --profile agent --workspace "$1" -- bash -c "$2" 2>&1 | awk '$1 == "perm_rules" { print $3; exit }'
}

build_farm
mkdir -p "$T_TMP/rec" "$T_TMP/log"
split_corpus adv "$D/adversarial.txt"
split_corpus every "$D/everyday.txt"

adv=0 adv_danger=0 adv_caught=0 misses=0 oos=0 every=0 every_fp=0 every_danger=0 safe_adv=0
for rec in "$T_TMP"/rec/*.[0-9][0-9][0-9][0-9]; do
        s=$(cat "$rec"); cat=$(cat "$rec.cat"); kind=${rec##*/}; kind=${kind%%.*}
        ws=$(mktemp -d "$T_TMP/ws.XXXXXX"); mkdir -p "$ws/home"
        (cd "$ws" && git init -q . 2> /dev/null)
        : > "$T_TMP/log/log"
        v=$(cd "$ws" && verdict "$ws" "$s")
        sandbox "$ws" timeout -k 1 5 bash -c "$s" < /dev/null > /dev/null 2>&1
        hits=$(awk -f "$D/oracle.awk" "$T_TMP/log/log")
        rm -rf "$ws"
        one_line=$(printf '%s' "$s" | tr '\n' ' ' | cut -c1-160)
        if [ "$kind" = every ]; then
                every=$((every + 1))
                if [ "$v" != allow ]; then
                        every_fp=$((every_fp + 1)); echo "# everyday $v: $one_line"
                fi
                [ -n "$hits" ] && { every_danger=$((every_danger + 1)); echo "# everyday did: $hits"; }
                continue
        fi
        adv=$((adv + 1))
        [ -z "$hits" ] && { safe_adv=$((safe_adv + 1)); continue; }
        adv_danger=$((adv_danger + 1))
        if [ "$v" = allow ]; then
                if [ "$cat" = interp ]; then
                        oos=$((oos + 1)); echo "# out of scope ($cat), ALLOW: $one_line"
                else
                        misses=$((misses + 1))
                        not_ok "ALLOW of a string that really ran: $(printf '%s' "$hits" | head -n1 | cut -c1-100)" \
                                "[$cat] $one_line"
                fi
        elif [ -n "$v" ]; then
                adv_caught=$((adv_caught + 1))
        else
                misses=$((misses + 1)); not_ok "no verdict" "[$cat] $one_line"
        fi
done

echo "# adversarial: $adv strings, $adv_danger really did something dangerous, $adv_caught of those asked or denied," \
     "$misses allowed (in scope), $oos allowed (out of scope: inline interpreter code); $safe_adv did nothing dangerous"
echo "# everyday: $every strings, $every_fp asked or denied, $every_danger did something dangerous"
if [ "$adv" -ge 300 ] && [ "$every" -ge 100 ]; then ok "corpus: $adv adversarial, $every everyday strings"
else not_ok "corpus too small" "$adv adversarial (300 wanted), $every everyday (100 wanted)"; fi
if [ "$adv_danger" -ge 250 ]; then ok "the stubs saw $adv_danger dangerous strings really run"
else not_ok "too few adversarial strings really ran their action" "$adv_danger"; fi
if [ "$misses" = 0 ]; then ok "no ALLOW for a string that really ran a denied or asked action"
else not_ok "$misses strings that really ran a denied or asked action were allowed"; fi
if [ "$every_fp" -le 2 ]; then ok "everyday commands: $every_fp of $every asked or denied (at most 2)"
else not_ok "everyday commands asked or denied" "$every_fp of $every"; fi
if [ "$every_danger" = 0 ]; then ok "no everyday command did anything dangerous"
else not_ok "everyday commands that did something dangerous" "$every_danger"; fi
