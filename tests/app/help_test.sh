#!/usr/bin/env bash
# Every program's --help prints its usage on stdout and exits 0, without a display; an
# unknown option prints it on stderr and exits 2. warpscope and warpscope-batch take every
# option their --help lists.
set -u
fails=0
for program in "$@"; do
    name=$(basename "$program")
    # A program linked against the NVIDIA driver cannot start where the driver is not installed.
    if env -u DISPLAY "$program" --help 2>&1 >/dev/null | grep -q "error while loading shared libraries: libcuda"; then
        echo "skip: $name needs the NVIDIA driver's libcuda, which this machine lacks"
        continue
    fi
    out=$(env -u DISPLAY "$program" --help 2>/dev/null); rc=$?
    if [ "$rc" != 0 ] || ! grep -qi "usage" <<<"$out"; then
        echo "FAIL: $name --help -> exit $rc, stdout: $out"
        fails=$((fails + 1))
    else
        echo "ok: $name --help -> 0"
    fi
    case $name in warpscope | warpscope-batch) ;; *) continue ;; esac
    # Given with an unknown option, a listed one is not named as unknown.
    listed=0
    while read -r flag value; do
        args=("$flag")
        [ -n "$value" ] && args+=(x)
        err=$(env -u DISPLAY QT_QPA_PLATFORM=none "$program" "${args[@]}" --no-such-option 2>&1 >/dev/null)
        if ! grep -qF "Unknown option 'no-such-option'" <<<"$err"; then
            echo "FAIL: $name does not take $flag, which its --help lists: $err"
            fails=$((fails + 1))
        fi
        listed=$((listed + 1))
    done < <(grep -oE '^  (-[a-zA-Z], )?--[a-z][a-z-]*( [^ ]+)?' <<<"$out" | sed -E 's/^  (-[a-zA-Z], )?//')
    if [ "$listed" -lt 20 ]; then
        echo "FAIL: $name --help lists $listed options"
        fails=$((fails + 1))
    else
        echo "ok: $name takes the $listed options its --help lists"
    fi
    err=$(env -u DISPLAY "$program" --no-such-option 2>&1 >/dev/null); rc=$?
    if [ "$rc" != 2 ] || [ -z "$err" ]; then
        echo "FAIL: $name --no-such-option -> exit $rc (want 2), stderr: $err"
        fails=$((fails + 1))
    else
        echo "ok: $name --no-such-option -> 2"
    fi
done
exit $((fails > 0))
