#!/usr/bin/env bash
# Launches the real app twice under the X server, with different bounds, and checks that
# --screenshot writes a non-blank PNG of the requested size and that the pixels changed.
set -eu
app=$1 diff=$2 dir=$3
a=$dir/shot_a.png b=$dir/shot_b.png
rm -f "$a" "$b"
"$app" --backend cpu --size 1200x800 --screenshot "$a"
"$app" --backend cpu --size 1200x800 --lat-min 29.8 --colormap magma --screenshot "$b"
read -r w h colours < <("$diff" info "$a")
echo "screenshot: ${w}x${h}, $colours colours"
[ "$w" = 1200 ] && [ "$h" = 800 ] || { echo "FAIL: wrong size"; exit 1; }
[ "$colours" -gt 200 ] || { echo "FAIL: the screenshot looks blank"; exit 1; }
changed=$("$diff" diff "$a" "$b")
echo "pixels changed by the new bound: $changed"
[ "$changed" -gt $((w * h / 10)) ] || { echo "FAIL: the picture did not change"; exit 1; }
# An unwritable path fails with a message, not a crash.
if out=$("$app" --backend cpu --screenshot /nonexistent/dir/x.png 2>&1); then
    echo "FAIL: writing to a missing folder succeeded"; exit 1
fi
grep -q "could not write" <<<"$out" || { echo "FAIL: no message: $out"; exit 1; }

# A mesh beyond the OpenGL driver's buffer limit fails while the window is first shown: the
# command line says why at once and exits 1, rather than waiting for a frame that never comes.
if out=$(timeout 60 "$app" --backend cpu --nx 16384 --ny 16384 --screenshot "$dir/x.png" 2>&1); then
    echo "FAIL: a mesh beyond the driver's limit succeeded"; exit 1
fi
grep -q "can display at most" <<<"$out" || { echo "FAIL: not the driver's limit: $out"; exit 1; }
# A streams lab that cannot run fails the command, though the window is still saved.
if out=$("$app" --backend cpu --lab-length 4294967296 --lab-arrays 64 --streams-lab \
    --screenshot "$dir/x.png" 2>&1); then
    echo "FAIL: a failed streams lab exited 0: $out"; exit 1
fi
grep -q "the streams lab failed" <<<"$out" || { echo "FAIL: no message: $out"; exit 1; }

# The streams lab runs, its check passes, and the timeline exports as a trace.
trace=$dir/trace.json
rm -f "$trace"
out=$("$app" --backend cpu --size 1200x800 --streams-lab --lab-arrays 4 --lab-length 100000 \
    --screenshot "$dir/shot_lab.png" --export-trace "$trace" 2>&1) || { echo "FAIL: $out"; exit 1; }
echo "$out"
grep -q "every array sums to 1" <<<"$out" || { echo "FAIL: the lab's check did not pass"; exit 1; }
grep -q '"traceEvents"' "$trace" || { echo "FAIL: no trace events in $trace"; exit 1; }
[ "$(grep -c '"name":"normalise array' "$trace")" = 4 ] || { echo "FAIL: arrays missing"; exit 1; }
if out=$("$app" --backend cpu --streams-lab --lab-length 1000 --export-trace /nonexistent/t.json 2>&1); then
    echo "FAIL: exporting to a missing folder succeeded"; exit 1
fi
grep -q "Cannot write /nonexistent/t.json" <<<"$out" || { echo "FAIL: no message: $out"; exit 1; }

# The periodogram workspace: the default synthetic series, then a series that cannot load.
"$app" --backend cpu --size 1600x1000 --periodogram --screenshot "$dir/shot_periodogram.png"
read -r w h colours < <("$diff" info "$dir/shot_periodogram.png")
[ "$colours" -gt 50 ] || { echo "FAIL: the periodogram screenshot looks blank"; exit 1; }
# A quarter of a million frequencies over a narrower range: the line is redrawn from them.
"$app" --backend cpu --size 1600x1000 --frequencies 0.05,1,262144 \
    --screenshot "$dir/shot_periodogram_grid.png"
changed=$("$diff" diff "$dir/shot_periodogram.png" "$dir/shot_periodogram_grid.png")
[ "$changed" -gt 1000 ] || { echo "FAIL: a new grid changed only $changed pixels"; exit 1; }
# The same range spaced logarithmically, on a logarithmic axis.
out=$("$app" --backend cpu --size 1600x1000 --frequencies 0.05,1,30000,log \
    --screenshot "$dir/shot_periodogram_log.png" 2>&1) || { echo "FAIL: $out"; exit 1; }
changed=$("$diff" diff "$dir/shot_periodogram_grid.png" "$dir/shot_periodogram_log.png")
[ "$changed" -gt 1000 ] || { echo "FAIL: a log grid changed only $changed pixels"; exit 1; }
# A loaded file hides the synthetic series' controls; that once corrupted the heap, and the app
# crashed on closing the window.
fixtures=$(dirname "$0")/../fixtures
out=$("$app" --backend cpu --size 1400x900 --series "$fixtures/dates/weekly_yyyymmdd.csv" \
    --screenshot "$dir/shot_periodogram_file.png" 2>&1) || { echo "FAIL ($?): $out"; exit 1; }
read -r w h colours < <("$diff" info "$dir/shot_periodogram_file.png")
[ "$colours" -gt 50 ] || { echo "FAIL: the loaded file's periodogram looks blank"; exit 1; }
# Prewhitening before the window: it opens on the residuals with the two sinusoids listed,
# and the list exports from the window.
rm -f "$dir/frequencies.csv"
out=$("$app" --backend cpu --size 1400x900 --series "$fixtures/periodogram/series_P.csv" \
    --prewhiten 2 --screenshot "$dir/shot_prewhitened.png" \
    --export-frequencies "$dir/frequencies.csv" 2>&1) || { echo "FAIL: $out"; exit 1; }
[ "$(grep -c '^[0-9]' "$dir/frequencies.csv")" = 2 ] ||
    { echo "FAIL: the window's list is not the two sinusoids: $(cat "$dir/frequencies.csv")"; exit 1; }
# A missing series is a bad option, found before any window opens.
rc=0
out=$("$app" --backend cpu --series /nonexistent/series.csv --screenshot "$dir/x.png" 2>&1) || rc=$?
[ "$rc" = 2 ] || { echo "FAIL: a missing series file exited $rc, not 2: $out"; exit 1; }
grep -qF -- "--series: /nonexistent/series.csv: no such file" <<<"$out" ||
    { echo "FAIL: no message: $out"; exit 1; }
# The Kernel workspace: its first kernel (the per-node template) is compiled by the CPU
# simulator and drawn before the screenshot is taken.
"$app" --backend cpu --size 1200x800 --kernel --screenshot "$dir/shot_kernel.png"
read -r w h colours < <("$diff" info "$dir/shot_kernel.png")
[ "$w" = 1200 ] && [ "$h" = 800 ] || { echo "FAIL: wrong kernel screenshot size"; exit 1; }
[ "$colours" -gt 200 ] || { echo "FAIL: the kernel screenshot looks blank"; exit 1; }
# A kernel file that cannot be read is a bad option: a message and exit code 2, no window.
set +e
out=$("$app" --backend cpu --kernel-source /nonexistent/k.cu --screenshot "$dir/x.png" 2>&1)
code=$?
set -e
[ "$code" = 2 ] || { echo "FAIL: a missing kernel file exited $code, not 2"; exit 1; }
grep -qF -- "--kernel-source: /nonexistent/k.cu: no such file" <<<"$out" ||
    { echo "FAIL: no message: $out"; exit 1; }

echo ok
