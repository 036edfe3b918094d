#!/usr/bin/env bash
# One CI step, run from the source folder (inside the clean root, or on this machine):
#   first       the README's first command, with --screenshot under Xvfb instead of an open
#               window
#   tests       the README's test command, exactly as written; then the first command's
#               picture must be the requested size and not blank
#   sanitizers  the ASan + UBSan build and its tests (CMake preset "asan")
# The commands are read from the README, so CI runs what a user reads.
set -euo pipefail
cd "$(dirname "$0")/.."

# The line that follows the comment "# install what is missing, build, and $1" in the README.
readmeCommand() {
    local line
    line=$(awk -v key="# install what is missing, build, and $1" \
        'found { print; exit } index($0, key) == 1 { found = 1 }' README.md)
    [ -n "$line" ] || { echo "README.md has no command after \"$1\"" >&2; exit 1; }
    printf '%s' "$line"
}

xvfb=(xvfb-run -a -s "-screen 0 1920x1080x24")
case "${1:-}" in
first)
    command=$(readmeCommand "open the app")
    app=build/app/warpscope
    [[ $command == *"&& $app" ]] || { echo "the README's first command no longer ends in $app"; exit 1; }
    shot=build/first-command.png
    echo "+ ${command} (with --screenshot $shot under Xvfb)"
    eval "${command%"$app"}" '"${xvfb[@]}" "$app" --size 1600x1000 --screenshot "$shot"'
    [ -s "$shot" ] || { echo "FAIL: the first command wrote no screenshot"; exit 1; }
    ;;
tests)
    command=$(readmeCommand "run the tests")
    echo "+ $command"
    eval "$command"
    # The first command builds the app alone; the picture it took is checked with the test
    # build's tool.
    shot=build/first-command.png
    if [ -f "$shot" ]; then
        read -r w h colours < <(build-ci/tests/warpscope_png_diff info "$shot")
        echo "first command's screenshot: ${w}x${h}, $colours colours"
        [ "$w" = 1600 ] && [ "$h" = 1000 ] || { echo "FAIL: the screenshot is ${w}x${h}"; exit 1; }
        [ "$colours" -gt 200 ] || { echo "FAIL: the screenshot looks blank"; exit 1; }
    fi
    ;;
sanitizers)
    echo "+ cmake/setup.sh asan && ctest --preset asan (under Xvfb)"
    cmake/setup.sh asan
    "${xvfb[@]}" ctest --preset asan
    ;;
*)
    echo "usage: $0 first|tests|sanitizers" >&2
    exit 2
    ;;
esac
