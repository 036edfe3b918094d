// @param int n = 8 [1, 64]
// @param bool on = true
// @param float k = 0.5 [0, 1]
// @param bool off = false
// @param int wide = -2147483648 [-2147483648, 2147483647]
// @param int x = 2.0 [0, 4]
// @param bool b = 1
// @param bool r = true [0, 1]
// @param int big = 1 [0, 2147483648]
__global__ void kernel(Out out, Mesh mesh, Refs refs, Params p)
{
    out.write(0, 0, p.on ? float(p.n) * p.k : 0.0f);
}
