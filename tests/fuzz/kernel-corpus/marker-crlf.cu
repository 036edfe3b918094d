// warpscope kernel: whole kernel
__global__ void kernel(Out out, Mesh mesh, Refs refs, Params p) { __shared__ float s[32]; }
