"""eir: PyTorch's Export IR in C, from Python.

Load a ``.pt2`` archive written by ``torch.export.save``, print it as torch
prints it, and run it on NumPy arrays — without torch::

    import eir
    p = eir.load("model.pt2")
    y, = p.run(x)            # x: a NumPy array, or anything np.asarray takes

The binding is a thin ctypes layer over libeir.so (include/eir.h). Only NumPy
is needed at run time. Each ``run`` costs a few microseconds of Python and
ctypes work per input and output on top of eir's own time (see README,
Python).

Dtypes: inputs and outputs are NumPy arrays of the program's dtypes.
NumPy has no bfloat16: a bfloat16 output is returned as float32 (exact), and
a bfloat16 input is given as a float32 array (rounded to the nearest
bfloat16). complex32 likewise travels as complex64.
"""
from __future__ import annotations

import ctypes
import json
import os
import sys
from typing import Any, Dict, List, Optional, Sequence, Union

import numpy as np

from . import _lib
from ._lib import IoInfo, TensorView

__all__ = ["load", "Program", "EirError", "version"]

# export-schema ScalarType codes (eir_dtype) -> NumPy dtypes
_DTYPES = {
    1: np.uint8, 2: np.int8, 3: np.int16, 4: np.int32, 5: np.int64,
    6: np.float16, 7: np.float32, 8: np.float64, 10: np.complex64,
    11: np.complex128, 12: np.bool_, 28: np.uint16, 34: np.uint32, 35: np.uint64,
}
_BF16, _C32 = 13, 9
_CODE = {np.dtype(v): k for k, v in _DTYPES.items()}

# dtype names of `eir info --json` -> NumPy dtypes (bfloat16 and complex32 as carried)
_NAMED = {
    "uint8": np.uint8, "int8": np.int8, "int16": np.int16, "int32": np.int32,
    "int64": np.int64, "float16": np.float16, "float32": np.float32,
    "float64": np.float64, "complex64": np.complex64, "complex128": np.complex128,
    "bool": np.bool_, "uint16": np.uint16, "uint32": np.uint32, "uint64": np.uint64,
}


class EirError(RuntimeError):
    """A failure reported by eir; str(e) is eir's message."""


def version() -> str:
    """The version of the loaded libeir ("0.1.0")."""
    return _lib.lib().eir_version().decode()


def _np_dtype(name: str) -> Union[np.dtype, str]:
    """A NumPy dtype for an eir dtype name, or the name when NumPy has none."""
    t = _NAMED.get(name)
    return np.dtype(t) if t is not None else name


def _to_array(x: Any) -> np.ndarray:
    """An ndarray viewing x without a copy where possible."""
    if isinstance(x, np.ndarray):
        return x
    torch = sys.modules.get("torch")  # a torch tensor implies torch is imported already
    if torch is not None and isinstance(x, torch.Tensor):
        x = x.detach()
        if x.dtype == torch.bfloat16:  # NumPy has no bfloat16: its bits, as uint16
            return x.view(torch.int16).numpy().view(np.uint16)
        return x.numpy()
    if hasattr(x, "__array__") or not hasattr(x, "__dlpack__"):
        try:
            return np.asarray(x)
        except Exception:
            if not hasattr(x, "__dlpack__"):
                raise
    return np.from_dlpack(x)


def _f32_to_bf16_bits(a: np.ndarray) -> np.ndarray:
    """float32 -> bfloat16 bit patterns (uint16), round to nearest even."""
    u = np.ascontiguousarray(a, dtype=np.float32).view(np.uint32)
    nan = np.isnan(u.view(np.float32))
    r = ((u + (0x7FFF + ((u >> 16) & 1))) >> 16).astype(np.uint16)
    r[nan] = ((u[nan] >> 16) | 0x40).astype(np.uint16)
    return r


