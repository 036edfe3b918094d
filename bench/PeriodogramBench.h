#pragma once

// Runs `warpscope-bench periodogram`; returns the exit status.
int runPeriodogramBench(int runs);
