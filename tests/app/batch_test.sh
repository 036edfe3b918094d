#!/usr/bin/env bash
# warpscope-batch on the CPU: a small catalogue (tests/fixtures/batch, from
# generate_batch.py) as files, as a CSV table and as a FITS table equals astropy's
# periodograms; hostile objects are reported in their rows; a resumed run, a run stopped by
# SIGINT and, when mpiexec is given, two MPI ranks give the table of one uninterrupted run.
#   batch_test.sh WARPSCOPE_BATCH FIXTURE_DIR WORK_DIR [MPIEXEC]
set -u
batch=$1 fixtures=$2 work=$3 mpiexec=${4:-}
fails=0
rm -rf "$work" && mkdir -p "$work"
grid=(--frequencies 0.05,2.0,3000 --peaks 3 --quiet)

check() { # description command...
    local what=$1; shift
    if "$@"; then echo "ok: $what"; else echo "FAIL: $what"; fails=$((fails + 1)); fi
}
expect() { # expected-exit-code expected-text args...
    local code=$1 text=$2; shift 2
    local out rc
    out=$("$batch" "$@" 2>&1); rc=$?
    if [ "$rc" != "$code" ] || ! grep -qF -- "$text" <<<"$out"; then
        echo "FAIL: warpscope-batch $* -> exit $rc (want $code), output: $out"
        fails=$((fails + 1))
    else
        echo "ok: warpscope-batch $* -> $rc"
    fi
}

# Options: 2 for bad ones, 1 for work that cannot be done.
expect 0 "Usage:" --help
expect 2 "Give one input" -o "$work/x.csv"
expect 2 "--output FILE.csv is needed" "$fixtures/files"
expect 2 "--output must name a .csv file" "$fixtures/files" -o "$work/x.txt"
expect 2 "does not exist" "$fixtures/files" -o "$work/none/x.csv"
expect 2 "--peaks must be 1 to 20" "$fixtures/files" -o "$work/x.csv" --peaks 0
expect 2 "--frequencies needs FMIN,FMAX,M" "$fixtures/files" -o "$work/x.csv" --frequencies 2,1,10
expect 2 "--backend must be auto, cpu or cuda" "$fixtures/files" -o "$work/x.csv" --backend gpu
expect 2 "--detrend must be none" "$fixtures/files" -o "$work/x.csv" --detrend spline:3
# --detrend reads as warpscope's: a whole degree within range, a window above 0.
expect 2 "--detrend must be none, poly:N (N = 0 to 5) or median:W, not 'spline:3'" \
    "$fixtures/files" -o "$work/x.csv" --detrend spline:3
expect 2 "--detrend poly:N needs a whole degree N, not '2.0'" "$fixtures/files" -o "$work/x.csv" \
    --detrend poly:2.0
expect 2 "--detrend poly:N needs a whole degree N, not '99999999999'" "$fixtures/files" \
    -o "$work/x.csv" --detrend poly:99999999999
expect 2 "degree must be 0 to 5, not 9" "$fixtures/files" -o "$work/x.csv" --detrend poly:9
expect 2 "window must be a finite time above 0, not -3" "$fixtures/files" -o "$work/x.csv" \
    --detrend median:-3
expect 2 "--per-gpu must be 1 to 64" "$fixtures/files" -o "$work/x.csv" --per-gpu 0
# The other edges of the declared ranges (scene/Options.cpp).
expect 2 "--peaks must be 1 to 20, not '21'" "$fixtures/files" -o "$work/x.csv" --peaks 21
expect 2 "--per-gpu must be 1 to 64, not '65'" "$fixtures/files" -o "$work/x.csv" --per-gpu 65
expect 2 "--threads must be 0 (every core) to 4096, not '-1'" "$fixtures/files" -o "$work/x.csv" \
    --threads -1
expect 2 "--threads must be 0 (every core) to 4096, not '4097'" "$fixtures/files" \
    -o "$work/x.csv" --threads 4097
