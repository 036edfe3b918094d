#pragma once

#include "warpscope/gpu/UserKernel.h"

#include <QByteArray>
#include <QString>
#include <optional>

namespace warpscope::scene {

// A kernel's .cu file, as the Kernel workspace saves it: its first line names its shape
// ("// warpscope kernel: per node" or "// warpscope kernel: whole kernel") and the source
// follows. Any other source opens too: one with a __global__ function is a whole kernel,
// else a per-node body.
struct KernelFileRead
{
    std::optional<gpu::KernelSource> kernel; // empty when the file was refused
    QString error;                           // why, naming the file
};

// Parses a kernel file's bytes; source names them in messages (a file name). Text only: an
// empty file, and one holding a NUL byte (which would end the editor's text there), are
// refused, the NUL with its offset.
KernelFileRead parseKernelFile(const QByteArray& bytes, const QString& source);
// Reads a file of at most gpu::kMaxKernelSourceBytes: a missing file, a folder, a device, a
// pipe and a larger file are refused before they are read.
KernelFileRead loadKernelFile(const QString& path);
// The bytes of a .cu file that parseKernelFile reads back as this kernel.
QByteArray kernelFileText(const gpu::KernelSource& kernel);

} // namespace warpscope::scene
