// libFuzzer target for the scene reader: any bytes either are refused with a message that
// names the source, or give a scene that passes validation and survives a round trip.
#include "warpscope/scene/SceneFile.h"

#include <cstdint>
#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    using namespace warpscope::scene;
    const QByteArray bytes(reinterpret_cast<const char*>(data), qsizetype(size));
    const SceneRead read = parseScene(bytes, QStringLiteral("fuzz.json"));
    if (!read.scene) {
        if (!read.error.startsWith(QStringLiteral("fuzz.json: ")))
            std::abort();
        return 0;
    }
    if (!read.error.isEmpty() || !validate(*read.scene).ok())
        std::abort();
    const SceneRead again = parseScene(sceneToJson(*read.scene), QStringLiteral("again"));
    if (!again.scene || !(*again.scene == *read.scene) || !again.warnings.isEmpty())
        std::abort();
    return 0;
}
