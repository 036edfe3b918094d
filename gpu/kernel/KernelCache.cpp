// The workbench's disk cache: one file per build, named by a hash of its key, holding the
// whole key so that a hash collision reads as a miss.
#include "kernel/KernelShared.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <unistd.h>

namespace warpscope::gpu {
namespace {

constexpr char kMagic[] = "warpscope-kernel-cache 1\n";
constexpr std::uint64_t kMaxBlobBytes = std::uint64_t(1) << 30;

void putBlob(std::string& out, std::string_view blob)
{
    const std::uint64_t size = blob.size();
    out.append(reinterpret_cast<const char*>(&size), sizeof size);
    out.append(blob);
}

bool getBlob(std::string_view& in, std::string& blob)
{
    std::uint64_t size = 0;
    if (in.size() < sizeof size)
        return false;
    std::copy_n(in.data(), sizeof size, reinterpret_cast<char*>(&size));
    in.remove_prefix(sizeof size);
    if (size > kMaxBlobBytes || size > in.size())
        return false;
    blob.assign(in.substr(0, size));
    in.remove_prefix(size);
    return true;
}

} // namespace

std::string hashHex(std::string_view text)
{
    std::uint64_t hash = 1469598103934665603ull;
    for (const char c : text) {
        hash ^= static_cast<unsigned char>(c);
        hash *= 1099511628211ull;
    }
    char digits[17];
    std::snprintf(digits, sizeof digits, "%016llx", static_cast<unsigned long long>(hash));
    return digits;
}

std::optional<CacheEntry> readCacheEntry(const std::string& path, std::string_view key)
{
    std::ifstream file(path, std::ios::binary);
    if (!file)
        return std::nullopt;
    const std::string bytes((std::istreambuf_iterator<char>(file)), {});
    std::string_view in = bytes;
    const std::string_view magic = kMagic;
    if (!in.starts_with(magic))
        return std::nullopt;
    in.remove_prefix(magic.size());
    CacheEntry entry;
    if (!getBlob(in, entry.key) || entry.key != key)
        return std::nullopt;
    std::string blob;
    while (!in.empty()) {
        if (!getBlob(in, blob))
            return std::nullopt; // truncated or damaged: a miss
        entry.blobs.push_back(std::move(blob));
    }
    return entry;
}

bool writeCacheEntry(const std::string& path, const CacheEntry& entry)
{
    std::error_code error;
    const std::filesystem::path target(path);
    std::filesystem::create_directories(target.parent_path(), error);
    std::string bytes = kMagic;
    putBlob(bytes, entry.key);
    for (const std::string& blob : entry.blobs)
        putBlob(bytes, blob);
    // Written beside and renamed, so a reader never sees half a file.
    const std::string temporary = path + ".tmp" + std::to_string(::getpid());
    {
        std::ofstream file(temporary, std::ios::binary | std::ios::trunc);
        if (!file.write(bytes.data(), std::streamsize(bytes.size())))
            return false;
    }
    std::filesystem::rename(temporary, target, error);
    if (error)
        std::filesystem::remove(temporary, error);
    return !error;
}

} // namespace warpscope::gpu
