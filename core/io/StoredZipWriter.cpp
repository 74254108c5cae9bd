#include "StoredZipWriter.h"

#include "JsonSupport.h"

#include <zip.h>

namespace fusebox {
namespace {

std::string errorText(zip_error_t *error)
{
    std::string text = zip_error_strerror(error);
    zip_error_fini(error);
    return text;
}

} // namespace

Expected<std::string> writeStoredZip(const std::vector<std::pair<std::string, std::string>> &entries)
{
    zip_error_t error;
    zip_error_init(&error);
    zip_source_t *target = zip_source_buffer_create(nullptr, 0, 0, &error);
    if (!target)
        return Error{"cannot make a zip in memory (" + errorText(&error) + ")"};
    zip_t *zip = zip_open_from_source(target, ZIP_TRUNCATE, &error);
    if (!zip) {
        zip_source_free(target);
        return Error{"cannot make a zip in memory (" + errorText(&error) + ")"};
    }
    zip_error_fini(&error);
    zip_source_keep(target); // zip_close() would free it; its bytes are the result
    auto fail = [&](const std::string &why) -> Expected<std::string> {
        zip_discard(zip);
        zip_source_free(target);
        return Error{why};
    };
    for (const auto &[name, bytes] : entries) {
        // The bytes stay alive until zip_close(), which reads them.
        zip_source_t *source = zip_source_buffer(zip, bytes.data(), bytes.size(), 0);
        if (!source)
            return fail(std::string("cannot add an entry (") + zip_strerror(zip) + ")");
        const zip_int64_t index = zip_file_add(zip, name.c_str(), source, ZIP_FL_ENC_UTF_8);
        if (index < 0) {
            zip_source_free(source);
            const bool duplicate = zip_error_code_zip(zip_get_error(zip)) == ZIP_ER_EXISTS;
            return fail(duplicate
                            ? "duplicate entry '" + json_support::oneLine(name) + "'"
                            : "cannot add entry '" + json_support::oneLine(name) + "' (" + zip_strerror(zip) + ")");
        }
        if (zip_set_file_compression(zip, static_cast<zip_uint64_t>(index), ZIP_CM_STORE, 0) < 0)
            return fail(std::string("cannot store an entry (") + zip_strerror(zip) + ")");
    }
    if (zip_close(zip) < 0)
        return fail(std::string("cannot write the zip (") + zip_strerror(zip) + ")");

    std::string out;
    zip_stat_t stat;
    zip_stat_init(&stat);
    bool ok = zip_source_stat(target, &stat) == 0 && (stat.valid & ZIP_STAT_SIZE) && zip_source_open(target) == 0;
    if (ok) {
        out.resize(stat.size);
        ok = zip_source_read(target, out.data(), out.size()) == static_cast<zip_int64_t>(out.size());
        zip_source_close(target);
    }
    zip_source_free(target);
    if (!ok)
        return Error{"cannot read back the zip made in memory"};
    return out;
}

} // namespace fusebox
