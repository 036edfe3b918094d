// warpscope kernel: per node
// @param float a = 0 [1, 0]
// @param double b = 1 [0, 2]
// @param float a = 1e39 [0, 1]
__syncthreads(); return "}";
