#version 330 core
// One triangle that covers the viewport; the fragment shader does the mapping. The field's
// minimum and maximum (the two values after the mesh) are read here, once per vertex rather
// than once per pixel.
uniform samplerBuffer u_field;
uniform ivec3 u_dims; // nx, ny, pitch
flat out vec2 v_range;

void main()
{
    vec2 p = vec2(float((gl_VertexID << 1) & 2), float(gl_VertexID & 2));
    gl_Position = vec4(p * 2.0 - 1.0, 0.0, 1.0);
    int stats = u_dims.z * u_dims.y;
    v_range = vec2(texelFetch(u_field, stats).r, texelFetch(u_field, stats + 1).r);
}
