#pragma once

#include <optional>
#include <string>

namespace warpscope::scene {

// How an object's id is written where a person opens it: a results table's text cell, and the
// name of its periodogram's file. Both are reversible, so that every id, however hostile,
// reads back as itself.

// A text cell a spreadsheet shows as text, never runs (OWASP's CSV injection rule): a text
// starting with =, +, -, @, a tab or a carriage return gains a leading single quote, as does
// one starting with a quote, so that the reader's one rule (a leading quote is dropped) gives
// every text back. Numeric-looking ids such as "-2" are quoted too: a spreadsheet would read
// them as numbers or formulas, not as the id.
std::string spreadsheetSafe(const std::string& text);
// The text of a cell spreadsheetSafe wrote.
std::string fromSpreadsheetSafe(const std::string& cell);

// The file name of an object's periodogram: its id with every byte other than ASCII letters,
// digits, '-', '_' and '.' written as %XX (upper-case hex), a leading '.' too (no hidden
// file, no "." or ".."), then ".periodogram.csv". Distinct ids give distinct names. Empty for
// an empty id, which has no object of its own.
std::string periodogramFileName(const std::string& id);
// The id whose periodogram file is called name, or none when no id gives that name.
std::optional<std::string> periodogramFileId(const std::string& name);

} // namespace warpscope::scene
