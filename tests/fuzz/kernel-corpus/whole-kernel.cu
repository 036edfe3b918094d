// @param float gain = 2 [0, 4]
__global__ void kernel(Out out, Mesh mesh, Refs refs, Params p)
{
    /* { */ const int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c < mesh.nx) out.write(0, c, p.gain);
}
