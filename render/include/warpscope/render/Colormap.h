#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace warpscope::render {

// A perceptual colour table of 256 sRGB entries (resources/colormaps).
struct Colormap
{
    std::string name;
    std::array<std::array<float, 3>, 256> rgb{};
};

std::vector<std::string> colormapNames();
std::optional<Colormap> loadColormap(std::string_view name);

} // namespace warpscope::render