expect 2 "--trace must name a .json file" "$fixtures/files" -o "$work/x.csv" --trace "$work/t.txt"
expect 2 "--trace: the folder" "$fixtures/files" -o "$work/x.csv" --trace "$work/none/t.json"
expect 2 "would replace" "$fixtures/files" -o "$work/x.csv" --trace "$work/x.source.json"
expect 2 "Unknown option" "$fixtures/files" -o "$work/x.csv" --frobnicate
expect 1 "No light-curve files" "$work/nothing-*.csv" -o "$work/x.csv"
# Outputs that cannot be written are refused before any work, as a missing folder is: /proc
# takes no files, even from root, and neither does a path through a regular file.
touch "$work/a-file"
mkdir -p "$work/folder.csv"
expect 2 "--output: cannot write in the folder /proc" "$fixtures/files" -o /proc/x.csv
expect 2 "--output: $work/folder.csv exists and is not a file" "$fixtures/files" -o "$work/folder.csv"
expect 2 "--fits: cannot write in the folder /proc" "$fixtures/files" -o "$work/x.csv" --fits /proc/x.fits
expect 2 "--periodograms: cannot make the folder /proc/periodograms" "$fixtures/files" \
    -o "$work/x.csv" --periodograms /proc/periodograms
expect 2 "--periodograms: cannot make the folder $work/a-file/periodograms" "$fixtures/files" \
    -o "$work/x.csv" --periodograms "$work/a-file/periodograms"
expect 2 "--trace: cannot write in the folder /proc" "$fixtures/files" -o "$work/x.csv" --trace /proc/t.json
check "refused outputs: no table was written" bash -c "[ ! -e '$work/x.csv' ] && [ ! -e '$work/x.source.json' ]"
expect 2 "--peaks must be 1 to 20" "$fixtures/files" -o "$work/x.csv" --periodograms "$work/not-made" --peaks 0
check "a bad option makes no periodograms folder" [ ! -e "$work/not-made" ]
expect 1 "has no id column 'object'" "$fixtures/catalogue.csv" -o "$work/x.csv" --id-column object
expect 1 "has no id column 'object'" "$fixtures/catalogue.fits" -o "$work/x.csv" --id-column object

# Each good object's best peak against astropy (frequency 1e-12, power 1e-9, FAP 1e-6
# relative), and the hostile ones failed or warned in their rows.
compare() { # results.csv
    awk -F, -v expected="$fixtures/expected.csv" '
        function rel(a, b) { d = a - b; if (d < 0) d = -d; m = b < 0 ? -b : b; return m > 0 ? d / m : d }
        BEGIN { while ((getline line < expected) > 0) { split(line, e, ","); if (e[1] != "id") { want[e[1]] = line; n++ } } }
        NR > 1 { id = $1; sub(/\.csv$/, "", id); seen[id] = 1
            if (id in want) {
                split(want[id], e, ",")
                if ($2 != "ok" || $3 != e[2] || rel($4, e[3]) > 1e-12 || rel($6, e[4]) > 1e-9 || rel($7, e[5]) > 1e-6) {
                    print "  " id ": got " $2 ", " $3 " points, f " $4 ", power " $6 ", FAP " $7 "; astropy: " want[id]; bad++ }
                got++ } }
        END { for (id in want) if (!(id in seen)) { print "  " id ": no row"; bad++ }
              exit (bad > 0 || got != n) }' "$1"
}
row() { grep -E "^\"?$2(\.csv)?\"?," "$1"; }
hostile() { # results.csv files?
    row "$1" single | grep -q ",failed,1,.*needs at least 3 points" &&
    row "$1" flat | grep -q ",failed,40,.*zero variance" &&
    row "$1" gappy | grep -q ",ok,87,.*3 with NaN or infinite values" &&
    { [ "${2:-}" != files ] || row "$1" broken | grep -q ",failed,0,.*unreadable"; }
}

"$batch" "$fixtures/files" -o "$work/files.csv" "${grid[@]}" --backend cpu
check "a folder of files: exit 0" [ $? = 0 ]
check "a folder of files equals astropy" compare "$work/files.csv"
check "a folder of files: hostile objects in their rows" hostile "$work/files.csv" files
check "a folder of files: 10 rows" [ "$(wc -l <"$work/files.csv")" = 11 ]
check "a FITS table beside the CSV" bash -c "head -c 9 '$work/files.fits' | grep -q 'SIMPLE  =' && [ \$(( \$(stat -c %s '$work/files.fits') % 2880 )) = 0 ]"
"$batch" "$fixtures/files/*.csv" -o "$work/glob.csv" "${grid[@]}"
check "a glob gives the folder's table" cmp "$work/files.csv" "$work/glob.csv"

