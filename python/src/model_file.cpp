// zeroflow's model files (zeroflow/model/model_file.hpp) for zeroflow._model_file: Python reads,
// checks and seals them with the library's reader and writer, never a second implementation.
#include "zeroflow/model/model_file.hpp"

#include <nanobind/stl/map.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "common.hpp"
#include "zeroflow/config.hpp"
#include "zeroflow/core/error.hpp"
#include "zeroflow/io/safetensors.hpp"

namespace zeroflow::python {

namespace {

/// A tensor as Python passes it: (name, safetensors dtype, shape, little-endian bytes).
using tensor_tuple = std::tuple<std::string, std::string, std::vector<std::int64_t>, nb::bytes>;
using metadata_map = std::map<std::string, std::string>;

io::safetensors_content content_of(const metadata_map& metadata, const std::vector<tensor_tuple>& tensors) {
  io::safetensors_content content;
  content.metadata = metadata;
  for (const auto& [name, dtype, shape, bytes] : tensors)
    content.tensors.push_back({name, dtype, shape, std::string(bytes.c_str(), bytes.size())});
  return content;
}

}  // namespace

void bind_model_file(nb::module_& m) {
  using namespace nb::literals;
  m.def(
      "_open_model_file",
      [](nb::bytes data) {
        std::pair<io::safetensors_content, model::model_file_header> opened;
        try {
          opened = model::open_model_file(std::string_view(data.c_str(), data.size()));
        } catch (const error& e) {
          ZF_THROW(invalid_argument, e.what());  // bad bytes are the caller's argument: a ValueError
        }
        std::vector<tensor_tuple> tensors;
        for (const auto& t : opened.first.tensors)
          tensors.emplace_back(t.name, t.dtype, t.shape, nb::bytes(t.bytes.data(), t.bytes.size()));
        return std::make_pair(opened.first.metadata, std::move(tensors));
      },
      "data"_a,
      "The metadata and the tensors (name, dtype, shape, bytes) of a model file's bytes, after every check of "
      "zeroflow's reader: safetensors layout, format name and version, checksum, shared metadata. Raises "
      "ValueError saying what is wrong.");
  m.def(
      "_seal_model_file",
      [](const metadata_map& metadata, const std::vector<tensor_tuple>& tensors) {
        const std::string file = io::sealed_safetensors(content_of(metadata, tensors));
        return nb::bytes(file.data(), file.size());
      },
      "metadata"_a, "tensors"_a,
      "A model file's bytes: the tensors (name, dtype, shape, bytes) in order and the metadata with its checksum "
      "(any given checksum is replaced).");
  m.def(
      "_model_file_checksum",
      [](const metadata_map& metadata, const std::vector<tensor_tuple>& tensors) {
        return io::content_checksum(content_of(metadata, tensors));
      },
      "metadata"_a, "tensors"_a, "The checksum a model file of this content carries (every entry but checksum).");
}

}  // namespace zeroflow::python
