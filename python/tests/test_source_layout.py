"""The source tree's naming rule (docs/architecture.md, "Layers"): a public header
include/zeroflow/<layer>/<name>.hpp is implemented in src/<layer>/<name>.cpp (or .cu), in parts
src/<layer>/<name>_<part>.cpp, or in the folder src/<layer>/<name>/ — or it is header-only and
listed below with what it holds. A reader who opens a header finds its code by its name."""

import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
INCLUDE = ROOT / "include" / "zeroflow"
SRC = ROOT / "src"

#: Public headers with nothing out of line, and why they are whole in themselves.
HEADER_ONLY = {
    "core/error.hpp": "the exception types and the ZF_THROW / ZF_EXPECTS macros",
    "core/stream.hpp": "stream_view, a handle",
    "interop/arrow_abi.hpp": "the Arrow C Data and Device Interfaces' structs, as Arrow defines them",
    "interop/dlpack_abi.hpp": "DLPack's structs, as DLPack defines them",
    "interop/arrow_owner.hpp": "RAII owners of the Arrow structs (nanoarrow's pattern)",
    "io/byte_fields.hpp": "little-endian field reads and writes",
    "io/text_lines.hpp": "a line splitter over a byte span",
    "io/utf8.hpp": "a UTF-8 validity check",
    "signal/all.hpp": "the layer's headers in one include",
    "memory/all.hpp": "the layer's headers in one include",
}


def public_headers():
    return sorted(
        h.relative_to(INCLUDE).as_posix()
        for h in INCLUDE.glob("*/*.hpp")  # <layer>/<name>.hpp; detail/ holds internals
    )


def sources_named_alike(header: str) -> list[pathlib.Path]:
    layer, name = header.split("/")
    name = name.removesuffix(".hpp")
    folder = SRC / layer
    found = [p for ext in ("cpp", "cu") for p in folder.glob(f"{name}.{ext}")]
    found += [p for ext in ("cpp", "cu") for p in folder.glob(f"{name}_*.{ext}")]
    found += [p for ext in ("cpp", "cu") for p in folder.glob(f"*/{name}.{ext}")]  # a format's folder
    if (folder / name).is_dir():
        found.append(folder / name)
    return found


def test_the_tree_has_public_headers():
    assert len(public_headers()) > 50  # the glob reads the tree it should


@pytest.mark.parametrize("header", public_headers())
def test_every_public_header_has_its_source_named_alike_or_is_header_only(header):
    found = sources_named_alike(header)
    if header in HEADER_ONLY:
        assert not found, f"{header} is listed as header-only but {found[0]} implements it: take it off the list"
    else:
        assert found, (
            f"include/zeroflow/{header} has no source named alike (src/{header[:-4]}.cpp, "
            f"src/{header[:-4]}_<part>.cpp or src/{header[:-4]}/): rename its source, or list it in HEADER_ONLY"
        )


def test_header_only_list_names_headers_that_exist():
    assert set(HEADER_ONLY) <= set(public_headers())
