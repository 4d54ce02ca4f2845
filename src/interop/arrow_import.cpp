// Import of Arrow C (Device) Data Interface arrays as zeroflow arrays and tables.
//
// The consumer's struct is moved into a shared holder at once (so that any failure releases it
// exactly once); every array made from it keeps the holder alive through its buffer's release
// function, and the producer's release runs when the last of them goes.
#include <charconv>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>

#include "arrow_format.hpp"
#include "zeroflow/config.hpp"
#include "zeroflow/core/checked_size.hpp"
#include "zeroflow/interop/arrow.hpp"
#include "zeroflow/interop/arrow_owner.hpp"
#include "zeroflow/memory/allocate.hpp"

#if ZEROFLOW_HAS_CUDA
#include "zeroflow/core/detail/cuda_check.hpp"
#endif

namespace zeroflow {
namespace {

std::int64_t checked_sum(std::int64_t a, std::int64_t b) {
  const auto sum = checked_add(a, b);
  ZF_EXPECTS(sum.has_value(), "Arrow array: offset ", a, " + ", b, " overflows");
  return *sum;
}

using arrow::ArrowArray;
using arrow::ArrowDeviceArray;
using arrow::ArrowSchema;

/// The moved-in struct; released when the last array viewing it goes.
using holder_ptr = std::shared_ptr<arrow::unique_struct<ArrowArray>>;

holder_ptr take(ArrowArray* in) {
  ZF_EXPECTS(in != nullptr, "import_arrow_array was given a NULL ArrowArray");
  ZF_EXPECTS(arrow::is_live(*in), "the ArrowArray was already released (or moved); Arrow data can be consumed once");
  return std::make_shared<arrow::unique_struct<ArrowArray>>(in);  // a move: `in` is marked released
}

void check_schema(const ArrowSchema& s) {
  ZF_EXPECTS(s.release != nullptr, "the ArrowSchema was already released");
  ZF_EXPECTS(s.format != nullptr, "the ArrowSchema has no format");
  ZF_EXPECTS(s.dictionary == nullptr, "dictionary-encoded Arrow data (field \"", s.name ? s.name : "",
             "\") has no zeroflow equivalent; decode it first");
}

std::string field_name(const ArrowSchema& s) { return s.name != nullptr ? s.name : ""; }

/// Throws when `a` (of a field called `name`) holds nulls; `host` says whether the validity
/// bitmap may be read here when the producer did not count them.
void check_no_nulls(const ArrowArray& a, const std::string& name, bool host) {
  if (a.null_count == 0) return;
  const char* hint =
      "; zeroflow arrays have no validity bitmap: fill or drop the nulls first (pyarrow.compute.fill_null)";
  ZF_EXPECTS(a.null_count < 0, "Arrow field \"", name, "\" has ", a.null_count, " null(s)", hint);
  if (a.n_buffers == 0 || a.buffers == nullptr || a.buffers[0] == nullptr) return;  // no bitmap: no nulls
  ZF_EXPECTS(host, "Arrow field \"", name, "\" has a validity bitmap in device memory and an unknown null count", hint);
  const auto* bits = static_cast<const std::uint8_t*>(a.buffers[0]);
  for (std::int64_t i = 0; i < a.length; ++i)
    ZF_EXPECTS(arrow::detail::bit_at(bits, a.offset + i), "Arrow field \"", name, "\" has a null at row ", i, hint);
}

/// Unpacks `length` bits from `bits` starting at bit `offset` into a new host bool array.
array unpack_bits(const void* bits, std::int64_t offset, std::int64_t length) {
  array out = empty({length}, bool8, cpu_device);
  auto* dst = static_cast<std::uint8_t*>(out.data());
  const auto* src = static_cast<const std::uint8_t*>(bits);
  for (std::int64_t i = 0; i < length; ++i) dst[i] = arrow::detail::bit_at(src, offset + i) ? 1 : 0;
  return out;
}

/// The values of primitive array `a` (element `first` .. `first + count`) as a 1-D array.
array primitive_values(const holder_ptr& h, const ArrowSchema& schema, const ArrowArray& a, std::int64_t first,
                       std::int64_t count, device where) {
  const std::string name = field_name(schema);
  const auto type = arrow::detail::dtype_of_format(schema.format);
  ZF_EXPECTS(type.has_value(), "Arrow type \"", schema.format, "\" of field \"", name,
             "\" has no zeroflow equivalent (zeroflow takes int/uint 8-64, float 16/32/64, bool, fixed-size lists "
             "of those, and structs of those as tables)");
  ZF_EXPECTS(a.n_buffers == 2 && a.buffers != nullptr, "Arrow field \"", name, "\" has ", a.n_buffers,
             " buffers; a primitive array has 2");
  ZF_EXPECTS(a.length >= 0 && a.offset >= 0, "Arrow field \"", name, "\" has a negative length or offset");
  check_no_nulls(a, name, where.host_accessible());
  const void* data = a.buffers[1];
  ZF_EXPECTS(data != nullptr || count == 0, "Arrow field \"", name, "\" has rows but no values buffer");
  if (*type == bool8) {
    ZF_EXPECTS(where.host_accessible(), "Arrow booleans are bits and zeroflow unpacks them on the host only; field \"",
               name, "\" is on ", where.name());
    return unpack_bits(data, first, count);
  }
  const auto item = static_cast<std::int64_t>(type->itemsize());
  auto* element0 = count == 0 ? const_cast<void*>(data)
                              : static_cast<void*>(static_cast<char*>(const_cast<void*>(data)) + first * item);
  auto owner = buffer::adopt(element0, static_cast<std::size_t>(count * item), where,
                             [h](void*, std::size_t) {});  // the holder goes with this function object
  return array(std::move(owner), *type, {count});
}

/// Parses "+w:N".
std::int64_t list_width(std::string_view format, const std::string& name) {
  std::int64_t width = -1;
  const char* first = format.data() + 3;
  const char* last = format.data() + format.size();
  const auto [end, ec] = std::from_chars(first, last, width);
  ZF_EXPECTS(ec == std::errc{} && end == last && width > 0, "Arrow field \"", name, "\" has a bad fixed-size list ",
             "format \"", format, "\"");
  return width;
}

/// One field: a primitive column (1-D) or a fixed-size list of primitives (2-D rows).
array field_values(const holder_ptr& h, const ArrowSchema& schema, const ArrowArray& a, device where) {
  check_schema(schema);
  const std::string_view format = schema.format;
  if (format.rfind("+w:", 0) != 0) return primitive_values(h, schema, a, a.offset, a.length, where);

  const std::string name = field_name(schema);
  const std::int64_t width = list_width(format, name);
  ZF_EXPECTS(schema.n_children == 1 && a.n_children == 1 && schema.children && a.children, "Arrow fixed-size list \"",
             name, "\" needs exactly one child");
  check_no_nulls(a, name, where.host_accessible());
  const ArrowSchema& child_schema = *schema.children[0];
  const ArrowArray& child = *a.children[0];
  check_schema(child_schema);
  ZF_EXPECTS(child_schema.format[0] != '+', "Arrow fixed-size list \"", name, "\" holds nested type \"",
             child_schema.format, "\"; zeroflow takes lists of primitives");
  // Imported sizes are untrusted: every product and sum is checked.
  const std::int64_t first = checked_sum(child.offset, multiply_sizes(a.offset, width, "Arrow list offset"));
  const std::int64_t count = multiply_sizes(a.length, width, "Arrow list length");
  ZF_EXPECTS(child.length >= multiply_sizes(checked_sum(a.offset, a.length), width, "Arrow list extent"),
             "Arrow fixed-size list \"", name, "\" has a child of ", child.length, " values for ", a.offset + a.length,
             " rows of ", width);
  array values = primitive_values(h, child_schema, child, first, count, where);
  return values.reshape({a.length, width});
}

device device_of(const ArrowDeviceArray& in) {
  const auto id = static_cast<std::int32_t>(in.device_id);
  switch (in.device_type) {
    case arrow::device_cpu:
      return cpu_device;
    case arrow::device_cuda:
      return {device_type::cuda, id};
    case arrow::device_cuda_host:
      return {device_type::cuda_host, id};
    case arrow::device_cuda_managed:
      return {device_type::cuda_managed, id};
    default:
      break;
  }
  ZF_THROW(invalid_argument, "unsupported Arrow device type ", in.device_type,
           "; zeroflow takes CPU (1), CUDA (2), CUDA_HOST (3) and CUDA_MANAGED (13)");
}

/// Makes `stream` wait on the producer's event (CUDA devices), before any value is read.
void wait_for_producer(const ArrowDeviceArray& in, device where, stream_view stream) {
  if (in.sync_event == nullptr || !where.is_cuda()) return;
#if ZEROFLOW_HAS_CUDA
  detail::cuda_device_guard guard(where.type == device_type::cuda_host ? 0 : where.id);
  ZF_CUDA_TRY(cudaStreamWaitEvent(stream.value(), *static_cast<cudaEvent_t*>(in.sync_event), 0));
#else
  (void)stream;
  ZF_THROW(cuda_error, "Arrow data on ", where.name(), " comes with a CUDA event to wait on; that needs a CUDA ",
           "build of zeroflow");
#endif
}

table table_of(const holder_ptr& h, const ArrowSchema& schema, device where) {
  check_schema(schema);
  const ArrowArray& a = **h;
  ZF_EXPECTS(std::string_view(schema.format) == "+s", "a table needs an Arrow struct (\"+s\"), not \"", schema.format,
             "\"");
  ZF_EXPECTS(schema.n_children == a.n_children, "Arrow struct schema has ", schema.n_children, " fields and its array ",
             a.n_children, " children");
  check_no_nulls(a, field_name(schema), where.host_accessible());
  table t;
  for (std::int64_t i = 0; i < a.n_children; ++i) {
    const ArrowSchema& field = *schema.children[i];
    ArrowArray child = *a.children[i];
    // A struct's offset applies to its children on top of their own.
    child.offset += a.offset;
    child.length = a.length;
    array column = field_values(h, field, child, where);
    ZF_EXPECTS(column.ndim() == 1, "table column \"", field_name(field), "\" is a list; columns must be 1-D");
    t.names.push_back(field_name(field));
    t.columns.push_back(std::move(column));
  }
  return t;
}

}  // namespace

bool arrow_import_copies(const ArrowSchema& schema) {
  if (schema.format == nullptr) return false;
  if (std::string_view(schema.format) == "b") return true;
  for (std::int64_t i = 0; i < schema.n_children; ++i)
    if (schema.children != nullptr && schema.children[i] != nullptr && arrow_import_copies(*schema.children[i]))
      return true;
  return false;
}

array import_arrow_array(const ArrowSchema& schema, ArrowArray* in, device where) {
  holder_ptr h = take(in);
  return field_values(h, schema, **h, where);
}

array import_arrow_device_array(const ArrowSchema& schema, ArrowDeviceArray* in, stream_view stream) {
  ZF_EXPECTS(in != nullptr, "import_arrow_device_array was given a NULL ArrowDeviceArray");
  holder_ptr h = take(&in->array);
  const device where = device_of(*in);
  wait_for_producer(*in, where, stream);
  return field_values(h, schema, **h, where);
}

table import_arrow_table(const ArrowSchema& schema, ArrowArray* in, device where) {
  holder_ptr h = take(in);
  return table_of(h, schema, where);
}

table import_arrow_device_table(const ArrowSchema& schema, ArrowDeviceArray* in, stream_view stream) {
  ZF_EXPECTS(in != nullptr, "import_arrow_device_table was given a NULL ArrowDeviceArray");
  holder_ptr h = take(&in->array);
  const device where = device_of(*in);
  wait_for_producer(*in, where, stream);
  return table_of(h, schema, where);
}

}  // namespace zeroflow
