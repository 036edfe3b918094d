#version 330 core
// Draws a distance field straight from the buffer the backend filled: values row-major with
// a padded pitch, scaled by the field's minimum and maximum (from the vertex shader).
uniform samplerBuffer u_field;
uniform sampler1D u_colormap;
uniform ivec3 u_dims;      // nx, ny, pitch
uniform vec4 u_viewport;   // x, y, width, height in framebuffer pixels
uniform vec4 u_view;       // lon, lat at the viewport's lower left; lon, lat at its upper right
uniform vec4 u_mesh;       // lonMin, latMin, lonMax, latMax
uniform vec3 u_background;
uniform usamplerBuffer u_owners; // block, thread | sm << 16 per node (teaching kernel)
uniform int u_overlay;           // 0 distance, 1 block, 2 thread, 3 warp, 4 SM
uniform int u_lesson;            // 1 when u_owners holds the teaching kernel's record
uniform ivec3 u_launch;          // blockDim.x, blockDim.y, gridDim.x; 0s when not known
uniform vec3 u_uncovered[2];     // the stripes of a node no thread reached
uniform vec3 u_threadRamp[3];    // threadIdx (0, 0), (last, 0) and (0, last)
uniform vec3 u_nonFinite[2];     // the stripes of a node that is NaN or infinite
flat in vec2 v_range;            // minimum, maximum
out vec4 fragColor;

// NaN and infinity by their exponent bits: an isnan() that a driver's fast math may fold away
// would let them fall into the scale's clamp and look like its minimum.
bool finiteValue(float v)
{
    return (floatBitsToUint(v) & 0x7f800000u) != 0x7f800000u;
}

// A value the scale cannot place: stripes of colours outside every colormap.
vec3 nonFiniteColour()
{
    return u_nonFinite[mod(gl_FragCoord.x - gl_FragCoord.y, 8.0) < 4.0 ? 0 : 1];
}

// The node under a framebuffer position, in fractional node units.
vec2 cellAt(vec2 fragXY)
{
    vec2 uv = (fragXY - u_viewport.xy) / u_viewport.zw;
    vec2 geo = mix(u_view.xy, u_view.zw, uv);
    return (geo - u_mesh.xy) / (u_mesh.zw - u_mesh.xy) * vec2(u_dims.xy - 1);
}

bool insideMesh(ivec2 ij)
{
    return ij.x >= 0 && ij.y >= 0 && ij.x < u_dims.x && ij.y < u_dims.y;
}

vec3 hueColour(float hue)
{
    return clamp(abs(mod(hue * 6.0 + vec3(0.0, 4.0, 2.0), 6.0) - 3.0) - 1.0, 0.0, 1.0);
}

// The hue of a warp by where it lies on the mesh: a block at least 32 threads wide holds its
// warps side by side, 32 threads of one row each; a narrower block's warp spans its width and
// 32 / blockDim.x rows. Tile (x, y) of that lattice takes hue (x + 3 y) mod 7, so the warps
// beside, above and below a warp, in its block or the next, never share its hue.
float warpHue(uint block, uint thread)
{
    uint bx = uint(u_launch.x), by = uint(u_launch.y), gx = uint(max(u_launch.z, 1));
    uint first = thread / 32u * 32u;
    uint width = min(bx, 32u), height = max(1u, 32u / bx);
    uint tileX = block % gx * ((bx + width - 1u) / width) + first % bx / width;
    uint tileY = block / gx * ((by + height - 1u) / height) + first / bx / height;
    return float((tileX + 3u * tileY) % 7u) / 7.0;
}

// threadIdx.x moves along one axis of the ramp and threadIdx.y along the other, so a block's
// layout reads at a glance; unshaded by distance, which would blur the ramp.
vec3 threadColour(uint thread)
{
    uint bx = uint(u_launch.x), by = uint(u_launch.y);
    vec2 f = vec2(float(thread % bx) / float(max(bx - 1u, 1u)),
                  float(thread / bx) / float(max(by - 1u, 1u)));
    return u_threadRamp[0] + f.x * (u_threadRamp[1] - u_threadRamp[0])
         + f.y * (u_threadRamp[2] - u_threadRamp[0]);
}

