#pragma once

#include <string>
#include <utility>

namespace warpscope::gpu {

// Outcome of an operation, with a message written for a person. gpu/ reports failures with
// this instead of throwing across the library boundary.
class Status
{
public:
    Status() = default;
    static Status success() { return {}; }
    static Status failure(std::string message) { return Status(std::move(message)); }

    bool ok() const { return m_message.empty(); }
    explicit operator bool() const { return ok(); }
    const std::string& message() const { return m_message; }

private:
    explicit Status(std::string message) : m_message(std::move(message))
    {
        if (m_message.empty())
            m_message = "unknown error";
    }
    std::string m_message;
};

} // namespace warpscope::gpu
