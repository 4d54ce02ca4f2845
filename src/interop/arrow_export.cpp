// Export of zeroflow arrays and tables through the Arrow C (Device) Data and Stream Interfaces.
//
// Every exported struct, children included, owns a heap-allocated private block and has its own
// release callback, because a consumer may move any child out and release it on its own. A
// parent's block owns its children's structs (boxes that release whatever was not moved out).
#include <cerrno>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "arrow_format.hpp"
#include "zeroflow/config.hpp"
#include "zeroflow/interop/arrow.hpp"
#include "zeroflow/interop/arrow_owner.hpp"
#include "zeroflow/memory/allocate.hpp"

#if ZEROFLOW_HAS_CUDA
#include "zeroflow/core/detail/cuda_check.hpp"
#endif

namespace zeroflow {
namespace {

using arrow::ArrowArray;
using arrow::ArrowArrayStream;
using arrow::ArrowDeviceArray;
using arrow::ArrowSchema;

// ---- schemas ----------------------------------------------------------------------------

using schema_box = arrow::unique_box<ArrowSchema>;

struct schema_private {
  std::string format;
  std::string name;
  std::vector<schema_box> children;
  std::vector<ArrowSchema*> child_pointers;
};

void release_schema(ArrowSchema* s) noexcept {
  if (s == nullptr || s->release == nullptr) return;
  delete static_cast<schema_private*>(s->private_data);  // the boxes release the children left
  s->release = nullptr;
  s->private_data = nullptr;
}

/// Fills `out`; takes the children (already filled).
void fill_schema(ArrowSchema* out, std::string format, std::string_view name, std::vector<schema_box> children) {
  auto p = std::make_unique<schema_private>();
  p->format = std::move(format);
  p->name = std::string(name);
  p->children = std::move(children);
  for (auto& c : p->children) p->child_pointers.push_back(c.get());
  *out = ArrowSchema{};
  out->format = p->format.c_str();
  out->name = p->name.c_str();
  out->metadata = nullptr;
  out->flags = 0;  // zeroflow arrays never hold nulls
  out->n_children = static_cast<std::int64_t>(p->child_pointers.size());
  out->children = p->child_pointers.empty() ? nullptr : p->child_pointers.data();
  out->dictionary = nullptr;
  out->private_data = p.release();
  out->release = &release_schema;
}

schema_box new_schema() { return arrow::make_box<ArrowSchema>(); }

/// Throws unless `a` has an Arrow representation.
void check_exportable(const array& a, std::string_view name) {
  ZF_EXPECTS(a.valid(), "cannot export an empty (default-constructed) array to Arrow");
  ZF_EXPECTS(arrow::detail::format_of(a.type()) != nullptr, "dtype ", a.type().name(), " of \"", name,
             "\" has no Arrow equivalent (Arrow takes int/uint 8-64, float 16/32/64 and bool)");
  ZF_EXPECTS(a.ndim() == 1 || a.ndim() == 2, "Arrow takes 1-D arrays (columns) and 2-D arrays (fixed-size lists of ",
             "rows); \"", name, "\" is ", a.ndim(), "-D");
  ZF_EXPECTS(a.is_contiguous(), "Arrow needs contiguous memory and \"", name,
             "\" is a strided view; make a contiguous copy first (zeroflow.ascontiguousarray)");
}

void describe(const array& a, std::string_view name, ArrowSchema* out) {
  const char* element = arrow::detail::format_of(a.type());
  if (a.ndim() == 1) {
    fill_schema(out, element, name, {});
    return;
  }
  std::vector<schema_box> children;
  children.push_back(new_schema());
  fill_schema(children.back().get(), element, "item", {});
  fill_schema(out, "+w:" + std::to_string(a.shape(1)), name, std::move(children));
}

// ---- arrays -----------------------------------------------------------------------------

using array_box = arrow::unique_box<ArrowArray>;

struct array_private {
  array values;  ///< keeps the memory alive (the array itself, or its packed copy)
  const void* buffers[2] = {nullptr, nullptr};
  std::vector<array_box> children;
  std::vector<ArrowArray*> child_pointers;
  void* sync_event = nullptr;  ///< a cudaEvent_t (device exports of device memory only)
};

void release_array(ArrowArray* a) noexcept {
  if (a == nullptr || a->release == nullptr) return;
  auto* p = static_cast<array_private*>(a->private_data);
#if ZEROFLOW_HAS_CUDA
  if (p->sync_event != nullptr) ZF_CUDA_REPORT(cudaEventDestroy(static_cast<cudaEvent_t>(p->sync_event)));
#endif
  delete p;
  a->release = nullptr;
  a->private_data = nullptr;
}

array_box new_array() { return arrow::make_box<ArrowArray>(); }

/// Arrow's booleans: one bit each, least significant first (a copy into host memory).
array pack_bits(const array& a) {
  ZF_EXPECTS(a.where().host_accessible(), "exporting a bool array to Arrow packs it into bits, which zeroflow does ",
             "on the host only; this one is on ", a.where().name(), " (export it as uint8, or copy it to the host)");
  const auto n = a.size();
  array packed = zeros({(n + 7) / 8}, uint8, cpu_device);
  const auto* src = static_cast<const std::uint8_t*>(a.data());
  auto* bits = static_cast<std::uint8_t*>(packed.data());
  for (std::int64_t i = 0; i < n; ++i)
    if (src[i] != 0) bits[i >> 3] = static_cast<std::uint8_t>(bits[i >> 3] | (1u << (i & 7)));
  return packed;
}

/// Fills `out` with `length` elements and the given children; `values` is held (may be empty).
array_private* fill_array(ArrowArray* out, std::int64_t length, std::int64_t n_buffers, array values, const void* data,
                          std::vector<array_box> children) {
  auto p = std::make_unique<array_private>();
  p->values = std::move(values);
  p->buffers[1] = data;
  p->children = std::move(children);
  for (auto& c : p->children) p->child_pointers.push_back(c.get());
  *out = ArrowArray{};
  out->length = length;
  out->null_count = 0;
  out->offset = 0;
  out->n_buffers = n_buffers;
  out->n_children = static_cast<std::int64_t>(p->child_pointers.size());
  out->buffers = p->buffers;
  out->children = p->child_pointers.empty() ? nullptr : p->child_pointers.data();
  out->dictionary = nullptr;
  out->private_data = p.get();
  out->release = &release_array;
  return p.release();
}

/// A 1-D contiguous array as a primitive Arrow array (element 0 at offset 0).
void fill_primitive(const array& a, ArrowArray* out) {
  if (a.type() == bool8) {
    array packed = pack_bits(a);
    const void* bits = packed.data();
    fill_array(out, a.shape(0), 2, std::move(packed), bits, {});
  } else {
    fill_array(out, a.shape(0), 2, a, a.data(), {});
  }
}

array_private* fill_values(const array& a, ArrowArray* out) {
  if (a.ndim() == 1) {
    fill_primitive(a, out);
    return static_cast<array_private*>(out->private_data);
  }
  // N×W rows: a fixed-size list whose child holds the N·W values.
  std::vector<array_box> children;
  children.push_back(new_array());
  fill_primitive(a.reshape({a.size()}), children.back().get());
  return fill_array(out, a.shape(0), 1, array{}, nullptr, std::move(children));
}

array_private* fill_table(const table& t, ArrowArray* out) {
  std::vector<array_box> children;
  for (const array& c : t.columns) {
    children.push_back(new_array());
    fill_values(c, children.back().get());
  }
  return fill_array(out, t.num_rows(), 1, array{}, nullptr, std::move(children));
}

void check_table(const table& t) {
  t.validate();
  for (std::size_t i = 0; i < t.columns.size(); ++i) {
    check_exportable(t.columns[i], t.names[i]);
    ZF_EXPECTS(t.columns[i].where() == t.columns.front().where(), "column \"", t.names[i], "\" is on ",
               t.columns[i].where().name(), ", column \"", t.names.front(), "\" on ", t.columns.front().where().name(),
               "; an Arrow table lives on one device");
  }
}

void require_host(device where, std::string_view what) {
  ZF_EXPECTS(where.host_accessible(), "the Arrow C Data Interface is for host memory and ", what, " is on ",
             where.name(), "; use the C Device Data Interface (__arrow_c_device_array__)");
}

/// The device part of an ArrowDeviceArray: where the memory is and, for device memory, an event
/// recorded on `stream` that the consumer waits on.
void fill_device(ArrowDeviceArray* out, array_private* p, device where, stream_view stream) {
  out->device_id = where.id;
  out->device_type = static_cast<arrow::ArrowDeviceType>(where.type);
  out->sync_event = nullptr;
  out->reserved[0] = out->reserved[1] = out->reserved[2] = 0;
  if (where.type != device_type::cuda) return;  // host-accessible memory is ready when we return
#if ZEROFLOW_HAS_CUDA
  detail::cuda_device_guard guard(where.id);
  cudaEvent_t event = nullptr;
  ZF_CUDA_TRY(cudaEventCreateWithFlags(&event, cudaEventDisableTiming));
  p->sync_event = event;  // destroyed by the release, also if the record below fails
  ZF_CUDA_TRY(cudaEventRecord(event, stream.value()));
  out->sync_event = &p->sync_event;
#else
  (void)p, (void)stream;
#endif
}

// ---- streams ----------------------------------------------------------------------------

struct stream_private {
  table t;
  bool done = false;
  std::string last_error;
};

template <class F>
int guarded(ArrowArrayStream* s, F&& f) noexcept {
  auto* p = static_cast<stream_private*>(s->private_data);
  try {
    f(*p);
    return 0;
  } catch (const std::bad_alloc&) {
    p->last_error = "out of memory";
    return ENOMEM;
  } catch (const std::exception& e) {
    p->last_error = e.what();
    return EINVAL;
  }
}

int stream_get_schema(ArrowArrayStream* s, ArrowSchema* out) noexcept {
  return guarded(s, [out](stream_private& p) { export_arrow_schema(p.t, out); });
}

int stream_get_next(ArrowArrayStream* s, ArrowArray* out) noexcept {
  return guarded(s, [out](stream_private& p) {
    if (p.done) {
      *out = ArrowArray{};
      out->release = nullptr;  // end of stream
      return;
    }
    export_arrow_array(p.t, out);
    p.done = true;
  });
}

const char* stream_last_error(ArrowArrayStream* s) noexcept {
  auto* p = static_cast<stream_private*>(s->private_data);
  return p->last_error.empty() ? nullptr : p->last_error.c_str();
}

void release_stream(ArrowArrayStream* s) noexcept {
  if (s == nullptr || s->release == nullptr) return;
  delete static_cast<stream_private*>(s->private_data);
  s->release = nullptr;
  s->private_data = nullptr;
}

}  // namespace

bool arrow_export_copies(const array& a) { return a.valid() && a.type() == bool8; }

void export_arrow_schema(const array& a, std::string_view name, ArrowSchema* out) {
  ZF_EXPECTS(out != nullptr, "export_arrow_schema needs a struct to fill");
  check_exportable(a, name);
  describe(a, name, out);
}

void export_arrow_schema(const table& t, ArrowSchema* out) {
  ZF_EXPECTS(out != nullptr, "export_arrow_schema needs a struct to fill");
  check_table(t);
  std::vector<schema_box> children;
  for (std::size_t i = 0; i < t.columns.size(); ++i) {
    children.push_back(new_schema());
    describe(t.columns[i], t.names[i], children.back().get());
  }
  fill_schema(out, "+s", "", std::move(children));
}

void export_arrow_array(const array& a, ArrowArray* out) {
  ZF_EXPECTS(out != nullptr, "export_arrow_array needs a struct to fill");
  check_exportable(a, "array");
  require_host(a.where(), "this array");
  fill_values(a, out);
}

void export_arrow_array(const table& t, ArrowArray* out) {
  ZF_EXPECTS(out != nullptr, "export_arrow_array needs a struct to fill");
  check_table(t);
  if (!t.columns.empty()) require_host(t.columns.front().where(), "this table");
  fill_table(t, out);
}

void export_arrow_device_array(const array& a, ArrowDeviceArray* out, stream_view stream) {
  ZF_EXPECTS(out != nullptr, "export_arrow_device_array needs a struct to fill");
  check_exportable(a, "array");
  array_private* p = fill_values(a, &out->array);
  try {
    fill_device(out, p, a.where(), stream);
  } catch (...) {
    arrow::release(*out);
    throw;
  }
}

void export_arrow_device_array(const table& t, ArrowDeviceArray* out, stream_view stream) {
  ZF_EXPECTS(out != nullptr, "export_arrow_device_array needs a struct to fill");
  check_table(t);
  array_private* p = fill_table(t, &out->array);
  try {
    fill_device(out, p, t.columns.empty() ? cpu_device : t.columns.front().where(), stream);
  } catch (...) {
    arrow::release(*out);
    throw;
  }
}

void export_arrow_stream(const table& t, ArrowArrayStream* out) {
  ZF_EXPECTS(out != nullptr, "export_arrow_stream needs a struct to fill");
  check_table(t);
  if (!t.columns.empty()) require_host(t.columns.front().where(), "this table");
  auto p = std::make_unique<stream_private>();
  p->t = t;
  *out = ArrowArrayStream{};
  out->get_schema = &stream_get_schema;
  out->get_next = &stream_get_next;
  out->get_last_error = &stream_last_error;
  out->private_data = p.release();
  out->release = &release_stream;
}

}  // namespace zeroflow
