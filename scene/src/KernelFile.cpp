#include "warpscope/scene/KernelFile.h"

#include <QFile>
#include <QFileInfo>

namespace warpscope::scene {
namespace {

const QByteArray kPerNodeMarker = "// warpscope kernel: per node";
const QByteArray kWholeKernelMarker = "// warpscope kernel: whole kernel";
constexpr qint64 kMaxBytes = qint64(gpu::kMaxKernelSourceBytes);

KernelFileRead refuse(const QString& source, const QString& why)
{
    return {std::nullopt, source + ": " + why};
}

QString tooLarge()
{
    return QStringLiteral("is larger than %1 KiB, too large for a kernel's source")
        .arg(kMaxBytes / 1024);
}

} // namespace

KernelFileRead parseKernelFile(const QByteArray& bytes, const QString& source)
{
    if (bytes.isEmpty())
        return refuse(source, QStringLiteral("is empty: there is no kernel in it"));
    if (bytes.size() > kMaxBytes + qint64(kWholeKernelMarker.size()) + 1)
        return refuse(source, tooLarge());
    // The editor's text ends at a NUL, so the kernel compiled would be a part of the file.
    if (const qsizetype at = bytes.indexOf('\0'); at >= 0)
        return refuse(source, QStringLiteral("holds a NUL byte at byte %1: a kernel's source is "
                                             "text, not binary data")
                                  .arg(at));
    const qsizetype end = bytes.indexOf('\n');
    const QByteArray first = bytes.left(end < 0 ? bytes.size() : end).trimmed();
    gpu::KernelSource kernel;
    if (first == kPerNodeMarker || first == kWholeKernelMarker) {
        kernel.shape =
            first == kPerNodeMarker ? gpu::KernelShape::PerNode : gpu::KernelShape::WholeKernel;
        kernel.code = end < 0 ? std::string() : bytes.mid(end + 1).toStdString();
    } else {
        kernel.shape = bytes.contains("__global__") ? gpu::KernelShape::WholeKernel
                                                    : gpu::KernelShape::PerNode;
        kernel.code = bytes.toStdString();
    }
    if (kernel.code.size() > gpu::kMaxKernelSourceBytes)
        return refuse(source, tooLarge());
    return {std::move(kernel), {}};
}

KernelFileRead loadKernelFile(const QString& path)
{
    const QFileInfo info(path);
    if (!info.exists())
        return refuse(path, QStringLiteral("no such file"));
    if (info.isDir())
        return refuse(path, QStringLiteral("is a folder, not a kernel's source"));
    // A device or a pipe may never end (/dev/zero), so only regular files are read.
    if (!info.isFile())
        return refuse(path, QStringLiteral("is not a regular file (a device, a pipe or a "
                                           "socket), so it cannot hold a kernel"));
    // The marker line is not part of the source, so a saved kernel of the largest size opens.
    const qint64 limit = kMaxBytes + qint64(kWholeKernelMarker.size()) + 1;
    if (info.size() > limit)
        return refuse(path, tooLarge());
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return refuse(path, QStringLiteral("cannot be read: %1").arg(file.errorString()));
    // One byte more than the limit, in case the file grew since it was measured.
    return parseKernelFile(file.read(limit + 1), path);
}

QByteArray kernelFileText(const gpu::KernelSource& kernel)
{
    return (kernel.shape == gpu::KernelShape::PerNode ? kPerNodeMarker : kWholeKernelMarker) +
           '\n' + QByteArray::fromStdString(kernel.code);
}

} // namespace warpscope::scene
