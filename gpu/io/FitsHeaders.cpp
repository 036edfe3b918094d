#include "io/FitsHeaders.h"

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace warpscope::gpu {
namespace {

constexpr std::uint64_t kCardBytes = 80, kBlockBytes = 2880;
constexpr std::size_t kMaxValue = 68;

bool overfull(std::string_view card)
{
    // cfitsio ends a keyword at the first '=', wherever it is.
    const std::size_t equals = card.find('=');
    if (equals == std::string_view::npos)
        return false;
    const bool keyword = std::all_of(card.begin(), card.begin() + equals, [](char c) {
        return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
               c == '-' || c == '_' || c == ' ';
    });
    std::string_view value = card.substr(equals + 1);
    value.remove_prefix(std::min(value.size(), value.find_first_not_of(' ')));
    value = value.substr(0, value.find('/'));
    value.remove_suffix(value.size() - std::min(value.size(), value.find_last_not_of(' ') + 1));
    return keyword && !value.starts_with('\'') && value.size() > kMaxValue;
}

// The card's keyword: its first 8 columns without the trailing blanks.
std::string_view keywordOf(std::string_view card)
{
    std::string_view key = card.substr(0, 8);
    const std::size_t last = key.find_last_not_of(' ');
    return last == std::string_view::npos ? std::string_view{} : key.substr(0, last + 1);
}

// A value card's integer ("NAXIS1  =                  100 / comment"), if it is one.
std::optional<long long> integerValue(std::string_view card)
{
    if (card.size() < 10 || card.substr(8, 2) != "= ")
        return std::nullopt;
    const std::string text(card.substr(10));
    const char* begin = text.c_str();
    char* end = nullptr;
    errno = 0;
    const long long v = std::strtoll(begin, &end, 10);
    if (end == begin || errno == ERANGE)
        return std::nullopt;
    for (const char* p = end; *p; ++p) {
        if (*p == '/')
            break;
        if (*p != ' ')
            return std::nullopt;
    }
    return v;
}

std::uint64_t wholeBlocks(std::uint64_t bytes)
{
    return (bytes + kBlockBytes - 1) / kBlockBytes * kBlockBytes;
}

// What one header says of its data unit's size, read card by card.
struct DataSize
{
    std::optional<long long> bitpix, naxis, pcount = 0, gcount = 1;
    std::array<std::optional<long long>, 1000> axes{};
    bool known = true; // false: a size keyword that is not a plain integer

    void read(std::string_view card)
    {
        const std::string_view key = keywordOf(card);
        std::optional<long long>* slot = nullptr;
        if (key == "BITPIX")
            slot = &bitpix;
        else if (key == "NAXIS")
            slot = &naxis;
        else if (key == "PCOUNT")
            slot = &pcount;
        else if (key == "GCOUNT")
            slot = &gcount;
        else if (key.size() > 5 && key.substr(0, 5) == "NAXIS") {
            int n = 0;
            for (const char c : key.substr(5)) {
                if (c < '0' || c > '9' || n > 99)
                    return; // not an axis keyword, for cfitsio either
                n = n * 10 + (c - '0');
            }
            if (n < 1 || n > 999)
                return;
            slot = &axes[std::size_t(n)];
        }
        if (!slot)
            return;
        *slot = integerValue(card);
        known = known && slot->has_value();
    }

    // The data unit's bytes, whole blocks, or nothing when the header does not say; a size
    // beyond limit (no larger than the file) is limit.
    std::optional<std::uint64_t> bytes(std::uint64_t limit) const
    {
        if (!known || !bitpix || !naxis || *naxis < 0 || *naxis > 999 || *pcount < 0 || *gcount < 0)
            return std::nullopt;
        if (*bitpix != 8 && *bitpix != 16 && *bitpix != 32 && *bitpix != 64 && *bitpix != -32 &&
            *bitpix != -64)
            return std::nullopt;
        if (*naxis == 0)
            return 0;
        // Products saturate at limit, so that hostile sizes cannot wrap around.
        const auto times = [limit](std::uint64_t a, std::uint64_t b) {
            return a != 0 && b > limit / a ? limit : std::min(a * b, limit);
        };
        std::uint64_t elements = 1;
        for (long long n = 1; n <= *naxis; ++n) {
            const auto& axis = axes[std::size_t(n)];
            if (!axis || *axis < 0 || (n == 1 && *axis == 0 && *naxis > 1))
                return std::nullopt; // missing, or random groups
            elements = times(elements, std::uint64_t(*axis));
        }
        const std::uint64_t items = std::min(limit, std::uint64_t(*pcount) + elements);
        const std::uint64_t total =
            times(times(std::uint64_t(std::llabs(*bitpix) / 8), std::uint64_t(*gcount)), items);
        return total >= limit ? limit : wholeBlocks(total);
    }
};

// The cards every header must start with, checked one after another: SIMPLE or XTENSION,
// BITPIX, NAXIS, NAXIS1 to NAXISn, then PCOUNT and GCOUNT in an extension and TFIELDS in a
// table, each with a plain integer where a number is due.
class MandatoryCards
{
public:
    explicit MandatoryCards(bool primary) : m_primary(primary) {}

    // Why card, the next of the header, is not the one due; nothing once they have all come.
    std::optional<std::string> check(std::string_view card)
    {
        const long long k = m_seen++;
        const std::string due = dueKeyword(k);
        if (due.empty())
            return std::nullopt;
        if (keywordOf(card) != due)
            return "should be " + due + " (card " + std::to_string(k + 1) + " of its header)";
        if (k == 0) {
            if (!m_primary)
                m_table = quotedValue(card) == "BINTABLE" || quotedValue(card) == "TABLE";
            return std::nullopt;
        }
        const std::optional<long long> value = integerValue(card);
        if (!value)
            return "does not hold a whole number";
        if (k == 2) {
            if (*value < 0 || *value > 999)
                return "gives NAXIS " + std::to_string(*value) + ", not 0 to 999";
            m_axes = *value;
        }
        return std::nullopt;
    }

private:
    // The keyword due as card k (from 0) of the header, or "" when none is.
    std::string dueKeyword(long long k) const
    {
        if (k == 0)
            return m_primary ? "SIMPLE" : "XTENSION";
        if (k == 1)
            return "BITPIX";
        if (k == 2)
            return "NAXIS";
        if (k < 3 + m_axes)
            return "NAXIS" + std::to_string(k - 2);
        if (m_primary)
            return {};
        const long long after = k - 3 - m_axes;
        return after == 0              ? "PCOUNT"
               : after == 1            ? "GCOUNT"
               : after == 2 && m_table ? "TFIELDS"
                                       : "";
    }

    // A string value's text without its quotes and trailing blanks ("'BINTABLE'" gives
    // BINTABLE).
    static std::string_view quotedValue(std::string_view card)
    {
        std::string_view value = card.substr(std::min<std::size_t>(card.size(), 10));
        value.remove_prefix(std::min(value.size(), value.find_first_not_of(' ')));
        if (!value.starts_with('\''))
            return {};
        value.remove_prefix(1);
        value = value.substr(0, value.find('\''));
        return value.substr(0, value.find_last_not_of(' ') + 1);
    }

    bool m_primary;
    bool m_table = false;
    long long m_seen = 0;
    long long m_axes = 0;
};

} // namespace

std::optional<BadFitsCard> badHeaderCard(const FitsCardReader& read, std::uint64_t fileBytes)
{
    char buffer[kCardBytes];
    std::uint64_t at = 0;
    for (int hdu = 0; at + kCardBytes <= fileBytes; ++hdu) {
        DataSize size;
        MandatoryCards mandatory(hdu == 0);
        bool ended = false;
        for (long long index = 0; read(at, buffer); at += kCardBytes, ++index) {
            const std::string_view card(buffer, kCardBytes);
            if (overfull(card))
                return BadFitsCard{at, "has an unquoted value of more than 68 characters"};
            if (index == 0 && hdu > 0 && keywordOf(card) != "XTENSION")
                return std::nullopt; // not an extension: cfitsio reads no further
            if (std::optional<std::string> why = mandatory.check(card))
                return BadFitsCard{at, *why};
            if (keywordOf(card) == "END") {
                ended = true;
                break;
            }
            size.read(card);
        }
        if (!ended)
            return std::nullopt; // the file ends inside this header
        const std::optional<std::uint64_t> data = size.bytes(fileBytes);
        if (!data) {
            // Where cfitsio would look for the next header is not known: every later card is
            // looked at.
            for (at += kCardBytes; read(at, buffer); at += kCardBytes)
                if (overfull(std::string_view(buffer, kCardBytes)))
                    return BadFitsCard{at, "has an unquoted value of more than 68 characters"};
            return std::nullopt;
        }
        at = wholeBlocks(at + kCardBytes);
        at = *data >= fileBytes - std::min(at, fileBytes) ? fileBytes : at + *data;
    }
    return std::nullopt;
}

std::optional<BadFitsCard> badHeaderCard(std::string_view bytes)
{
    return badHeaderCard(
        [bytes](std::uint64_t offset, char* card) {
            if (offset + kCardBytes > bytes.size())
                return false;
            std::memcpy(card, bytes.data() + offset, kCardBytes);
            return true;
        },
        bytes.size());
}

bool isTileCompressedTable(fitsfile* file)
{
    int status = 0, compressed = 0;
    if (fits_read_key(file, TLOGICAL, "ZTABLE", &compressed, nullptr, &status)) {
        fits_clear_errmsg();
        return false;
    }
    return compressed != 0;
}

std::string badCardMessage(const std::string& source, std::string_view card, const BadFitsCard& bad)
{
    if (bad.offset == 0 && keywordOf(card) != "SIMPLE")
        return source + " is not a FITS file (FITS files start with the card SIMPLE)";
    std::string keyword;
    for (const char c : keywordOf(card.substr(0, 8)))
        keyword += c > ' ' && c <= '~' ? c : '?';
    return source + ": the header card " + (keyword.empty() ? "(blank)" : keyword) + " (card " +
           std::to_string(bad.offset / kCardBytes + 1) + " of the file) " + bad.why +
           ", which is not valid FITS";
}

} // namespace warpscope::gpu