"$batch" "$fixtures/catalogue.csv" -o "$work/table.csv" "${grid[@]}"
check "a table's run records its source for the app" bash -c "grep -q '\"table\": true' '$work/table.source.json' && grep -q 'catalogue.csv' '$work/table.source.json' && grep -q '\"count\": 3000' '$work/table.source.json'"
"$batch" "$fixtures/catalogue.csv" -o "$work/one-thread.csv" "${grid[@]}" --threads 1
check "one CPU thread gives the table of every core" cmp "$work/table.csv" "$work/one-thread.csv"
check "a CSV table equals astropy" compare "$work/table.csv"
check "a CSV table: hostile objects in their rows" hostile "$work/table.csv"
"$batch" "$fixtures/catalogue.fits" -o "$work/fits.csv" "${grid[@]}"
check "a FITS table equals astropy" compare "$work/fits.csv"
check "a FITS table gives the CSV table's results" cmp "$work/table.csv" "$work/fits.csv"
"$batch" "$fixtures/catalogue.csv" -o "$work/named.csv" "${grid[@]}" --time-column TIME \
    --value-column flux --error-column flux_err
check "columns chosen by name" cmp "$work/table.csv" "$work/named.csv"

# The run's timeline: every worker's periodograms, loading, waits and rows, beside an unchanged
# table; a timeline that cannot be written fails the run, after the table is.
out=$("$batch" "$fixtures/catalogue.csv" -o "$work/traced.csv" --frequencies 0.05,2.0,3000 \
    --peaks 3 --trace "$work/traced.json" 2>&1)
check "--trace: the table is the same" cmp "$work/table.csv" "$work/traced.csv"
check "--trace: the run says where its timeline is" grep -qF "timeline is in $work/traced.json" <<<"$out"
for span in '"traceEvents"' '"loading and preparing ' '"waiting for objects"' \
    '"periodogram batch' '"finishing rows"' '"Host: CPU loading"'; do
    check "--trace: the timeline holds $span" grep -qF "$span" "$work/traced.json"
done
mkdir -p "$work/folder.json"
expect 1 "the run's timeline" "$fixtures/catalogue.csv" -o "$work/untraced.csv" "${grid[@]}" \
    --trace "$work/folder.json"
check "--trace that cannot be written: the table is still written" cmp "$work/table.csv" "$work/untraced.csv"

# Settings from a scene file as the app saves it, the options on the line over it.
cat >"$work/scene.json" <<'SCENE'
{"format": "warpscope-scene", "version": 1, "workspace": "periodogram",
 "periodogram": {"gridMode": "linear", "fmin": 0.05, "fmax": 2.0, "count": 3000,
                 "unit": "ordinary", "normalization": "model"}}
SCENE
"$batch" "$fixtures/catalogue.csv" -o "$work/scene.csv" --scene "$work/scene.json" --peaks 3 \
    --quiet --normalization standard
check "a scene file's grid, its normalisation overridden, gives the options' table" \
    cmp "$work/table.csv" "$work/scene.csv"
"$batch" "$fixtures/catalogue.csv" -o "$work/scene-model.csv" --scene "$work/scene.json" \
    --peaks 3 --quiet
check "a scene file's normalisation is used" bash -c \
    "! cmp -s '$work/table.csv' '$work/scene-model.csv' && [ \$(wc -l <'$work/scene-model.csv') = 10 ]"
expect 2 "would replace" "$fixtures/catalogue.csv" -o "$work/x.csv" --scene "$work/scene.json" \
    --trace "$work/scene.json"
check "--trace refused over the scene: the scene is kept" grep -q '"gridMode": "linear"' "$work/scene.json"
echo '{"format": "warpscope-scene", "version": 1, "periodogram": {"count": -5}}' >"$work/bad.json"
expect 2 "bad.json" "$fixtures/files" -o "$work/x.csv" --scene "$work/bad.json"

# Each periodogram written beside the table: the app's export format, one per good object.
mkdir -p "$work/periodograms"
"$batch" "$fixtures/catalogue.csv" -o "$work/with-periodograms.csv" "${grid[@]}" \
    --periodograms "$work/periodograms"
check "--periodograms: the table is the same" cmp "$work/table.csv" "$work/with-periodograms.csv"
check "--periodograms: one file per computed object" \
    [ "$(ls "$work/periodograms" | wc -l)" = 7 ]
check "--periodograms: 3000 frequencies and a header" \
    [ "$(wc -l <"$work/periodograms/star02.periodogram.csv")" = 3001 ]
# The same double, whatever digits each file writes it with.
check "--periodograms: star02's best power is in its periodogram" \
    awk -F, -v p="$(awk -F, '$1 == "star02" { print $6 }' "$work/table.csv")" \
    'NR > 1 && $NF + 0 == p + 0 { found = 1 } END { exit !found }' \
    "$work/periodograms/star02.periodogram.csv"

