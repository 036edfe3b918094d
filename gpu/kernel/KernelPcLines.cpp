// Line lookups through libdwfl: each library is reported once, at the address it was loaded.
#include "kernel/KernelPcLines.h"

#include "warpscope/gpu/UserKernel.h"

#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <dwarf.h>
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
    const Dwarf_Addr address =
        reinterpret_cast<Dwarf_Addr>(pc) - reinterpret_cast<Dwarf_Addr>(info.dli_fbase) - 1;
    Dwfl_Line* line = dwfl_module_getsrc(m->module, address);
    int number = 0;
    const char* file =
        line ? dwfl_lineinfo(line, nullptr, &number, nullptr, nullptr, nullptr) : nullptr;
    if (!file || number <= 0)
        return 0;
    return isUserFile(file) ? unsigned(number) : inlinedUserLine(m->module, address);
}

bool KernelPcLines::isUserFile(const char* file)
{
    if (!file)
        return false;
    const std::size_t length = std::strlen(file), name = std::strlen(kUserSourceName);
    return length >= name && std::strcmp(file + length - name, kUserSourceName) == 0 &&
           (length == name || file[length - name - 1] == '/');
}

unsigned KernelPcLines::inlinedUserLine(Dwfl_Module* module, Dwarf_Addr address)
{
    // The wrapper's code the user's calls (a buffer's operator[], Out::write) is inlined into
    // theirs: the innermost call made from the user's file is the line.
    Dwarf_Addr bias = 0;
    Dwarf_Die* unit = dwfl_module_addrdie(module, address, &bias);
    Dwarf_Files* files = nullptr;
    std::size_t fileCount = 0;
    if (!unit || dwarf_getsrcfiles(unit, &files, &fileCount) != 0)
        return 0;
    Dwarf_Die* scopes = nullptr;
    const int count = dwarf_getscopes(unit, address - bias, &scopes);
    unsigned found = 0;
    for (int i = 0; i < count && found == 0; ++i) {
        Dwarf_Attribute attribute;
        Dwarf_Word fileIndex = 0, callLine = 0;
        if (dwarf_tag(&scopes[i]) != DW_TAG_inlined_subroutine ||
            !dwarf_attr(&scopes[i], DW_AT_call_file, &attribute) ||
            dwarf_formudata(&attribute, &fileIndex) != 0 ||
            !dwarf_attr(&scopes[i], DW_AT_call_line, &attribute) ||
            dwarf_formudata(&attribute, &callLine) != 0 || fileIndex >= fileCount)
            continue;
        if (isUserFile(dwarf_filesrc(files, fileIndex, nullptr, nullptr)))
            found = unsigned(callLine);
    }
    std::free(scopes);
    return found;
}

} // namespace warpscope::gpu
