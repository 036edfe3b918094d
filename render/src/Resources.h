#pragma once

#include <string_view>

namespace warpscope::render {

// Contents of a file embedded from resources/ (shaders, colormaps), empty if unknown.
std::string_view embeddedResource(std::string_view fileName);

} // namespace warpscope::render
