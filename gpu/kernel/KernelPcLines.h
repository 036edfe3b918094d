#pragma once

// The user's line of an instruction of a simulator's library, from the line table clang
// writes into it (-gline-tables-only), read with elfutils' libdw. The runner names its
// findings this way: clang's load and store callbacks know the instruction, not the line.
#include <cstdint>
#include <map>
#include <memory>
#include <string>

struct Dwfl_Module;

namespace warpscope::gpu {

class KernelPcLines
{
public:
    KernelPcLines();
    KernelPcLines(const KernelPcLines&) = delete;
    KernelPcLines& operator=(const KernelPcLines&) = delete;
    ~KernelPcLines();

    // The line of kernel.cu that the instruction at pc (a return address: the call before it
    // is looked up) belongs to, or that the wrapper's code it belongs to was inlined into; 0
    // when it is not the user's code or has no line table.
    unsigned userLine(const void* pc);

private:
    struct Module;
    static bool isUserFile(const char* file);
    // The line of the user's code that the wrapper's code at address was inlined into; 0 when
    // none was.
    static unsigned inlinedUserLine(::Dwfl_Module* module, std::uint64_t address);
    std::map<std::string, std::unique_ptr<Module>> m_modules;
};

} // namespace warpscope::gpu
