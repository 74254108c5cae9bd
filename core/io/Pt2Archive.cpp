#include "Pt2Archive.h"

#include "JsonSupport.h"

#include <zip.h>

#include <algorithm>
#include <filesystem>

namespace fusebox {

struct Pt2Archive::Handle {
    zip_t *zip = nullptr;
    std::string buffer; // the bytes of an in-memory archive (libzip reads them in place)
    ~Handle()
    {
        // Read-only: discard rather than close so that nothing is ever written back.
        if (zip)
            zip_discard(zip);
    }
};

namespace {

/// libzip answers ZIP_ER_NOENT ("No such file") for a zip it did open whose
/// directory is damaged (an entry's 32-bit size 0xffffffff without its zip64
/// field, found by fuzz/torchscript_fuzz.cpp): not what a user who named an
/// existing file should read.
constexpr const char *kDamagedDirectory = "damaged zip: its directory cannot be read";

std::string libzipMessage(int code)
{
    zip_error_t error;
    zip_error_init_with_code(&error, code);
    std::string message = zip_error_strerror(&error);
    zip_error_fini(&error);
    return message;
}

} // namespace

Pt2Archive::Pt2Archive(std::string path, std::unique_ptr<Handle> handle, std::vector<std::string> entries)
    : m_path(std::move(path))
    , m_handle(std::move(handle))
    , m_entries(std::move(entries))
{}

Pt2Archive::Pt2Archive(Pt2Archive &&) noexcept = default;
Pt2Archive &Pt2Archive::operator=(Pt2Archive &&) noexcept = default;
Pt2Archive::~Pt2Archive() = default;

Expected<Pt2Archive> Pt2Archive::open(const std::string &path)
{
    int code = 0;
    zip_t *zip = zip_open(path.c_str(), ZIP_RDONLY, &code);
    if (!zip)
        return Error{path + ": not a readable zip archive ("
                     + (code == ZIP_ER_NOENT && std::filesystem::exists(path) ? kDamagedDirectory : libzipMessage(code))
                     + ")"};
    auto handle = std::make_unique<Handle>();
    handle->zip = zip;
    const zip_int64_t count = zip_get_num_entries(zip, 0);
    std::vector<std::string> entries;
    for (zip_int64_t i = 0; i < count; ++i)
        if (const char *name = zip_get_name(zip, static_cast<zip_uint64_t>(i), ZIP_FL_ENC_GUESS))
            entries.emplace_back(name);
    return Pt2Archive(path, std::move(handle), std::move(entries));
}

Expected<Pt2Archive> Pt2Archive::openBuffer(std::string bytes, const std::string &name)
{
    auto handle = std::make_unique<Handle>();
    handle->buffer = std::move(bytes);
    zip_error_t error;
    zip_error_init(&error);
    zip_source_t *source = zip_source_buffer_create(handle->buffer.data(), handle->buffer.size(), 0, &error);
    if (!source) {
        std::string message = zip_error_strerror(&error);
        zip_error_fini(&error);
        return Error{name + ": not a readable zip archive (" + message + ")"};
    }
    zip_t *zip = zip_open_from_source(source, ZIP_RDONLY, &error);
    if (!zip) {
        zip_source_free(source);
        std::string message = zip_error_code_zip(&error) == ZIP_ER_NOENT ? kDamagedDirectory
                                                                         : zip_error_strerror(&error);
        zip_error_fini(&error);
        return Error{name + ": not a readable zip archive (" + message + ")"};
    }
    zip_error_fini(&error);
    handle->zip = zip;
    const zip_int64_t count = zip_get_num_entries(zip, 0);
    std::vector<std::string> entries;
    for (zip_int64_t i = 0; i < count; ++i)
        if (const char *entry = zip_get_name(zip, static_cast<zip_uint64_t>(i), ZIP_FL_ENC_GUESS))
            entries.emplace_back(entry);
    return Pt2Archive(name, std::move(handle), std::move(entries));
}

bool Pt2Archive::contains(const std::string &entry) const
{
    return std::find(m_entries.begin(), m_entries.end(), entry) != m_entries.end();
}

std::optional<uint64_t> Pt2Archive::entrySize(const std::string &entry) const
{
    zip_stat_t stat;
    zip_stat_init(&stat);
    if (zip_stat(m_handle->zip, entry.c_str(), 0, &stat) != 0 || !(stat.valid & ZIP_STAT_SIZE))
        return std::nullopt;
    return stat.size;
}

Expected<std::string> Pt2Archive::read(const std::string &entry) const
{
    // An entry's name is the file's own text: a line break in it (found by
    // fuzz/torchscript_fuzz.cpp) must not break the error's one line.
    const std::string where = json_support::oneLine(m_path + "/" + entry);
    const auto size = entrySize(entry);
    if (!size)
        return Error{where + ": no such entry in the archive"};
    zip_file_t *file = zip_fopen(m_handle->zip, entry.c_str(), 0);
    if (!file)
        return Error{where + ": cannot open entry (" + std::string(zip_strerror(m_handle->zip)) + ")"};
    // The size is what the archive claims: the buffer grows with what is read
    // (a damaged header claiming 4 GiB made it allocate them up front; found
    // by fuzz/pt2_archive_fuzz.cpp). One allocation when the claim is possible:
    // stored data is its compressed size, deflate inflates 1032-fold at most.
    zip_stat_t stat;
    zip_stat_init(&stat);
    uint64_t reserve = std::min<uint64_t>(*size, uint64_t(1) << 24);
    if (zip_stat(m_handle->zip, entry.c_str(), 0, &stat) == 0 && (stat.valid & ZIP_STAT_COMP_SIZE)
        && (stat.valid & ZIP_STAT_COMP_METHOD)
        && (stat.comp_method == ZIP_CM_STORE ? *size <= stat.comp_size
                                             : stat.comp_method == ZIP_CM_DEFLATE && *size / 1032 <= stat.comp_size))
        reserve = *size;
    std::string bytes;
    bytes.reserve(reserve);
    zip_uint64_t done = 0;
    std::string failure;
    while (done < *size) {
        bytes.resize(done + std::min<zip_uint64_t>(*size - done, std::max<zip_uint64_t>(done, uint64_t(1) << 20)));
        const zip_int64_t n = zip_fread(file, bytes.data() + done, bytes.size() - done);
        if (n < 0) {
            failure = zip_file_strerror(file);
            break;
        }
        if (n == 0) {
            failure = "entry ends after " + std::to_string(done) + " of " + std::to_string(*size) + " bytes";
            break;
        }
        done += static_cast<zip_uint64_t>(n);
    }
    bytes.resize(done);
    // A final read at the end makes libzip check the CRC of what it inflated;
    // it finds more when the header understates the size, which would skip
    // that check (a damaged TorchScript archive got past it so; found by
    // fuzz/torchscript_fuzz.cpp).
    if (failure.empty()) {
        char extra;
        const zip_int64_t more = zip_fread(file, &extra, 1);
        if (more < 0)
            failure = zip_file_strerror(file);
        else if (more > 0)
            failure = "it holds more than the " + std::to_string(*size) + " bytes its header gives";
    }
    zip_fclose(file);
    if (!failure.empty())
        return Error{where + ": corrupt entry (" + failure + ")"};
    return bytes;
}

} // namespace fusebox
