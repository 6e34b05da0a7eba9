#!/bin/sh
# stockade import srt|codex: a peer's settings as a user-layer file, with a
# report of what mapped, what was tightened and what has no equivalent.
. "$(dirname "$0")/../lib.sh"
FIX=$(cd "$(dirname "$0")/import" && pwd)

export HOME="$T_TMP/home" XDG_CONFIG_HOME="$T_TMP/xdg"
mkdir -p "$HOME"
t_make_workspace
U=$XDG_CONFIG_HOME/stockade

# every key of FILE's JSON (nested objects' keys too) named in REPORT
keys_reported() {
        python3 - "$1" "$2" <<'EOP'
import json, sys
data = json.load(open(sys.argv[1])); report = open(sys.argv[2]).read()
def walk(o):
    for k, v in o.items():
        yield k
        if isinstance(v, dict) and k in ("network", "filesystem"):
            yield from walk(v)
missing = [k for k in walk(data) if k not in report]
print(" ".join(missing)); sys.exit(1 if missing else 0)
EOP
}

# ---- sandbox-runtime ---------------------------------------------------------
"$STK" import srt "$FIX/srt-full.json" > "$T_TMP/report" 2>&1; st=$?
[ "$st" = 0 ] && ok "srt: the documented sample imports" || not_ok "srt: the documented sample imports" "status $st: $(cat "$T_TMP/report")"
if command -v python3 > /dev/null; then
        m=$(keys_reported "$FIX/srt-full.json" "$T_TMP/report")
        [ -z "$m" ] && ok "srt: every key of the sample is in the report" ||
                not_ok "srt: every key of the sample is in the report" "missing: $m"
else
        skip "srt: every key of the sample is in the report" "no python3"
fi
check_output "srt: allowed domains need the proxy, so the proxy profile's user layer" \
        "-> $U/proxy.yaml" cat "$T_TMP/report"
f=$U/proxy.yaml
if grep -q '"\${WORKSPACE}/build"' "$f" && grep -q 'read_only: \["\${WORKSPACE}/.env"' "$f" &&
   grep -q 'hide: \["~/.ssh", "~/.aws"\]' "$f" && grep -q 'mode: proxy' "$f" &&
   grep -q 'deny: \["malicious.com", "\*.tracker.test"\]' "$f"; then
        ok "srt: paths, islands, hidden paths, domains and mode as stockade settings"
else
        not_ok "srt: paths, islands, hidden paths, domains and mode as stockade settings" "$(cat "$f")"
fi
if grep -q 'api.example.com\|::1' "$f"; then
        not_ok "srt: a port-limited domain is left out (its host alone would allow every port)"
else
        ok "srt: a port-limited domain is left out (its host alone would allow every port)"
fi
grep -q '\*\*/.env' "$f" && not_ok "srt: a glob is not written as a path" || ok "srt: a glob is not written as a path"
check_output "srt: the file is a user layer the proxy profile loads" "$U/proxy.yaml:[0-9]+:[0-9]+ \(user\)" \
        "$STK" explain --profile proxy --workspace "$T_WS"
cp "$f" "$T_TMP/before"
check_status "srt: an existing file is not replaced" 1 "$STK" import srt "$FIX/srt-full.json"
cmp -s "$f" "$T_TMP/before" && ok "srt: ... and is left as it was" || not_ok "srt: ... and is left as it was"
check "srt: --force replaces it" "$STK" import srt --force "$FIX/srt-full.json"

printf '{"filesystem": {"allowWrite": "."}}' > "$T_TMP/type.json"
check_output "srt: a wrong type names the key, nothing written" 'filesystem.allowWrite: expected an array of strings' \
        "$STK" import srt --output "$T_TMP/out.yaml" "$T_TMP/type.json"
[ ! -e "$T_TMP/out.yaml" ] && ok "srt: ... and no file appears" || not_ok "srt: ... and no file appears"
printf '{"network": {\n  "allowedDomains": [1,]\n}' > "$T_TMP/syntax.json"
check_output "srt: bad JSON is named FILE:LINE:COL" 'syntax.json:2:[0-9]+: ' "$STK" import srt --dry-run "$T_TMP/syntax.json"
check_status "srt: ... with status 241" 241 "$STK" import srt --dry-run "$T_TMP/syntax.json"

# The profile has the last word: read-only does not let a user file add writable roots.
"$STK" import srt --profile read-only "$FIX/srt-full.json" > "$T_TMP/ro" 2>&1; st=$?
if [ "$st" = 241 ] && [ ! -e "$U/read-only.yaml" ] && grep -q "refuses the imported file" "$T_TMP/ro"; then
        ok "srt: a file the profile refuses is removed again, status 241"
