#pragma once

// Runs `warpscope-bench pdm|ce` with the arguments after the subcommand. Returns the exit
// status: 2 for bad options, 1 when the work fails.
int runPhaseBench(const char* method, int argc, char** argv);
