#pragma once

#include <cstdint>
#include <fitsio.h>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace warpscope::gpu {

// cfitsio 4.2 copies a keyword's value into a 70-byte field with strcpy, past its end when an
// unquoted value is longer (found by fuzzing: "TTYPE1 =" and 71 characters). No value in
// valid FITS is: a quoted string holds at most 68 characters, and numbers far fewer. Files
// with one are refused before cfitsio reads them.
//
// Only header cards are looked at, found as cfitsio finds them: each header's cards up to its
// END card, then its data unit skipped by the size that BITPIX, NAXISn, PCOUNT and GCOUNT
// give. Data may hold any bytes, card-like ones included. A header whose size cannot be
// worked out (a keyword that is not a plain integer, random groups) has every card after it
// looked at, as cfitsio might read any of them.

// Reads the 80-byte card at offset into card; false past the end of the file.
using FitsCardReader = std::function<bool(std::uint64_t offset, char* card)>;

// The offset of the first header card with an overfull value, if any, in a file of fileBytes.
std::optional<std::uint64_t> overfullHeaderCard(const FitsCardReader& read,
                                                std::uint64_t fileBytes);
std::optional<std::uint64_t> overfullHeaderCard(std::string_view bytes);

// Why source is refused for the card at offset: its keyword and place, for the user.
std::string overfullCardMessage(const std::string& source, std::string_view card,
                                std::uint64_t offset);

// Whether the current HDU of file is a table compressed in tiles (fpack's ZTABLE = T): its
// columns then hold each tile's compressed bytes, not the table's values.
bool isTileCompressedTable(fitsfile* file);

} // namespace warpscope::gpu
