#pragma once

#include <cstdint>
#include <fitsio.h>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace warpscope::gpu {

// Header cards cfitsio 4.2 must not be given, found by fuzzing it:
// - an unquoted value longer than 68 characters: cfitsio copies a keyword's value into a
//   70-byte field with strcpy, past its end ("TTYPE1 =" and 71 characters). No value in
//   valid FITS is that long: a quoted string holds at most 68 characters, numbers far fewer.
// - a mandatory keyword missing, out of its place or not a plain integer (SIMPLE or
//   XTENSION, BITPIX, NAXIS, NAXISn, then PCOUNT and GCOUNT in an extension and TFIELDS in a
//   table, in that order, as the FITS standard requires): cfitsio then goes on with sizes it
//   never set, allocates from them and reads past its buffers ("NAXIS2  =(   8").
// Files with one are refused before cfitsio reads them.
//
// Only header cards are looked at, found as cfitsio finds them: each header's cards up to its
// END card, then its data unit skipped by the size that BITPIX, NAXISn, PCOUNT and GCOUNT
// give. Data may hold any bytes, card-like ones included. A header whose size cannot be
// worked out (random groups) has every card after it looked at, as cfitsio might read any of
// them. Bytes after the last HDU that do not start with XTENSION are not a header.

// Reads the 80-byte card at offset into card; false past the end of the file.
using FitsCardReader = std::function<bool(std::uint64_t offset, char* card)>;

// A card that is refused: where it is, and what is wrong with it ("has an unquoted value of
// more than 68 characters").
struct BadFitsCard
{
    std::uint64_t offset = 0;
    std::string why;
};

// The first refused header card, if any, in a file of fileBytes.
std::optional<BadFitsCard> badHeaderCard(const FitsCardReader& read, std::uint64_t fileBytes);
std::optional<BadFitsCard> badHeaderCard(std::string_view bytes);

// Why source is refused for the card: its keyword and place, for the user.
std::string badCardMessage(const std::string& source, std::string_view card,
                           const BadFitsCard& bad);

// Whether the current HDU of file is a table compressed in tiles (fpack's ZTABLE = T): its
// columns then hold each tile's compressed bytes, not the table's values.
bool isTileCompressedTable(fitsfile* file);

} // namespace warpscope::gpu
