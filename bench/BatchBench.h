#pragma once

// Runs `warpscope-bench batch ...` (arguments after "batch"); returns the exit status.
int runBatchBench(int argc, char** argv);
