// warpscope kernel: per node
// Voronoi cells by Manhattan distance, shaded by distance to the cell's reference.
// @param float edge = 0.6 [0, 5]
// @param float shade = 0.15 [0, 1]
float best = 1e30f, second = 1e30f;
int nearest = 0;
for (int i = 0; i < refs.count; ++i) {
    const float d = fabsf(float(lat - refs[i].lat)) + fabsf(float(lon - refs[i].lon));
    if (d < best) {
        second = best;
        best = d;
        nearest = i;
    } else if (d < second) {
        second = d;
    }
}
if (second - best < p.edge)
    return -1.0f;
return float(nearest) + p.shade * sinf(best * 0.2f);
