#pragma once

#include <cstdio>
#include <cstring>

namespace warpscope::bench {

// Whether the command line asks for the program's usage (--help or -h, anywhere).
inline bool asksForHelp(int argc, char** argv)
{
    for (int i = 0; i < argc; ++i)
        if (std::strcmp(argv[i], "--help") == 0 || std::strcmp(argv[i], "-h") == 0)
            return true;
    return false;
}

// A program's usage, as every program here prints it: asked for, on stdout with exit status
// 0; after a bad option, on stderr with status 2.
inline int printUsage(const char* text, bool asked)
{
    std::fputs(text, asked ? stdout : stderr);
    return asked ? 0 : 2;
}

} // namespace warpscope::bench
