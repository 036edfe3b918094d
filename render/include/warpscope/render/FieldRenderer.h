#pragma once

#include "warpscope/gpu/DistanceParams.h"
#include "warpscope/gpu/LaunchConfig.h"
#include "warpscope/gpu/Status.h"
#include "warpscope/render/Colormap.h"

#include <array>
#include <cstdint>
#include <span>
#include <vector>

namespace warpscope::render {

// A GL buffer the field is written into (GlWriteScope.h), and the buffer texture the shader
// reads it through.
struct FieldSurface
{
    unsigned int buffer = 0;
    unsigned int texture = 0;
    gpu::FieldLayout layout;

    bool valid() const { return buffer != 0; }
    std::size_t bytes() const { return layout.elementCount() * sizeof(float); }
};

// What the teaching kernel recorded per node (gpu/LaunchLesson.h): two 32-bit words, read
// by the shader through an RG32UI buffer texture.
struct OwnerSurface
{
    unsigned int buffer = 0;
    unsigned int texture = 0;
    std::size_t nodes = 0;
    bool valid() const { return buffer != 0; }
    std::size_t bytes() const { return 2 * nodes * sizeof(std::uint32_t); }
};

// How the field is coloured: by distance, or by which block, thread, warp or SM computed it;
// or (a user kernel whose launch the simulator recorded, gpu/MemoryPaint.h) by its warp's
// sectors per request, bank-conflict ways or active lanes, which the caller paints as values.
enum class Overlay
{
    Distance,
    Block,
    Thread,
    Warp,
    Sm,
    Sectors,
    Conflicts,
    Lanes
};

inline bool isMemoryOverlay(Overlay overlay)
{
    return overlay >= Overlay::Sectors;
}

// Nodes whose value is NaN, +inf or -inf are drawn in diagonal stripes of these two colours,
// which lie far from every colormap's entries, so such a node is never read as a value. The
// three share one pattern: each means the kernel produced no value the scale can place (an
// overflow, a division by zero, an invalid operation), and the hover readout says which.
inline constexpr std::array<std::array<float, 3>, 2> kNonFiniteStripes = {
    {{1.0f, 0.0f, 1.0f}, {1.0f, 0.6f, 1.0f}}};

// The teaching overlays' colours, which a legend beside the picture repeats. Nodes no thread
// reached are striped in these two greys.
inline constexpr std::array<std::array<float, 3>, 2> kUncoveredStripes = {
    {{0.32f, 0.32f, 0.32f}, {0.42f, 0.42f, 0.42f}}};
// Block 0, the first warp of block 0 and SM 0 at the nearest distance (hue 0, toward white);
// farther nodes are darker, down to 55% at the farthest.
inline constexpr std::array<float, 3> kFirstOwnerColour = {1.0f, 0.35f, 0.35f};
// threadIdx colours: (0, 0), the last x of row 0, and the last y of column 0; a thread
// between them is their bilinear blend (threadRampColour).
inline constexpr std::array<std::array<float, 3>, 3> kThreadRamp = {
    {{0.15f, 0.15f, 0.55f}, {1.0f, 0.15f, 0.55f}, {0.15f, 1.0f, 0.55f}}};

// The Thread overlay's colour at fractions fx of the block's width and fy of its height.
inline std::array<float, 3> threadRampColour(float fx, float fy)
{
    std::array<float, 3> rgb{};
    for (int c = 0; c < 3; ++c)
        rgb[c] = kThreadRamp[0][c] + fx * (kThreadRamp[1][c] - kThreadRamp[0][c]) +
                 fy * (kThreadRamp[2][c] - kThreadRamp[0][c]);
    return rgb;
}

// Geographic rectangle in degrees: longitude x, latitude y.
struct GeoRect
{
    double lonMin = 0.0, latMin = 0.0, lonMax = 1.0, latMax = 1.0;
    bool operator==(const GeoRect&) const = default;
};

struct Viewport
{
    int x = 0, y = 0, width = 1, height = 1; // framebuffer pixels, origin lower left
};

// Draws a distance field as a heat map. Plain OpenGL 3.3 core and no Qt, so it runs in any
// current context: a QOpenGLWidget, or a headless EGL context in tests and benchmarks.
// All methods need the context current; the owner calls release() before the context goes.
class FieldRenderer
{
public:
    FieldRenderer() = default;
    FieldRenderer(const FieldRenderer&) = delete;
    FieldRenderer& operator=(const FieldRenderer&) = delete;

    gpu::Status initialize();
    void release();
    bool initialized() const { return m_program != 0; }

    // Whether the driver can address a field of this layout as a buffer texture.
    gpu::Status checkCapacity(const gpu::FieldLayout& layout) const;
    // Allocates a surface for a field layout. Fails with a message when the field exceeds
    // what the driver can address as a buffer texture or allocate.
    gpu::Status createSurface(const gpu::FieldLayout& layout, FieldSurface& surface);
    void destroySurface(FieldSurface& surface);

    void setColormap(const Colormap& colormap);
    // Draws the mesh (geographic extent `mesh`) so that `view` fills `viewport`. Nodes that are
    // not finite get kNonFiniteStripes. With owners (the teaching kernel's record), nodes no
    // thread reached are striped grey and overlay colours nodes by the block, thread, warp or
    // SM that computed them, with the outlines between blocks. launch, the launch that wrote
    // owners, places each thread in its block: threads are then coloured by their (x, y) in
    // it and warps by their place on the mesh; without it, both by their index in the block.
    void draw(const FieldSurface& surface, const GeoRect& mesh, const GeoRect& view,
              const Viewport& viewport, const std::array<float, 3>& background,
              Overlay overlay = Overlay::Distance, const OwnerSurface* owners = nullptr,
              const gpu::LaunchConfig* launch = nullptr);

    // Uploads owners (2 words per node) into surface, reallocating it when the count changes.
    gpu::Status uploadOwners(std::span<const std::uint32_t> owners, OwnerSurface& surface);
    void destroyOwners(OwnerSurface& surface);
    // Makes surface hold room for `nodes` owners (contents undefined), to be written.
    gpu::Status allocateOwners(std::size_t nodes, OwnerSurface& surface);
    // Reads one node's value back from the field's GL buffer.
    bool readValue(const FieldSurface& surface, int row, int col, float& value) const;
    // Reads one node's two owner words back from the GL buffer.
    bool readOwner(const OwnerSurface& surface, std::size_t node, std::uint32_t (&words)[2]) const;
    // Reads every node's owner words back (2 per node).
    bool readOwners(const OwnerSurface& surface, std::vector<std::uint32_t>& words) const;
    // Fills a surface made by createSurface with host values (its layout's elementCount()).
    gpu::Status uploadField(std::span<const float> values, FieldSurface& surface);

    long long maxTextureBufferTexels() const { return m_maxTexels; }
    std::string glRenderer() const;

private:
    unsigned int m_program = 0;
    unsigned int m_vao = 0;
    unsigned int m_colormapTexture = 0;
    long long m_maxTexels = 0;
    int m_locField = -1, m_locColormap = -1, m_locDims = -1, m_locViewport = -1;
    int m_locView = -1, m_locMesh = -1, m_locBackground = -1;
    int m_locOwners = -1, m_locOverlay = -1, m_locLesson = -1, m_locNonFinite = -1;
    int m_locLaunch = -1, m_locUncovered = -1, m_locThreadRamp = -1;
};

} // namespace warpscope::render