# --periodograms makes its folder and the parents, as mkdir -p.
"$batch" "$fixtures/catalogue.csv" -o "$work/deep.csv" "${grid[@]}" --periodograms "$work/new/deep"
check "--periodograms makes its folder: exit 0" [ $? = 0 ]
check "--periodograms makes its folder and its parents" [ "$(ls "$work/new/deep" | wc -l)" = 7 ]

# Hostile ids in a table: a spreadsheet never runs one, each object has its own periodogram
# file (a/b and a_b once shared one), an empty id is refused apart from an object called
# "(no id)", and a rerun keeps the periodograms it finds.
{
    echo "id,time,flux"
    for i in 1 2 3 4 5 6 7 8 9 10 11 12; do
        for id in "=cmd|' /C calc'!A0" "-2" "a/b" "a_b" "" "(no id)" "@SUM(A1)"; do
            echo "$id,$i,$(( (i * i + ${#id}) % 7 ))"
        done
    done
} >"$work/hostile-ids.csv"
mkdir -p "$work/hostile-periodograms"
"$batch" "$work/hostile-ids.csv" -o "$work/hostile-ids-results.csv" --frequencies 0.05,2.0,300 \
    --quiet --periodograms "$work/hostile-periodograms"
check "hostile ids: exit 0" [ $? = 0 ]
noFormula() { [ -s "$1" ] && ! tail -n +2 "$1" | grep -qE '^"?[-=+@]'; }
check "hostile ids: no row starts as a formula" noFormula "$work/hostile-ids-results.csv"
check "hostile ids: the formula is text" grep -qF "\"'=cmd|' /C calc'!A0\",ok,12," "$work/hostile-ids-results.csv"
check "hostile ids: -2 is text" grep -qF "\"'-2\",ok,12," "$work/hostile-ids-results.csv"
check "hostile ids: an empty id is refused in its row" grep -qE '^,failed,0,.*empty id' "$work/hostile-ids-results.csv"
check "hostile ids: (no id) is an object of its own" grep -qF "(no id),ok,12," "$work/hostile-ids-results.csv"
check "hostile ids: one periodogram per computed object" [ "$(ls "$work/hostile-periodograms" | wc -l)" = 6 ]
for name in 'a%2Fb' 'a_b' '%28no%20id%29' '%3Dcmd%7C%27%20%2FC%20calc%27%21A0' '-2' '%40SUM%28A1%29'; do
    check "hostile ids: $name.periodogram.csv" [ -s "$work/hostile-periodograms/$name.periodogram.csv" ]
done
check "hostile ids: the FITS table holds the ids as they are" grep -qF "=cmd|' /C calc'!A0" "$work/hostile-ids-results.fits"
cp "$work/hostile-periodograms/a_b.periodogram.csv" "$work/a_b.before"
"$batch" "$work/hostile-ids.csv" -o "$work/hostile-again.csv" --frequencies 0.05,2.0,600 \
    --quiet --periodograms "$work/hostile-periodograms"
check "a rerun keeps the periodograms it finds" cmp "$work/a_b.before" "$work/hostile-periodograms/a_b.periodogram.csv"
kept() { [ "$(grep -c 'periodogram not written: .*already exists' "$1")" = 6 ]; }
check "a rerun says which periodograms it kept" kept "$work/hostile-again.csv"

# A long periodogram is announced with its estimate before it starts, and the ETA is unknown
# until an object is done: 300 000 points at 10^6 frequencies.
mkdir -p "$work/long"
awk 'BEGIN { print "time,flux"; for (i = 0; i < 300000; i++) printf "%d,%d\n", i, (i * 7919) % 13 }' \
    >"$work/long/long.csv"
"$batch" "$work/long" -o "$work/long.csv" --frequencies 0.001,0.4,1000000 --backend cpu \
    2>"$work/long.log" &
pid=$!
# The progress line comes every 10 s off a terminal.
for _ in $(seq 200); do grep -q "ETA" "$work/long.log" && break; sleep 0.1; done
kill -INT $pid
wait $pid
check "a long object is announced with its estimate" \
    grep -qE "object long.csv: 300000 points x 1000000 frequencies x 1 term = 3e\+11 terms: about" "$work/long.log"
check "the ETA is unknown until an object is done" grep -qF "0/1 objects (0 failed), 0.0 objects/s, ETA unknown" "$work/long.log"