def _copy_view(v: TensorView) -> np.ndarray:
    """Copy a tensor view eir owns into a new NumPy array."""
    shape = tuple(v.sizes[: v.rank])
    code = v.dtype
    t = _DTYPES.get(code)
    if t is not None and v.data:
        # the common case: a contiguous tensor, copied with one memmove
        contiguous = not v.strides
        if not contiguous:
            acc, contiguous = 1, True
            for d in range(v.rank - 1, -1, -1):
                if shape[d] != 1 and v.strides[d] != acc:
                    contiguous = False
                    break
                acc *= shape[d]
        if contiguous:
            out = np.empty(shape, dtype=t)
            if out.nbytes:
                ctypes.memmove(out.ctypes.data, v.data, out.nbytes)
            return out
    if code == _BF16:
        base, itemsize = np.uint16, 2
    elif code == _C32:
        base, itemsize = np.float16, 2
    else:
        t = _DTYPES.get(code)
        if t is None:
            raise EirError(f"output dtype {_lib.lib().eir_dtype_name(code)} has no NumPy dtype")
        base, itemsize = t, np.dtype(t).itemsize
    inner = (2,) if code == _C32 else ()
    numel = int(np.prod(shape, dtype=np.int64)) if shape else 1
    if numel == 0 or not v.data:
        out = np.empty(shape + inner, dtype=base)
    else:
        if v.strides:
            strides = tuple(v.strides[d] for d in range(v.rank))
        else:
            strides, acc = [], 1
            for s in reversed(shape):
                strides.append(acc)
                acc *= s
            strides = tuple(reversed(strides))
        lo = sum((s - 1) * st for s, st in zip(shape, strides) if st < 0)
        hi = sum((s - 1) * st for s, st in zip(shape, strides) if st > 0)
        per = itemsize * (2 if code == _C32 else 1)
        nbytes = (hi - lo + 1) * per
        buf = (ctypes.c_char * nbytes).from_address(v.data + lo * per)
        flat = np.frombuffer(buf, dtype=base)
        out = np.lib.stride_tricks.as_strided(
            flat[-lo * (2 if code == _C32 else 1):] if lo else flat,
            shape=shape + inner,
            strides=tuple(st * per for st in strides) + ((itemsize,) if inner else ()),
        ).copy()
    if code == _BF16:
        return (out.astype(np.uint32) << 16).view(np.float32)
    if code == _C32:
        return out.astype(np.float32).view(np.complex64)[..., 0]
    return out


def _looks_like_text(s: str) -> bool:
    t = s.lstrip()
    return t.startswith("ExportedProgram:") or t.startswith("class ")


def _text_form(source) -> Optional[str]:
    """The program text when source is one (a str holding it, or a path to a
    file that starts like it), else None."""
    if isinstance(source, str) and _looks_like_text(source):
        return source
    if isinstance(source, (str, os.PathLike)):
        try:
            with open(source, "rb") as f:
                head = f.read(64)
                if not _looks_like_text(head.decode(errors="replace")):
                    return None
                return (head + f.read()).decode()
        except OSError:
            return None
    return None


_END = object()


def _unflatten(spec: Dict[str, Any], it: Any) -> Any:
    """Rebuild one node of a torch pytree spec (treespec JSON, protocol 1)."""
    kind = spec.get("type")
    children = spec.get("children_spec") or []
    if kind is None:
        v = next(it, _END)
        if v is _END:
            raise EirError("the program's output structure holds more values than it returns")
        return v
    if kind == "builtins.NoneType":
        return None
    items = [_unflatten(c, it) for c in children]
    ctx = spec.get("context")
    if kind in ("builtins.tuple", "collections.namedtuple", "torch.return_types"):
        return tuple(items)
    if kind in ("builtins.list", "torch.fx.immutable_collections.immutable_list"):
        return items
    if kind in ("builtins.dict", "collections.OrderedDict", "collections.defaultdict",
                "torch.fx.immutable_collections.immutable_dict"):
        keys = json.loads(ctx) if isinstance(ctx, str) else ctx
        if isinstance(keys, dict):  # defaultdict: {"default_factory_module": ..., "dict_context": [...]}
            keys = keys.get("dict_context", [])
        return dict(zip(keys, items))
    raise EirError(f"output structure of type {kind} is not supported; use run() for the flat list")


