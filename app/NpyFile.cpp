#include "NpyFile.h"

#include <QSaveFile>
#include <bit>
#include <cstdint>

namespace warpscope::app {

// The file holds the host's floats as they are: '<f4' is their layout on little-endian hosts.
static_assert(std::endian::native == std::endian::little, "the .npy writer assumes '<f4'");

std::string npyHeader(int ny, int nx)
{
    std::string dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (" + std::to_string(ny) +
                       ", " + std::to_string(nx) + "), }";
    // Magic (6 bytes), version (2) and the length (2) come before the dictionary.
    constexpr std::size_t kPrefix = 10;
    const std::size_t total = (kPrefix + dict.size() + 1 + 63) / 64 * 64;
    dict.append(total - kPrefix - dict.size() - 1, ' ');
    dict += '\n';
    const auto length = std::uint16_t(dict.size());
    std::string header("\x93NUMPY\x01\x00", 8);
    header += char(length & 0xff);
    header += char(length >> 8);
    return header + dict;
}

QString writeFieldNpy(const QString& path, std::span<const float> field,
                      const gpu::FieldLayout& layout)
{
    if (field.size() < layout.statsOffset())
        return "could not write " + path + ": the field holds fewer values than its mesh";
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly))
        return "could not write " + path + ": " + file.errorString();
    const std::string header = npyHeader(layout.ny, layout.nx);
    bool ok = file.write(header.data(), qint64(header.size())) == qint64(header.size());
    const auto rowBytes = qint64(layout.nx) * qint64(sizeof(float));
    for (int row = 0; ok && row < layout.ny; ++row)
        ok = file.write(reinterpret_cast<const char*>(field.data() + layout.index(row, 0)),
                        rowBytes) == rowBytes;
    if (!ok || !file.commit())
        return "could not write " + path + ": " + file.errorString();
    return {};
}

} // namespace warpscope::app
