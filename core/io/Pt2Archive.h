#pragma once
// Read-only access to a zip archive (a .pt2 file) through libzip.

#include "core/ir/Expected.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace fusebox {

/// An open zip archive. Move-only; closes the file on destruction.
class Pt2Archive {
public:
    /// Opens path; "<path>: not a readable zip archive (<libzip's reason>)" when it cannot.
    static Expected<Pt2Archive> open(const std::string &path);
    /// Opens a zip held in memory (a torch.save file stored inside a .pt2);
    /// `name` stands for the path in messages ("m.pt2/serialized_state_dict.pt").
    static Expected<Pt2Archive> openBuffer(std::string bytes, const std::string &name);

    Pt2Archive(Pt2Archive &&) noexcept;
    Pt2Archive &operator=(Pt2Archive &&) noexcept;
    ~Pt2Archive();

    /// Entry names in archive order (folders included, with their trailing '/').
    const std::vector<std::string> &entries() const { return m_entries; }
    bool contains(const std::string &entry) const;
    /// The uncompressed size of an entry, or nullopt when there is no such entry.
    std::optional<uint64_t> entrySize(const std::string &entry) const;
    /// The entry's bytes; errors ("<path>/<entry>: ...") for a missing entry or
    /// a corrupt one (bad compressed data, CRC mismatch, short read).
    Expected<std::string> read(const std::string &entry) const;
    /// The archive's path, for messages.
    const std::string &path() const { return m_path; }

private:
    struct Handle;
    Pt2Archive(std::string path, std::unique_ptr<Handle> handle, std::vector<std::string> entries);

    std::string m_path;
    std::unique_ptr<Handle> m_handle;
    std::vector<std::string> m_entries;
};

} // namespace fusebox