# Resumed: four objects, then the rest.
"$batch" "$fixtures/catalogue.csv" -o "$work/resumed.csv" "${grid[@]}" --limit 4
check "--limit 4 keeps 4 rows" [ "$(wc -l <"$work/resumed.csv")" = 5 ]
out=$("$batch" "$fixtures/catalogue.csv" -o "$work/resumed.csv" "${grid[@]}" 2>&1)
check "the rerun says what it skips" grep -qF "4 already in $work/resumed.csv and skipped" <<<"$out"
check "a resumed run gives the uninterrupted table" cmp "$work/table.csv" "$work/resumed.csv"
check "a resumed run's FITS table is the uninterrupted one's" cmp "$work/table.fits" "$work/resumed.fits"
expect 1 "is not a results table with 5 peaks" "$fixtures/catalogue.csv" -o "$work/resumed.csv" --peaks 5

# A rank killed mid-run leaves its part file (here, four rows of one): the rerun merges it
# before anything else, skips its objects and removes it.
head -n 5 "$work/table.csv" >"$work/killed.csv.rank1.part"
out=$("$batch" "$fixtures/catalogue.csv" -o "$work/killed.csv" "${grid[@]}" 2>&1)
check "a killed rank's part is resumed" grep -qF "4 already in $work/killed.csv and skipped" <<<"$out"
check "a killed rank's part, resumed, gives the uninterrupted table" cmp "$work/table.csv" "$work/killed.csv"
check "a killed rank's part is removed once merged" [ ! -e "$work/killed.csv.rank1.part" ]

# Stopped by SIGINT mid-run (a grid large enough that it cannot finish first): it exits 130
# with a valid table of what was done, which a rerun reads.
"$batch" "$fixtures/catalogue.csv" -o "$work/stopped.csv" --frequencies 0.05,2.0,4000000 \
    --threads 1 --quiet 2>"$work/stopped.log" &
pid=$!
# Once it computes (its handler is set by then), half a second in.
for _ in $(seq 300); do grep -q "computing on" "$work/stopped.log" && break; sleep 0.1; done
sleep 0.5
kill -INT $pid
wait $pid
check "SIGINT exits 130" [ $? = 130 ]
check "SIGINT: the table says objects remain" grep -q "objects remain, run again to resume (stopped)" "$work/stopped.log"
rows=$(($(wc -l <"$work/stopped.csv") - 1))
check "SIGINT: fewer than 9 rows were done ($rows)" [ "$rows" -lt 9 ]
out=$("$batch" "$fixtures/catalogue.csv" -o "$work/stopped.csv" --frequencies 0.05,2.0,4000000 --limit 0 2>&1)
check "SIGINT: the rerun reads the table" grep -qF "$rows already in $work/stopped.csv and skipped" <<<"$out"

if [ -n "$mpiexec" ]; then
    # In a sanitizer build the ranks check memory errors but not leaks: Open MPI keeps its
    # one-time state to exit in plugins it unloads first, so LeakSanitizer would see it with
    # unnamed frames that no suppression can match. The single-process runs above check ours.
    mpi=(env "ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" "$mpiexec" --oversubscribe -np 2)
    [ "$(id -u)" = 0 ] && mpi+=(--allow-run-as-root)
    "${mpi[@]}" "$batch" "$fixtures/catalogue.csv" -o "$work/mpi.csv" "${grid[@]}"
    check "mpiexec -np 2: exit 0" [ $? = 0 ]
    check "mpiexec -np 2 gives the table of one process" cmp "$work/table.csv" "$work/mpi.csv"
    "${mpi[@]}" "$batch" "$fixtures/catalogue.csv" -o "$work/mpi-traced.csv" "${grid[@]}" \
        --trace "$work/mpi.json"
    check "mpiexec -np 2 --trace: a timeline per rank" \
        bash -c "grep -qF traceEvents '$work/mpi.rank0.json' && grep -qF traceEvents '$work/mpi.rank1.json'"
    check "mpiexec -np 2 leaves no parts" bash -c "! ls '$work'/mpi.csv.rank* 2>/dev/null"
    "${mpi[@]}" "$batch" "$fixtures/catalogue.fits" -o "$work/mpi-resumed.csv" "${grid[@]}" --limit 5
    "$batch" "$fixtures/catalogue.fits" -o "$work/mpi-resumed.csv" "${grid[@]}"
    check "two ranks, then one process, resumed" cmp "$work/table.csv" "$work/mpi-resumed.csv"
else
    echo "note: no mpiexec given; the MPI cases were not run"
fi

echo "$fails failure(s)"
[ "$fails" = 0 ]
