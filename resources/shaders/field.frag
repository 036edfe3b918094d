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

void main()
{
    vec2 uv = (gl_FragCoord.xy - u_viewport.xy) / u_viewport.zw;
    vec2 geo = mix(u_view.xy, u_view.zw, uv);
    vec2 cell = (geo - u_mesh.xy) / (u_mesh.zw - u_mesh.xy) * vec2(u_dims.xy - 1);
    ivec2 ij = ivec2(floor(cell + 0.5));
    if (ij.x < 0 || ij.y < 0 || ij.x >= u_dims.x || ij.y >= u_dims.y) {
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
        float stripe = mod(gl_FragCoord.x + gl_FragCoord.y, 12.0) < 6.0 ? 0.32 : 0.42;
        fragColor = vec4(vec3(stripe), 1.0);
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
    uint thread = owner.y & 0xffffu;
    uint id = u_overlay == 1 ? owner.x : u_overlay == 2 ? thread
            : u_overlay == 3 ? thread / 32u : owner.y >> 16;
    // Neighbouring ids get distant hues (golden ratio); the distance shades them.
    float hue = fract(float(id % 4096u) * 0.6180339887);
    vec3 rgb = clamp(abs(mod(hue * 6.0 + vec3(0.0, 4.0, 2.0), 6.0) - 3.0) - 1.0, 0.0, 1.0);
    rgb = mix(vec3(1.0), rgb, 0.65) * (0.55 + 0.45 * (1.0 - t));
    // Block boundaries, once cells are at least 6 pixels wide.
    vec2 cellPixels = u_viewport.zw / ((u_view.zw - u_view.xy) / (u_mesh.zw - u_mesh.xy)
                                       * vec2(u_dims.xy - 1));
    vec2 inCell = fract(cell + 0.5) * cellPixels;
    if (cellPixels.x >= 6.0 && inCell.x < 1.0 && ij.x > 0 &&
        texelFetch(u_owners, ij.y * u_dims.x + ij.x - 1).r != owner.x)
        rgb *= 0.2;
    if (cellPixels.y >= 6.0 && inCell.y < 1.0 && ij.y > 0 &&
        texelFetch(u_owners, (ij.y - 1) * u_dims.x + ij.x).r != owner.x)
        rgb *= 0.2;
    fragColor = vec4(rgb, 1.0);
}
