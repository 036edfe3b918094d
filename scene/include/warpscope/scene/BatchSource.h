#pragma once

#include "warpscope/gpu/Catalogue.h"
#include "warpscope/gpu/Status.h"
#include "warpscope/scene/PeriodogramScene.h"

#include <string>

namespace warpscope::scene {

// Where a run of warpscope-batch took its objects from and how it analysed them, written
// beside its results table (batchSourcePath) so that the app can open any object as the batch
// saw it: its rows of a long table, with the same columns, preparation and periodogram.
// Results tables written before it have no such file; their objects open only as light-curve
// files beside the table.
struct BatchSource
{
    std::string input;         // the folder, glob or table, as an absolute path
    bool table = false;        // one table of many objects (else one file per object)
    gpu::TableColumns columns; // a table's id, t, y and dy columns as given ("" recognised)
    gpu::TimeFormat timeFormat = gpu::TimeFormat::Auto;
    PeriodogramScene scene; // masks, detrending, grid, normalisation, ...
    int peaks = 3;
    bool operator==(const BatchSource&) const = default;
};

// The source file of a results table: FILE.csv gives FILE.source.json.
std::string batchSourcePath(const std::string& resultsCsv);

// Writes the source beside the results table, atomically (JSON: "format":
// "warpscope-batch-source", "version": 1, input, table, columns {id, t, y, dy}, timeFormat,
// peaks and the periodogram scene as a scene file holds it).
gpu::Status writeBatchSource(const std::string& resultsCsv, const BatchSource& source);

// Reads the source of a results table. found is false, and the call succeeds, when the table
// has none (an older run); a file that is there but malformed fails, saying why.
gpu::Status readBatchSource(const std::string& resultsCsv, BatchSource& source, bool& found);

// The light-curve file of object id of a run over files: the id is the file's name, in the
// input folder or the folder of the input glob (a last part with *, ? or [), or, where two
// files shared a name, the path itself. Empty for a table's objects.
std::string batchObjectFile(const BatchSource& source, const std::string& id);

} // namespace warpscope::scene
