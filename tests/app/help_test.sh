#!/usr/bin/env bash
# Every program's --help prints its usage on stdout and exits 0, without a display; an
# unknown option prints it on stderr and exits 2.
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
    err=$(env -u DISPLAY "$program" --no-such-option 2>&1 >/dev/null); rc=$?
    if [ "$rc" != 2 ] || [ -z "$err" ]; then
        echo "FAIL: $name --no-such-option -> exit $rc (want 2), stderr: $err"
        fails=$((fails + 1))
    else
        echo "ok: $name --no-such-option -> 2"
    fi
done
exit $((fails > 0))
