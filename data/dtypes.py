"""OpenCL C scalar types and the numpy dtypes that hold their values on the host, defined once.

Keys are the parser's ``Param.base_type`` names; values numpy dtype names (``KernelSpec`` ``Arg.dtype``).
``kgraph.data.instrumented`` packs scalar arguments with them, ``kgraph measure`` (``harness/foreign.py``)
types a foreign kernel's arguments, and the device fill kernels (``harness/fill.py``) name the OpenCL
type of each dtype through :data:`OPENCL_TYPES`.
"""
from __future__ import annotations

NUMPY_DTYPES: dict[str, str] = {
    "char": "int8", "uchar": "uint8", "short": "int16", "ushort": "uint16",
    "int": "int32", "uint": "uint32", "long": "int64", "ulong": "uint64",
    "half": "float16", "float": "float32", "double": "float64",
    "size_t": "uint64", "bool": "int32",
}
#: numpy dtype name -> the OpenCL type of that name (the inverse, without the aliases size_t and bool)
OPENCL_TYPES: dict[str, str] = {np_name: cl_name for cl_name, np_name in NUMPY_DTYPES.items()
                                if cl_name not in ("size_t", "bool")}
