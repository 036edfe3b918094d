// The runner's confinement (RunnerSandbox.h): limits, Landlock and a seccomp filter, in that
// order, each entered once and for good.
#include "kernel/RunnerSandbox.h"

#include <cerrno>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <linux/landlock.h>
#include <sched.h>
#include <seccomp.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <vector>

namespace warpscope::gpu {
namespace {

// --- Limits ---------------------------------------------------------------------------------

// ASan and its kin reserve terabytes of shadow memory, which an address-space limit refuses;
// those builds run without it.
#if defined(__SANITIZE_ADDRESS__)
constexpr bool kSanitized = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool kSanitized = true;
#else
constexpr bool kSanitized = false;
#endif
#else
constexpr bool kSanitized = false;
#endif

Status limit(int resource, rlim_t soft, rlim_t hard, const char* name)
{
    const rlimit value{soft, hard};
    if (::setrlimit(resource, &value) != 0)
        return Status::failure(std::string("Could not limit the kernel runner's ") + name + ": " +
                               std::strerror(errno));
    return Status::success();
}

Status applyLimits(const RunnerConfinement& confinement, std::string& summary)
{
    // A kernel that prints past the cap gets EFBIG from write() instead of being ended.
    std::signal(SIGXFSZ, SIG_IGN);
    if (Status s = limit(RLIMIT_FSIZE, kRunnerPrintBytes, kRunnerPrintBytes, "file size"); !s)
        return s;
    // Past the soft limit SIGXCPU ends the runner; the hard one is the kernel's backstop.
    if (Status s = limit(RLIMIT_CPU, kRunnerCpuSeconds, kRunnerCpuSeconds + 10, "CPU time"); !s)
        return s;
    if (Status s = limit(RLIMIT_CORE, 0, 0, "core files"); !s)
        return s;
    summary = "limits: " + std::to_string(kRunnerCpuSeconds) + " s of CPU, " +
              std::to_string(kRunnerPrintBytes >> 20) + " MiB of output";
    if (confinement.gpu || kSanitized) {
        summary += confinement.gpu ? ", address space unlimited (the CUDA driver reserves it)"
                                   : ", address space unlimited (a sanitizer build)";
        return Status::success();
    }
    if (Status s = limit(RLIMIT_NOFILE, 64, 64, "open files"); !s)
        return s;
    if (Status s =
            limit(RLIMIT_AS, kRunnerAddressSpaceBytes, kRunnerAddressSpaceBytes, "address space");
        !s)
        return s;
    summary += ", " + std::to_string(kRunnerAddressSpaceBytes >> 30) + " GiB of address space";
    return Status::success();
}

// --- Landlock -------------------------------------------------------------------------------

// Rights newer than Debian 12's headers, from the kernel's include/uapi/linux/landlock.h.
constexpr std::uint64_t kFsTruncate = 1ull << 14; // ABI 3
constexpr std::uint64_t kFsIoctlDev = 1ull << 15; // ABI 5
constexpr std::uint64_t kNetBindTcp = 1ull << 0;  // ABI 4
constexpr std::uint64_t kNetConnectTcp = 1ull << 1;
constexpr std::uint64_t kScopeAbstractUnixSocket = 1ull << 0; // ABI 6
constexpr std::uint64_t kScopeSignal = 1ull << 1;

// struct landlock_ruleset_attr as of ABI 6; older kernels take its first fields.
struct RulesetAttr
{
    std::uint64_t handledAccessFs = 0;
    std::uint64_t handledAccessNet = 0;
    std::uint64_t scoped = 0;
};

constexpr std::uint64_t kRead =
    LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR | LANDLOCK_ACCESS_FS_EXECUTE;

class Fd
{
public:
    explicit Fd(int fd) : m_fd(fd) {}
    ~Fd()
    {
        if (m_fd >= 0)
            ::close(m_fd);
    }
    Fd(const Fd&) = delete;
    Fd& operator=(const Fd&) = delete;
    int get() const { return m_fd; }

private:
    int m_fd;
};

// Allows access beneath path; a path this system lacks is skipped.
Status allowBeneath(int ruleset, const std::string& path, std::uint64_t access)
{
    const Fd dir(::open(path.c_str(), O_PATH | O_CLOEXEC));
    if (dir.get() < 0)
        return errno == ENOENT ? Status::success()
                               : Status::failure("Landlock: could not open " + path + ": " +
                                                 std::strerror(errno));
    landlock_path_beneath_attr rule{};
    rule.allowed_access = access;
    rule.parent_fd = dir.get();
    if (::syscall(SYS_landlock_add_rule, ruleset, LANDLOCK_RULE_PATH_BENEATH, &rule, 0) != 0)
        return Status::failure("Landlock: could not allow " + path + ": " + std::strerror(errno));
    return Status::success();
}

Status applyLandlock(const RunnerConfinement& confinement, std::string& summary)
{
    const long abi =
        ::syscall(SYS_landlock_create_ruleset, nullptr, 0, LANDLOCK_CREATE_RULESET_VERSION);
    if (abi < 1) {
        summary = std::string("no Landlock (") + std::strerror(errno) +
                  "): files stay readable as the user's, writes are refused by seccomp";
        return Status::success();
    }
    RulesetAttr attr;
    attr.handledAccessFs = kRead | LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_REMOVE_DIR |
                           LANDLOCK_ACCESS_FS_REMOVE_FILE | LANDLOCK_ACCESS_FS_MAKE_CHAR |
                           LANDLOCK_ACCESS_FS_MAKE_DIR | LANDLOCK_ACCESS_FS_MAKE_REG |
                           LANDLOCK_ACCESS_FS_MAKE_SOCK | LANDLOCK_ACCESS_FS_MAKE_FIFO |
                           LANDLOCK_ACCESS_FS_MAKE_BLOCK | LANDLOCK_ACCESS_FS_MAKE_SYM;
    std::size_t attrSize = sizeof attr.handledAccessFs;
    if (abi >= 2)
        attr.handledAccessFs |= LANDLOCK_ACCESS_FS_REFER;
    if (abi >= 3)
        attr.handledAccessFs |= kFsTruncate;
    if (abi >= 5)
        attr.handledAccessFs |= kFsIoctlDev;
    if (abi >= 4) {
        attr.handledAccessNet = kNetBindTcp | kNetConnectTcp;
        attrSize = offsetof(RulesetAttr, scoped);
    }
    if (abi >= 6) {
        attr.scoped = kScopeAbstractUnixSocket | kScopeSignal;
        attrSize = sizeof attr;
    }
    const Fd ruleset(int(::syscall(SYS_landlock_create_ruleset, &attr, attrSize, 0)));
    if (ruleset.get() < 0)
        return Status::failure(std::string("Landlock: could not make a ruleset: ") +
                               std::strerror(errno));
    // What the simulator's libraries and the C and C++ runtimes read, and no home folder.
    std::vector<std::pair<std::string, std::uint64_t>> allowed = {
        {"/etc/ld.so.cache", LANDLOCK_ACCESS_FS_READ_FILE}};
    for (const char* system : {"/usr", "/lib", "/lib32", "/lib64", "/libx32", "/bin", "/sbin",
                               "/proc/self", "/sys/devices/system/cpu"})
        allowed.emplace_back(system, kRead);
    if (!confinement.libraryDir.empty())
        allowed.emplace_back(confinement.libraryDir, kRead);
    for (const auto& [path, access] : allowed)
        if (Status s = allowBeneath(ruleset.get(), path, access & attr.handledAccessFs); !s)
            return s;
    if (::syscall(SYS_landlock_restrict_self, ruleset.get(), 0) != 0)
        return Status::failure(std::string("Landlock: could not restrict the runner: ") +
                               std::strerror(errno));
    summary = "Landlock ABI " + std::to_string(abi) +
              ": files readable under the system's folders and the kernel's libraries only, "
              "writable nowhere";
    if (abi >= 4)
        summary += ", no TCP";
    if (abi >= 6)
        summary += ", no signals out";
    return Status::success();
}

// --- seccomp --------------------------------------------------------------------------------

// Refused outright, with EPERM (a kernel sees a failed call, not its end).
constexpr const char* kRefused[] = {
    // new processes and programs, and entering other namespaces
    "execve", "execveat", "fork", "vfork", "unshare", "setns",
    // other processes: tracing, their memory, their descriptors, signals by handle
    "ptrace", "process_vm_readv", "process_vm_writev", "kcmp", "pidfd_open", "pidfd_getfd",
    "pidfd_send_signal", "tkill",
    // the network, and any new socket (the runner's own is made by the app)
    "socket", "socketpair", "connect", "bind", "listen", "accept", "accept4",
    // the machine's state
    "mount", "umount2", "pivot_root", "chroot", "move_mount", "open_tree", "fsopen", "fsmount",
    "fspick", "mount_setattr", "swapon", "swapoff", "reboot", "kexec_load", "kexec_file_load",
    "init_module", "finit_module", "delete_module", "acct", "settimeofday", "clock_settime",
    "clock_adjtime", "adjtimex", "sethostname", "setdomainname", "quotactl", "quotactl_fd",
    "syslog", "vhangup", "iopl", "ioperm", "uselib", "lookup_dcookie", "name_to_handle_at",
    "open_by_handle_at", "fanotify_init", "bpf", "perf_event_open", "userfaultfd", "keyctl",
    "add_key", "request_key", "move_pages", "migrate_pages"};

// Refused with ENOSYS, so that the C library falls back to a call whose arguments the filter
// can read (clone3 and openat2 pass theirs in memory), or has no way in (io_uring's
// operations bypass the filter).
constexpr const char* kAbsent[] = {"clone3", "openat2", "io_uring_setup", "io_uring_enter",
                                   "io_uring_register"};

// On the CPU: the file system's contents and names stay as they are.
constexpr const char* kFileChanges[] = {
    "creat",    "truncate",  "rename",    "renameat",    "renameat2",    "unlink",      "unlinkat",
    "mkdir",    "mkdirat",   "rmdir",     "link",        "linkat",       "symlink",     "symlinkat",
    "mknod",    "mknodat",   "chmod",     "fchmod",      "fchmodat",     "fchmodat2",   "chown",
    "fchown",   "fchownat",  "lchown",    "utime",       "utimes",       "utimensat",   "futimesat",
    "setxattr", "lsetxattr", "fsetxattr", "removexattr", "lremovexattr", "fremovexattr"};

class SeccompFilter
{
public:
    SeccompFilter() : m_ctx(seccomp_init(SCMP_ACT_ALLOW)) {}
    ~SeccompFilter()
    {
        if (m_ctx)
            seccomp_release(m_ctx);
    }
    SeccompFilter(const SeccompFilter&) = delete;
    SeccompFilter& operator=(const SeccompFilter&) = delete;

