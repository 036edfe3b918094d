#include "warpscope/render/Colormap.h"

#include "Resources.h"

#include <sstream>
#include <string>
#include <utility>

namespace warpscope::resources {
extern const std::pair<std::string_view, std::string_view> kEmbedded[];
extern const int kEmbeddedCount;
} // namespace warpscope::resources

namespace warpscope::render {
namespace {

std::string_view embedded(std::string_view fileName)
{
    for (int i = 0; i < resources::kEmbeddedCount; ++i)
        if (resources::kEmbedded[i].first == fileName)
            return resources::kEmbedded[i].second;
    return {};
}

} // namespace

std::string_view embeddedResource(std::string_view fileName)
{
    return embedded(fileName);
}

std::vector<std::string> colormapNames()
{
    return {"viridis", "magma", "inferno", "cividis", "turbo"};
}

std::optional<Colormap> loadColormap(std::string_view name)
{
    const std::string_view text = embedded(std::string(name) + ".csv");
    if (text.empty())
        return std::nullopt;
    Colormap map;
    map.name = std::string(name);
    std::istringstream in{std::string(text)};
    std::string line;
    std::size_t row = 0;
    while (std::getline(in, line) && row < map.rgb.size()) {
        if (line.empty() || line[0] == '#')
            continue;
        std::istringstream fields(line);
        char comma = 0;
        auto& c = map.rgb[row];
        if (fields >> c[0] >> comma >> c[1] >> comma >> c[2])
            ++row;
    }
    if (row != map.rgb.size())
        return std::nullopt;
    return map;
}

} // namespace warpscope::render
