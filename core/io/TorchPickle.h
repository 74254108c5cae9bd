#pragma once
// Internal to the importers (torch.export's, and TorchScript's checks of an
// archive before libtorch reads it): the tensors of a torch.save file
// (the zip format torch >= 1.6 writes: <root>/data.pkl, <root>/data/<key>,
// <root>/byteorder), read without Python or libtorch. torch.export archives
// hold such files: serialized_state_dict.pt and serialized_constants.pt
// (torch 2.1: .json), pickled payloads of the pt2 package layout, and torch
// 2.1's graph.constants (base64 inside the program JSON).
//
// The pickle machine knows the opcodes of protocols 0-5 and builds tensors
// from torch._utils._rebuild_tensor{,_v2,_v3} and _rebuild_parameter{,_with_state};
// any other object is kept opaque, so that an unknown class elsewhere in the
// file does not stop its tensors from loading.

#include "Pt2Archive.h"

#include "core/ir/Expected.h"
#include "core/ir/WeightStore.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace fusebox::torch_pickle {

/// A tensor as torch.save records it: a strided view into one storage record.
struct TensorRecord {
    DType dtype = DType::Unknown;
    /// The storage class or dtype as the file names it ("FloatStorage",
    /// "torch.float8_e4m3fnuz"), for messages when dtype is Unknown.
    std::string dtypeName;
    std::vector<int64_t> sizes;
    std::vector<int64_t> strides;
    int64_t storageOffset = 0; ///< in elements
    std::string storageKey;    ///< the record <root>/data/<storageKey>
    std::string device;        ///< "cpu", "cuda:0"
    /// Why the tensor has no data to read ("a meta tensor", "a fake tensor
    /// (saved without data)", "a quantized tensor"); empty when it has.
    std::string unreadable;
};

/// The tensors a torch.save file holds: the entries of a top-level dict
/// (state dicts, constants) under their keys, or a top-level tensor under "".
struct TorchSaveContents {
    std::map<std::string, TensorRecord> tensors;
    /// Top-level dict entries that are not tensors: key -> what they are
    /// ("a torch.ScriptObject", "an int").
    std::map<std::string, std::string> others;
};

/// An open torch.save zip.
class TorchSaveFile {
public:
    /// Reads the pickle of a torch.save zip held in memory. `name` names the file
    /// in messages ("m.pt2/serialized_state_dict.pt"). Errors are one line:
    /// "<name>: not a torch.save zip (...)", "<name>: data.pkl: <what> at byte N".
    static Expected<TorchSaveFile> open(std::string bytes, const std::string &name);

    const TorchSaveContents &contents() const { return m_contents; }
    const std::string &name() const { return m_name; }

    /// The elements of a tensor as a contiguous row-major payload, or the
    /// reason it cannot be had (one line, without the file name).
    Expected<Weight> load(const TensorRecord &tensor) const;

private:
    TorchSaveFile(Pt2Archive archive, std::string root, std::string name, bool bigEndian, TorchSaveContents contents);

    Pt2Archive m_archive;
    std::string m_root; ///< "archive/" (the folder of data.pkl, with its '/')
    std::string m_name;
    bool m_bigEndian = false;
    TorchSaveContents m_contents;
    mutable std::map<std::string, std::string> m_storages;
};

/// Parses a pickle (the bytes of a data.pkl) into TorchSaveContents; exposed
/// for tests. Errors: "<what> at byte N".
Expected<TorchSaveContents> parsePickle(const std::string &bytes);

/// A storage a pickle refers to by persistent id: ('storage',
/// torch.<Type>Storage, key, location, numel), as torch.save and TorchScript
/// write them.
struct StorageReference {
    std::string key;      ///< the record <folder>/<key> holds its bytes
    std::string typeName; ///< "FloatStorage"
    DType dtype = DType::Unknown;
    int64_t numel = -1; ///< elements, as the id gives them; -1 when it gives none
};

/// Every storage the pickle refers to, in order, after running it whole;
/// any pickle (a torch.save or TorchScript data.pkl, a TorchScript
/// constants.pkl). The objects it builds are not kept. Errors: "<what> at byte N".
Expected<std::vector<StorageReference>> storageReferences(const std::string &bytes);

} // namespace fusebox::torch_pickle
