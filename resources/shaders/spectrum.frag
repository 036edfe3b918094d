#version 330 core
uniform vec4 u_color;
in float v_valid;
out vec4 fragColor;

void main()
{
    // Interpolated below 1 along any segment that touches a missing value.
    if (v_valid < 0.999)
        discard;
    fragColor = u_color;
}