    bool valid() const { return m_ctx != nullptr; }
    // A call this architecture lacks is skipped; any other failure is kept for load().
    template <typename... Args>
    void refuse(const char* name, int error, unsigned count = 0, Args... conditions)
    {
        const int call = seccomp_syscall_resolve_name(name);
        if (call == __NR_SCMP_ERROR)
            return;
        if (const int rc =
                seccomp_rule_add(m_ctx, SCMP_ACT_ERRNO(error), call, count, conditions...);
            rc < 0 && m_error.empty())
            m_error = std::string(name) + ": " + std::strerror(-rc);
    }
    Status load()
    {
        if (!m_error.empty())
            return Status::failure("seccomp: could not refuse " + m_error);
        // Every thread of the runner gets the filter, whenever it was started.
        seccomp_attr_set(m_ctx, SCMP_FLTATR_CTL_TSYNC, 1);
        if (const int rc = seccomp_load(m_ctx); rc < 0)
            return Status::failure(std::string("seccomp: could not load the filter: ") +
                                   std::strerror(-rc));
        return Status::success();
    }

private:
    scmp_filter_ctx m_ctx;
    std::string m_error;
};

void refuseFileWrites(SeccompFilter& filter)
{
    for (const char* name : kFileChanges)
        filter.refuse(name, EPERM);
    // open(path, flags) and openat(dir, path, flags): any access but reading, or a creation.
    for (const auto& [name, flags] : {std::pair{"open", 1}, std::pair{"openat", 2}}) {
        for (const scmp_datum_t access : {scmp_datum_t(O_WRONLY), scmp_datum_t(O_RDWR)})
            filter.refuse(name, EPERM, 1,
                          scmp_arg_cmp{unsigned(flags), SCMP_CMP_MASKED_EQ, O_ACCMODE, access});
        for (const scmp_datum_t bit : {scmp_datum_t(O_CREAT), scmp_datum_t(O_TRUNC)})
            filter.refuse(name, EPERM, 1,
                          scmp_arg_cmp{unsigned(flags), SCMP_CMP_MASKED_EQ, bit, bit});
    }
}

Status applySeccomp(std::string& summary)
{
    SeccompFilter filter;
    if (!filter.valid())
        return Status::failure("seccomp: could not make a filter");
    for (const char* name : kRefused)
        filter.refuse(name, EPERM);
    for (const char* name : kAbsent)
        filter.refuse(name, ENOSYS);
    // Threads, yes; a process that shares nothing is a fork.
    filter.refuse("clone", EPERM, 1, SCMP_A0(SCMP_CMP_MASKED_EQ, CLONE_THREAD, 0));
    // Signals to this process only: kill(0) and kill(-1) reach others.
    const scmp_datum_t self = scmp_datum_t(::getpid());
    for (const char* name : {"kill", "tgkill", "rt_sigqueueinfo", "rt_tgsigqueueinfo"})
        filter.refuse(name, EPERM, 1, SCMP_A0(SCMP_CMP_NE, self));
    // Typing into the terminal the app was started from.
    for (const scmp_datum_t request : {scmp_datum_t(TIOCSTI), scmp_datum_t(TIOCLINUX)})
        filter.refuse("ioctl", EPERM, 1, SCMP_A1(SCMP_CMP_MASKED_EQ, 0xffffffffu, request));
    refuseFileWrites(filter);
    if (Status s = filter.load(); !s)
        return s;
    summary = "seccomp: no processes, programs, sockets, tracing, signals out or file changes";
    return Status::success();
}

} // namespace

Status confineRunner(const RunnerConfinement& confinement, std::string& summary)
{
    // Out of the app's session and process group: no terminal, and kill(0) names only this.
    ::setsid();
    if (::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
        return Status::failure(std::string("Could not set no_new_privs: ") + std::strerror(errno));
    std::string limits, landlock, seccomp;
    if (Status s = applyLimits(confinement, limits); !s)
        return s;
    if (confinement.gpu) {
        summary = "a GPU runner: NVRTC builds device code only, so no code of the kernel's runs "
                  "on the host, and the CUDA driver's own calls (IPC, device files) are left "
                  "free; " +
                  limits;
        return Status::success();
    }
    if (Status s = applyLandlock(confinement, landlock); !s)
        return s;
    if (Status s = applySeccomp(seccomp); !s)
        return s;
    summary = seccomp + "; " + landlock + "; " + limits;
    return Status::success();
}

} // namespace warpscope::gpu
