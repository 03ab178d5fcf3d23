"""ctypes declarations of the eir C API (include/eir.h) used by the package.

The shared library is found, in order: $EIR_LIB, then libeir.so next to this
file (an installed package). It is loaded with RTLD_GLOBAL so that libraries
of custom operators loaded later resolve eir_library_define from it.
"""
from __future__ import annotations

import ctypes
import os

c_int64_p = ctypes.POINTER(ctypes.c_int64)


class TensorView(ctypes.Structure):
    _fields_ = [
        ("data", ctypes.c_void_p),
        ("dtype", ctypes.c_int),
        ("rank", ctypes.c_uint32),
        ("sizes", c_int64_p),
        ("strides", c_int64_p),
    ]


class IoInfo(ctypes.Structure):
    _fields_ = [
        ("name", ctypes.c_char_p),
        ("is_tensor", ctypes.c_bool),
        ("is_constant", ctypes.c_bool),
        ("is_symbolic_int", ctypes.c_bool),
        ("dtype", ctypes.c_int),
        ("rank", ctypes.c_uint32),
        ("sizes", c_int64_p),
        ("mutated", ctypes.c_bool),
        ("is_none", ctypes.c_bool),
    ]


PRINT_GRAPH, PRINT_CODE, PRINT_PROGRAM = 0, 1, 2


def _find() -> str:
    env = os.environ.get("EIR_LIB")
    if env:
        return env
    here = os.path.dirname(os.path.abspath(__file__))
    return os.path.join(here, "libeir.so")


class ModuleCall(ctypes.Structure):
    """The leading fields of eir_module_call (include/eir.h)."""
    _fields_ = [("fqn", ctypes.c_char_p), ("has_signature", ctypes.c_bool), ("num_inputs", ctypes.c_uint32),
                ("num_outputs", ctypes.c_uint32), ("inputs", ctypes.c_void_p), ("outputs", ctypes.c_void_p),
                ("in_spec", ctypes.c_char_p), ("out_spec", ctypes.c_char_p)]


class MissingOp(ctypes.Structure):
    """eir_missing_op (include/eir.h), the fields info() reports."""
    _fields_ = [("op", ctypes.c_char_p), ("count", ctypes.c_uint32), ("first_node", ctypes.c_char_p),
                ("subgraph", ctypes.c_char_p), ("context", ctypes.c_char_p), ("custom", ctypes.c_bool)]


class StepProfile(ctypes.Structure):
    _fields_ = [("node", ctypes.c_char_p), ("target", ctypes.c_char_p), ("calls", ctypes.c_uint64),
                ("total_us", ctypes.c_double), ("last_start_us", ctypes.c_double), ("last_us", ctypes.c_double)]


class Profile(ctypes.Structure):
    _fields_ = [("runs", ctypes.c_uint64), ("run_us", ctypes.c_double), ("last_run_us", ctypes.c_double),
                ("num_steps", ctypes.c_uint32), ("steps", ctypes.POINTER(StepProfile))]


def _declare(lib: ctypes.CDLL) -> None:
    vp, cp, st = ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int

    def fn(name, res, *args):
        f = getattr(lib, name)
        f.restype = res
        f.argtypes = list(args)

    fn("eir_version", cp)
    fn("eir_program_load", st, cp, ctypes.POINTER(vp))
    fn("eir_program_load_buffer", st, vp, ctypes.c_size_t, ctypes.POINTER(vp))
    fn("eir_program_parse", st, cp, ctypes.c_size_t, ctypes.POINTER(vp))
    fn("eir_program_free", None, vp)
    fn("eir_errmsg", cp, vp)
    fn("eir_program_print", st, vp, ctypes.c_int, ctypes.POINTER(vp))
    fn("eir_program_info", st, vp, ctypes.c_bool, ctypes.POINTER(vp))
    fn("eir_free", None, vp)
    fn("eir_runtime_create", st, vp, ctypes.POINTER(vp))
    fn("eir_runtime_create_with", st, vp, vp, ctypes.POINTER(vp))
    fn("eir_runtime_free", None, vp)
    fn("eir_runtime_errmsg", cp, vp)
    fn("eir_runtime_num_inputs", ctypes.c_uint32, vp)
    fn("eir_runtime_input_info", st, vp, ctypes.c_uint32, ctypes.POINTER(IoInfo))
    fn("eir_runtime_num_outputs", ctypes.c_uint32, vp)
    fn("eir_runtime_output_info", st, vp, ctypes.c_uint32, ctypes.POINTER(IoInfo))
    fn("eir_runtime_set_input", st, vp, ctypes.c_uint32, ctypes.POINTER(TensorView))
    fn("eir_runtime_run", st, vp)
    fn("eir_runtime_output", st, vp, ctypes.c_uint32, ctypes.POINTER(TensorView))
    fn("eir_runtime_state", st, vp, cp, ctypes.POINTER(TensorView))
    fn("eir_runtime_seed", None, vp, ctypes.c_uint64)
    fn("eir_runtime_set_threads", st, vp, ctypes.c_int)
    fn("eir_runtime_threads", ctypes.c_int, vp)
    fn("eir_runtime_num_missing_ops", ctypes.c_uint32, vp)
    fn("eir_program_num_module_calls", ctypes.c_uint32, vp)
    fn("eir_program_module_call", ctypes.POINTER(ModuleCall), vp, ctypes.c_uint32)
    fn("eir_runtime_missing_op", ctypes.POINTER(MissingOp), vp, ctypes.c_uint32)
    fn("eir_runtime_plan_example", st, vp)
    fn("eir_runtime_memory", None, vp, ctypes.POINTER(ctypes.c_uint64), ctypes.POINTER(ctypes.c_uint64))
    fn("eir_runtime_peak_live_bytes", ctypes.c_uint64, vp)
    fn("eir_runtime_set_profiling", st, vp, ctypes.c_int)
    fn("eir_runtime_profile", st, vp, ctypes.POINTER(Profile))
    fn("eir_runtime_profile_reset", None, vp)
    fn("eir_library_create", st, ctypes.POINTER(vp))
    fn("eir_library_free", None, vp)
    fn("eir_library_errmsg", cp, vp)
    fn("eir_dtype_name", cp, ctypes.c_int)


_LIB = None


def lib() -> ctypes.CDLL:
    """The loaded libeir (loaded on first use)."""
    global _LIB
    if _LIB is None:
        path = _find()
        if not os.path.exists(path):
            raise OSError(f"eir: shared library not found at {path} (set EIR_LIB to build/libeir.so)")
        l = ctypes.CDLL(path, mode=ctypes.RTLD_GLOBAL)
        _declare(l)
        _LIB = l
    return _LIB


def take_string(ptr: int) -> str:
    """Copy a string eir allocated and free it with eir_free."""
    try:
        return ctypes.string_at(ptr).decode("utf-8")
    finally:
        lib().eir_free(ptr)
