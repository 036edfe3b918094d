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
flat in vec2 v_range; // minimum, maximum
out vec4 fragColor;

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
    fragColor = vec4(texture(u_colormap, (t * 255.0 + 0.5) / 256.0).rgb, 1.0);
}
