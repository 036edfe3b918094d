#pragma once

#include "warpscope/gpu/DistanceParams.h"

#include <QString>
#include <span>
#include <string>

namespace warpscope::app {

// NumPy's .npy header, format version 1.0, for a C-ordered little-endian float32 array of
// shape (ny, nx): the magic, the version, the header's length and its dictionary, padded with
// blanks to a newline so that the data starts at a multiple of 64 bytes.
std::string npyHeader(int ny, int nx);

// Writes a field laid out as layout (padded rows; the stats slots are not written) to path as
// a .npy file of shape (ny, nx): row r holds the nodes at the mesh's r-th latitude from its
// minimum, NaN and infinities as they are. The file is replaced whole or not at all. Returns
// an empty string, or why the file could not be written, naming it.
QString writeFieldNpy(const QString& path, std::span<const float> field,
                      const gpu::FieldLayout& layout);

} // namespace warpscope::app
