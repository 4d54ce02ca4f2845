"""Arrow PyCapsule interface: import of Arrow arrays, chunked arrays and tables (stage 2)."""
from __future__ import annotations

from typing import Any, Optional


def import_array(obj: Any, copy: Optional[bool]):
    return None
