#version 330 core
// A periodogram's line: x in pixel columns from the plot's left edge, y the power. Vertices
// with no finite power mark the segments next to them for discarding.
layout(location = 0) in vec2 a_vertex;
uniform float u_columns;
uniform vec2 u_yRange;
out float v_valid;

void main()
{
    float y = a_vertex.y;
    bool valid = !(isnan(y) || isinf(y) || y != y);
    y = valid ? y : u_yRange.x;
    float x = a_vertex.x / u_columns * 2.0 - 1.0;
    gl_Position = vec4(x, (y - u_yRange.x) / (u_yRange.y - u_yRange.x) * 2.0 - 1.0, 0.0, 1.0);
    v_valid = valid ? 1.0 : 0.0;
}