vec3 ownerColour(uvec2 owner, float t)
{
    uint thread = owner.y & 0xffffu;
    bool shaped = u_launch.x > 0; // a record whose launch is known
    if (u_overlay == 2 && shaped)
        return threadColour(thread);
    float hue;
    if (u_overlay == 3 && shaped) {
        hue = warpHue(owner.x, thread);
    } else {
        uint id = u_overlay == 1 ? owner.x : u_overlay == 2 ? thread
                : u_overlay == 3 ? thread / 32u : owner.y >> 16;
        // Neighbouring ids get distant hues (golden ratio).
        hue = fract(float(id % 4096u) * 0.6180339887);
    }
    // The distance shades them.
    return mix(vec3(1.0), hueColour(hue), 0.65) * (0.55 + 0.45 * (1.0 - t));
}

// The block of the node under a framebuffer position; `fallback` outside the mesh.
uint blockAt(vec2 fragXY, uint fallback)
{
    ivec2 ij = ivec2(floor(cellAt(fragXY) + 0.5));
    return insideMesh(ij) ? texelFetch(u_owners, ij.y * u_dims.x + ij.x).r : fallback;
}

void main()
{
    vec2 cell = cellAt(gl_FragCoord.xy);
    ivec2 ij = ivec2(floor(cell + 0.5));
    if (!insideMesh(ij)) {
        fragColor = vec4(u_background, 1.0);
        return;
    }
    float lo = v_range.x;
    float hi = v_range.y;
    float v = texelFetch(u_field, ij.y * u_dims.z + ij.x).r;
    float t = hi > lo ? clamp((v - lo) / (hi - lo), 0.0, 1.0) : 0.0;
    vec3 distanceColour = texture(u_colormap, (t * 255.0 + 0.5) / 256.0).rgb;
    bool finite = finiteValue(v);
    if (u_lesson == 0) { // the common case first, with nothing more to read
        fragColor = vec4(finite ? distanceColour : nonFiniteColour(), 1.0);
        return;
    }
    uvec2 owner = texelFetch(u_owners, ij.y * u_dims.x + ij.x).rg;
    if (owner.x == 0xffffffffu) {
        // No thread reached this node: grey stripes.
        int stripe = mod(gl_FragCoord.x + gl_FragCoord.y, 12.0) < 6.0 ? 0 : 1;
        fragColor = vec4(u_uncovered[stripe], 1.0);
        return;
    }
    if (!finite) {
        fragColor = vec4(nonFiniteColour(), 1.0);
        return;
    }
    if (u_overlay == 0) {
        fragColor = vec4(distanceColour, 1.0);
        return;
    }
    vec3 rgb = ownerColour(owner, t);
    // Block outlines at every zoom: a pixel whose left or lower neighbour shows another
    // block's node is drawn dark, one pixel wide however many nodes a pixel spans; along an
    // axis where a block spans under 4 pixels, lines would hide the colours, so none.
    vec2 nodePixels = u_viewport.zw / (u_view.zw - u_view.xy) * (u_mesh.zw - u_mesh.xy)
                    / vec2(u_dims.xy - 1);
    vec2 blockPixels = nodePixels * (u_launch.x > 0 ? vec2(u_launch.xy) : vec2(1.0));
    if ((blockPixels.x >= 4.0 && blockAt(gl_FragCoord.xy - vec2(1.0, 0.0), owner.x) != owner.x) ||
        (blockPixels.y >= 4.0 && blockAt(gl_FragCoord.xy - vec2(0.0, 1.0), owner.x) != owner.x))
        rgb *= 0.2;
    fragColor = vec4(rgb, 1.0);
}
