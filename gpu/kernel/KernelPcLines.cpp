// Line lookups through libdwfl: each library is reported once, at the address it was loaded.
#include "kernel/KernelPcLines.h"

#include "warpscope/gpu/UserKernel.h"

#include <cstring>
#include <dlfcn.h>
#include <elfutils/libdwfl.h>

namespace warpscope::gpu {

struct KernelPcLines::Module
{
    ~Module()
    {
        if (dwfl)
            dwfl_end(dwfl);
    }
    Dwfl* dwfl = nullptr;
    Dwfl_Module* module = nullptr;
};

KernelPcLines::KernelPcLines() = default;
KernelPcLines::~KernelPcLines() = default;

unsigned KernelPcLines::userLine(const void* pc)
{
    Dl_info info{};
    if (!pc || ::dladdr(pc, &info) == 0 || !info.dli_fname || !info.dli_fbase)
        return 0;
    std::unique_ptr<Module>& m = m_modules[info.dli_fname];
    if (!m) {
        m = std::make_unique<Module>();
        static const Dwfl_Callbacks callbacks = {nullptr, dwfl_standard_find_debuginfo,
                                                 dwfl_offline_section_address, nullptr};
        m->dwfl = dwfl_begin(&callbacks);
        if (m->dwfl) {
            dwfl_report_begin(m->dwfl);
            // Reported at 0: an instruction is looked up by its offset in the file.
            m->module = dwfl_report_elf(m->dwfl, "kernel", info.dli_fname, -1, 0, false);
            dwfl_report_end(m->dwfl, nullptr, nullptr);
        }
    }
    if (!m->module)
        return 0;
    Dwfl_Line* line =
        dwfl_module_getsrc(m->module, reinterpret_cast<Dwarf_Addr>(pc) -
                                          reinterpret_cast<Dwarf_Addr>(info.dli_fbase) - 1);
    int number = 0;
    const char* file =
        line ? dwfl_lineinfo(line, nullptr, &number, nullptr, nullptr, nullptr) : nullptr;
    if (!file || number <= 0)
        return 0;
    const std::size_t length = std::strlen(file), name = std::strlen(kUserSourceName);
    const bool user = length >= name && std::strcmp(file + length - name, kUserSourceName) == 0 &&
                      (length == name || file[length - name - 1] == '/');
    return user ? unsigned(number) : 0;
}

} // namespace warpscope::gpu