else
        not_ok "srt: a file the profile refuses is removed again, status 241" "status $st: $(cat "$T_TMP/ro")"
fi

# ---- Codex -------------------------------------------------------------------------
"$STK" import codex --dry-run "$FIX/codex-full.toml" > "$T_TMP/codex" 2>&1; st=$?
[ "$st" = 0 ] && ok "codex: the documented sample imports" || not_ok "codex: the documented sample imports" "status $st: $(cat "$T_TMP/codex")"
for k in sandbox_mode writable_roots network_access exclude_tmpdir_env_var exclude_slash_tmp approval_policy \
         shell_environment_policy.inherit shell_environment_policy.exclude shell_environment_policy.set \
         include_only ignore_default_excludes profiles.ci "other keys"; do
        grep -q -- "$k" "$T_TMP/codex" || missing="${missing:-} $k"
done
[ -z "${missing:-}" ] && ok "codex: every sandbox key of the sample is in the report" ||
        not_ok "codex: every sandbox key of the sample is in the report" "missing:$missing"
if grep -q '"/var/tmp/codex-import-test"' "$T_TMP/codex" && grep -q 'mode: off' "$T_TMP/codex" &&
   grep -q 'approval: never' "$T_TMP/codex" && grep -q 'deny: \["AWS_\*", "\*_SECRET", "\*"\]' "$T_TMP/codex" &&
   grep -q 'allow: \["PATH", "HOME", "LANG"\]' "$T_TMP/codex"; then
        ok "codex: roots, network, the profile's approval, the environment policy"
else
        not_ok "codex: roots, network, the profile's approval, the environment policy" "$(cat "$T_TMP/codex")"
fi
check_output "codex: a read-only profile is not faked in a user file" 'sandbox_mode = "read-only": a user file can only add' \
        "$STK" import codex --dry-run --codex-profile locked "$FIX/codex-full.toml"
check "codex: written, the default profile loads it" "$STK" import codex "$FIX/codex-full.toml"
check_output "codex: ... (explain names the user file)" "$U/default.yaml:[0-9]+:[0-9]+ \(user\)" \
        "$STK" explain --workspace "$T_WS"

# Nothing maps to something looser than the peer's setting (issue 20's
# mutants import.full-access-writes-root, import.on-failure-never).
printf 'sandbox_mode = "danger-full-access"\napproval_policy = "on-failure"\n' > "$T_TMP/loose.toml"
"$STK" import codex --dry-run "$T_TMP/loose.toml" > "$T_TMP/loose" 2>&1
sed -n '/^---$/,$p' "$T_TMP/loose" > "$T_TMP/loose.yaml"
check_output "codex: danger-full-access is not imported, only named" 'danger-full-access": not imported' cat "$T_TMP/loose"
check_status "codex: ... and the file it writes has no write roots" 1 grep -q '^  write:' "$T_TMP/loose.yaml"
check_output "codex: on-failure asks (on-request): the command never reruns unsandboxed" '^  approval: on-request$' \
        cat "$T_TMP/loose.yaml"

# TOML errors: FILE:LINE:COL, status 241, nothing written
toml_error() { # NAME TEXT PATTERN
        printf "$2" > "$T_TMP/e.toml"
        "$STK" import codex --output "$T_TMP/e.yaml" "$T_TMP/e.toml" > "$T_TMP/.out" 2>&1; st=$?
        if [ "$st" = 241 ] && [ ! -e "$T_TMP/e.yaml" ] && grep -qE -- "e.toml:$3" "$T_TMP/.out"; then
                ok "toml: $1"
        else
                not_ok "toml: $1" "status $st: $(cat "$T_TMP/.out")"
        fi
}
toml_error "a key defined twice" 'sandbox_mode = "a"\nsandbox_mode = "b"\n' '2:14: the key "sandbox_mode" is defined twice'
toml_error "a table defined twice" '[x]\n[x]\n' '2:4: the table \[x\] is defined twice'
toml_error "a bare word as a value" 'sandbox_mode = read-only\n' '1:16: "read-only" is not a TOML value'
toml_error "a string left open" 'a = "open\n' '1:10: a newline inside a string'
toml_error "an inline table over two lines" 'a = { x = 1,\n y = 2 }\n' '1:13: expected a key'
toml_error "a control character in a string" 'a = "\001"\n' '1:6: a control character'
toml_error "an unknown escape" 'a = "\\q"\n' '1:7: an unknown escape'
toml_error "an array of tables redefined as a table" '[[t]]\n[t]\n' '2:4: "t" is already an array'
toml_error "text after a value" 'a = 1 2\n' '1:7: expected the end of the line'
toml_error "a NUL byte" 'a = 1\nb\000 = 2\n' '2:2: a NUL byte'