class Program:
    """An exported program loaded by eir (see :func:`load`).

    ``print(p)`` prints what ``print(ep)`` prints; ``p.graph`` and ``p.code``
    are ``str(ep.graph)`` and ``ep.graph_module.code`` as torch prints them.
    ``p.run(*inputs)`` (or ``p(*inputs)``) runs it; the runtime is created on
    the first run and kept, so module state (buffers the program mutates)
    carries over from one run to the next, as in ``ep.module()``.

    A Program is used by one thread at a time (its runtime is, see
    include/eir.h, Threads); load one per thread to run in parallel.
    """

    def __init__(self, source: Union[str, os.PathLike, bytes, bytearray, memoryview],
                 ops: Union[None, str, os.PathLike, Sequence[Union[str, os.PathLike]]] = None):
        L = _lib.lib()
        self._p = None
        self._rt = None
        self._libs: list = []
        self._eir_lib = None
        self._buf = None
        h = ctypes.c_void_p()
        text = _text_form(source)
        if text is not None:
            # the text form (docs/TEXT-FORM.md): parsed and copied
            data = text.encode()
            st = L.eir_program_parse(data, len(data), ctypes.byref(h))
            self.path = None if isinstance(source, str) and _looks_like_text(source) else os.fspath(source)
        elif isinstance(source, (bytes, bytearray, memoryview)):
            # eir borrows the buffer until the program is freed: keep a copy alive
            self._buf = ctypes.create_string_buffer(bytes(source), len(source))
            st = L.eir_program_load_buffer(self._buf, len(source), ctypes.byref(h))
            self.path = None
        else:
            self.path = os.fspath(source)
            st = L.eir_program_load(self.path.encode(), ctypes.byref(h))
        if st != 0:
            msg = L.eir_errmsg(h).decode(errors="replace")
            L.eir_program_free(h)
            raise EirError(msg)
        self._p = h
        if ops is not None:
            self._load_ops([ops] if isinstance(ops, (str, os.PathLike)) else list(ops))
        self._info: Optional[Dict[str, Any]] = None

    # ---- custom operators ----
    def _load_ops(self, paths: List[Union[str, os.PathLike]]) -> None:
        L = _lib.lib()
        lh = ctypes.c_void_p()
        if L.eir_library_create(ctypes.byref(lh)) != 0:
            raise EirError("eir_library_create: out of memory")
        self._eir_lib = lh
        for path in paths:
            path = os.path.abspath(os.fspath(path))
            try:
                so = ctypes.CDLL(path)
            except OSError as e:
                raise EirError(f"ops {path}: {e}") from None
            try:
                init = getattr(so, "eir_ops_init")
            except AttributeError:
                raise EirError(f"ops {path}: no function eir_ops_init (see include/eir.h)") from None
            init.restype = ctypes.c_int
            init.argtypes = [ctypes.c_void_p]
            if init(lh) != 0:
                m = L.eir_library_errmsg(lh).decode(errors="replace")
                raise EirError(f"ops {path}: eir_ops_init failed: {m or '(no message)'}")
            self._libs.append(so)

    # ---- text ----
    def _print(self, form: int) -> str:
        out = ctypes.c_void_p()
        if _lib.lib().eir_program_print(self._p, form, ctypes.byref(out)) != 0:
            raise EirError(_lib.lib().eir_errmsg(self._p).decode(errors="replace"))
        return _lib.take_string(out.value)

    def __str__(self) -> str:
        """``str(ep)``: the program as ``print(ep)`` prints it (without print's final newline)."""
        s = self._print(_lib.PRINT_PROGRAM)
        return s[:-1] if s.endswith("\n") else s

    def __repr__(self) -> str:
        return f"<eir.Program {self.path or '(buffer)'}>"

    @property
    def graph(self) -> str:
        """``str(ep.graph)``: the graph as ``print(ep.graph)`` prints it."""
        s = self._print(_lib.PRINT_GRAPH)
        return s[:-1] if s.endswith("\n") else s

    @property
    def code(self) -> str:
        """``ep.graph_module.code``, as ``print`` shows it."""
        s = self._print(_lib.PRINT_CODE)
        return s[:-1] if s.endswith("\n") else s

    def info(self) -> Dict[str, Any]:
        """What ``eir info --json`` reports: versions, inputs, outputs, ranges,
        state sizes, op histogram, dialect, whether eir can run it."""
        if self._info is None:
            out = ctypes.c_void_p()
            if _lib.lib().eir_program_info(self._p, True, ctypes.byref(out)) != 0:
                raise EirError(_lib.lib().eir_errmsg(self._p).decode(errors="replace"))
            info = json.loads(_lib.take_string(out.value))
            info.update(self._runnable())
            self._info = info
        return dict(self._info)

    def _runnable(self) -> Dict[str, Any]:
        """What ``eir info --json`` adds from the runtime: ``runnable``, and then
        ``arena_bytes`` / ``intermediate_bytes`` / ``peak_live_bytes`` at the exported shapes, or the
        operators eir lacks (``missing_ops``) or the reason (``reason``)."""
        L = _lib.lib()
        rt = ctypes.c_void_p()
        st = L.eir_runtime_create_with(self._p, self._eir_lib, ctypes.byref(rt))
        try:
            if st == 0 and L.eir_runtime_plan_example(rt) == 0:
                arena, inter = ctypes.c_uint64(), ctypes.c_uint64()
                L.eir_runtime_memory(rt, ctypes.byref(arena), ctypes.byref(inter))
                return {"runnable": True, "arena_bytes": arena.value, "intermediate_bytes": inter.value,
                        "peak_live_bytes": int(L.eir_runtime_peak_live_bytes(rt))}
            res: Dict[str, Any] = {"runnable": False}
            n = L.eir_runtime_num_missing_ops(rt) if rt else 0
            if n:
                res["missing_ops"] = [
                    {"operator": m.op.decode(), "count": m.count, "first_node": m.first_node.decode(),
                     "custom": bool(m.custom)}
                    for m in (L.eir_runtime_missing_op(rt, i).contents for i in range(n))]
            else:
                res["reason"] = L.eir_runtime_errmsg(rt).decode(errors="replace") if rt else "out of memory"
            return res
        finally:
            L.eir_runtime_free(rt)

    def _io(self, key: str) -> List[Dict[str, Any]]:
        res = []
        for e in self.info().get(key, []):
            d = dict(e)
            if "dtype" in d:
                d["dtype"] = _np_dtype(d["dtype"])
            if "shape" in d:
                d["shape"] = tuple(s if isinstance(s, int) else str(s) for s in d["shape"])
            res.append(d)
        return res

    @property
    def inputs(self) -> List[Dict[str, Any]]:
        """The flattened user inputs: dicts with ``name``, ``kind``, ``dtype``
        (a NumPy dtype; the name, e.g. "bfloat16", when NumPy has none) and
        ``shape`` (ints, and symbolic dims as strings such as "s77")."""
        return self._io("inputs")

    @property
    def outputs(self) -> List[Dict[str, Any]]:
        """The flattened user outputs, described as :attr:`inputs` are."""
        return self._io("outputs")

    # ---- running ----
    def _runtime(self):
        if self._rt is None:
            L = _lib.lib()
            rt = ctypes.c_void_p()
            st = L.eir_runtime_create_with(self._p, self._eir_lib, ctypes.byref(rt))
            if st != 0:
                msg = L.eir_runtime_errmsg(rt).decode(errors="replace") if rt else "out of memory"
                L.eir_runtime_free(rt)
                raise EirError(msg)
            self._rt = rt
            n = L.eir_runtime_num_inputs(rt)
            self._in_info = []
            for i in range(n):
                inf = IoInfo()
                L.eir_runtime_input_info(rt, i, ctypes.byref(inf))
                self._in_info.append((inf.dtype, inf.is_constant, inf.is_tensor))
            self._n_out = L.eir_runtime_num_outputs(rt)
            self._out_none = []
            for i in range(self._n_out):
                inf = IoInfo()
                L.eir_runtime_output_info(rt, i, ctypes.byref(inf))
                self._out_none.append(bool(inf.is_none))
        return self._rt

    def _view(self, x: Any, dtype_code: int, keep: list) -> TensorView:
        explicit = isinstance(x, np.ndarray) or hasattr(x, "__array__") or hasattr(x, "__dlpack__")
        a = _to_array(x)
        if dtype_code == _BF16 and a.dtype != np.uint16:
            a = _f32_to_bf16_bits(a)
        elif dtype_code == _C32:
            a = np.ascontiguousarray(a, dtype=np.complex64).view(np.float32).astype(np.float16)
        elif not explicit and dtype_code in _DTYPES:
            a = np.asarray(a, dtype=_DTYPES[dtype_code])  # Python numbers and lists
        code = dtype_code if dtype_code in (_BF16, _C32) else _CODE.get(a.dtype)
        if code is None:
            raise EirError(f"input dtype {a.dtype} is not one eir runs")
        item = a.dtype.itemsize * (2 if dtype_code == _C32 else 1)
        sizes = (ctypes.c_int64 * max(a.ndim, 1))(*a.shape[: a.ndim] if dtype_code != _C32 else a.shape[:-1])
        strides = None
        if not a.flags.c_contiguous:
            if all(s >= 0 and s % item == 0 for s in a.strides):
                strides = (ctypes.c_int64 * max(a.ndim, 1))(*(s // item for s in a.strides))
            else:
                a = np.ascontiguousarray(a)
        keep.append((a, sizes, strides))
        rank = a.ndim - (1 if dtype_code == _C32 else 0)
        v = TensorView(a.ctypes.data if a.size else None, code, rank, sizes)
        if strides is not None:
            v.strides = strides
        return v

    def run(self, *inputs: Any) -> List[np.ndarray]:
        """Run the program on its flattened user inputs, in order.

        Each input is a NumPy array or anything ``np.asarray`` takes (an
        object with ``__array__`` or the buffer protocol, such as a CPU
        torch tensor, viewed without a copy when contiguous) or with
        ``__dlpack__``; a Python int or float for a symbolic-int input or a
        burned-in constant (constants may also be left out). A bfloat16
        input takes a bfloat16 torch tensor, a float32 array (rounded to
        nearest even) or a uint16 array of bfloat16 bit patterns. Returns the
        user outputs as new NumPy arrays owned by Python. Inputs the program
        mutates are written back into the caller's array. Raises
        :class:`EirError` with eir's message (e.g. on a wrong input shape:
        "input 0 'x': ...")."""
        L = _lib.lib()
        rt = self._runtime()
        n = len(self._in_info)
        given = list(inputs)
        if len(given) != n:
            free = [i for i, (_, const, _) in enumerate(self._in_info) if not const]
            if len(given) != len(free):
                raise EirError(f"expected {n} inputs" +
                               (f" ({len(free)} without the constants)" if len(free) != n else "") +
                               f", got {len(given)}")
            slots: List[Any] = [None] * n
            for i, x in zip(free, given):
                slots[i] = x
        else:
            slots = given
        keep: list = []
        for i, x in enumerate(slots):
            if x is None and self._in_info[i][1]:
                continue
            v = self._view(x, self._in_info[i][0], keep)
            if L.eir_runtime_set_input(rt, i, ctypes.byref(v)) != 0:
                raise EirError(L.eir_runtime_errmsg(rt).decode(errors="replace"))
        if L.eir_runtime_run(rt) != 0:
            raise EirError(L.eir_runtime_errmsg(rt).decode(errors="replace"))
        outs: List[Any] = []
        for i in range(self._n_out):
            if self._out_none[i]:
                outs.append(None)  # torch returns None there
                continue
            v = TensorView()
            if L.eir_runtime_output(rt, i, ctypes.byref(v)) != 0:
                raise EirError(L.eir_runtime_errmsg(rt).decode(errors="replace"))
            outs.append(_copy_view(v))
        del keep
        return outs

    __call__ = run

    def forward(self, *inputs: Any) -> Any:
        """Like ``ep.module()(x0, ...)``: the outputs in the program's output
        structure (an array, or tuples, lists and dicts of them, None, as the
        exported ``forward`` returned them); :meth:`run` takes the same
        inputs and returns the flat list."""
        return self.unflatten(self.run(*inputs))

    def unflatten(self, flat: List[Any]) -> Any:
        """Arrange a flat list of outputs in the program's output structure
        (its out_spec: tuples, lists, dicts, namedtuples as tuples, None)."""
        spec = self._out_spec()
        if spec is None:
            return flat
        it = iter(flat)
        res = _unflatten(spec, it)
        if next(it, _END) is not _END:
            raise EirError("the program's output structure holds fewer values than it returns")
        return res

    def _out_spec(self) -> Any:
        if not hasattr(self, "_spec"):
            L = _lib.lib()
            self._spec = None
            if L.eir_program_num_module_calls(self._p):
                mc = L.eir_program_module_call(self._p, 0)
                if mc and mc.contents.out_spec:
                    doc = json.loads(mc.contents.out_spec.decode())
                    if isinstance(doc, list) and len(doc) == 2 and doc[0] == 1:
                        self._spec = doc[1]
        return self._spec

    def state(self, fqn: str) -> np.ndarray:
        """A copy of buffer or parameter ``fqn`` as the next run will see it
        (buffers the program mutates carry the previous runs' updates)."""
        L = _lib.lib()
        rt = self._runtime()
        v = TensorView()
        if L.eir_runtime_state(rt, fqn.encode(), ctypes.byref(v)) != 0:
            raise EirError(L.eir_runtime_errmsg(rt).decode(errors="replace"))
        return _copy_view(v)

    def seed(self, seed: int) -> None:
        """Seed the runtime's random generator (rand, dropout in training)."""
        _lib.lib().eir_runtime_seed(self._runtime(), seed)

    def set_threads(self, n: int) -> None:
        """Run on n threads (1, the default: the calling thread only; 0: the
        machine's cores). Outputs are the same, bit for bit, at any count."""
        L = _lib.lib()
        rt = self._runtime()
        if L.eir_runtime_set_threads(rt, int(n)) != 0:
            raise EirError(L.eir_runtime_errmsg(rt).decode(errors="replace"))

    @property
    def threads(self) -> int:
        """The threads runs use (eir_runtime_threads)."""
        return _lib.lib().eir_runtime_threads(self._runtime())

    def set_profiling(self, on: bool = True) -> None:
        """Time every node of the runs from now on (False: stop and drop the counts).
        The nodes are those the runtime runs: fused eir_cpu operators under their own names."""
        L = _lib.lib()
        rt = self._runtime()
        if L.eir_runtime_set_profiling(rt, 1 if on else 0) != 0:
            raise EirError(L.eir_runtime_errmsg(rt).decode(errors="replace"))

    def reset_profile(self) -> None:
        """Zero the profile's counts (profiling stays on)."""
        _lib.lib().eir_runtime_profile_reset(self._runtime())

    def profile(self) -> Dict[str, Any]:
        """The profile so far: ``runs``, ``run_us`` (their total time), ``last_run_us`` and
        ``steps``, one dict per node in execution order with ``node``, ``target``, ``calls``,
        ``total_us``, ``last_start_us`` and ``last_us`` (the last run's call). Empty (runs 0,
        no steps) when profiling is off."""
        L = _lib.lib()
        pr = _lib.Profile()
        if L.eir_runtime_profile(self._runtime(), ctypes.byref(pr)) != 0:
            raise EirError("profile: no runtime")
        steps = []
        for i in range(pr.num_steps):
            s = pr.steps[i]
            steps.append({"node": s.node.decode(errors="replace"), "target": s.target.decode(errors="replace"),
                          "calls": int(s.calls), "total_us": float(s.total_us),
                          "last_start_us": float(s.last_start_us), "last_us": float(s.last_us)})
        return {"runs": int(pr.runs), "run_us": float(pr.run_us), "last_run_us": float(pr.last_run_us),
                "steps": steps}

    def close(self) -> None:
        """Free the runtime and the program (also done when the object is collected)."""
        L = _lib._LIB
        if L is None:
            return
        if self._rt is not None:
            L.eir_runtime_free(self._rt)
            self._rt = None
        if self._p is not None:
            L.eir_program_free(self._p)
            self._p = None
        if self._eir_lib is not None:
            L.eir_library_free(self._eir_lib)
            self._eir_lib = None

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def load(source: Union[str, os.PathLike, bytes, bytearray, memoryview],
         ops: Union[None, str, os.PathLike, Sequence[Union[str, os.PathLike]]] = None) -> Program:
    """Load a program from a ``.pt2`` path or the archive's bytes, or from
    the text form: the text ``print(ep)`` prints, as a str or a file
    (docs/TEXT-FORM.md; state is zero-filled).

    ``ops``: path(s) of shared libraries of custom operators (exporting
    ``eir_ops_init``, as ``eir run --ops`` loads them; see
    examples/custom_ops.c). Raises :class:`EirError` with eir's message."""
    return Program(source, ops=ops)
