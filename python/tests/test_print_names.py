"""`eir print` (all three forms) against torch 2.13 for the naming and
ordering rules of torch's printers, exported live:

  - inputs named like Python builtins, keywords-adjacent names and the code
    generator's own globals (`input`, `min`, `list`, `torch`, `device`,
    `inf`, ...): FX's _Namespace renames them in code (`input_1 = input`),
    also when the new name is already taken, in nested graphs and with
    strict=True;
  - buffers, parameters, constants and submodules named like builtins,
    dict keys and list/tuple inputs (their placeholders are prefixed, so
    no renaming), mutated inputs and buffers;
  - a get_attr of a nested graph whose name collides with a placeholder
    (`%true_graph_2 = get_attr[target=true_graph_0]`);
  - call nodes that return None (`lazy_load_decompositions_unused` from
    torch.vmap, _assert_async, print);
  - symbolic expressions in sympy's str() order (`10 - u0`, `s27*s77`) and
    range constraints of unbacked symbols the loaded graph no longer uses.

Each case is exported once, saved, loaded back with torch.export.load, and
compared with `eir print`, `eir print --code` and `eir print --program`.
"""
from __future__ import annotations

import keyword
import os
import subprocess

import pytest

torch = pytest.importorskip("torch")

from test_conformance import assert_same_text  # noqa: E402


def _mod(sig, body):
    """an nn.Module whose forward has the given signature and body (';' separated)"""
    ns = {"torch": torch}
    exec(f"def forward(self, {sig}):\n" + "".join("    " + s.strip() + "\n" for s in body.split(";")), ns)
    return type("M", (torch.nn.Module,), {"forward": ns["forward"]})()


def _builtin_names():
    from torch.fx.graph import _illegal_names
    return sorted(n for n in _illegal_names if n.isidentifier() and not keyword.iskeyword(n) and n != "__debug__")


def _x(*shape):
    return torch.randn(*shape)


class _Cond(torch.nn.Module):
    def forward(self, input, true_graph_0):
        def t(input, list):
            return input.sin() + list

        def f(input, list):
            return input.cos() - list
        return torch.cond(input.sum() > 0, t, f, (input, true_graph_0))


class _Cond2(torch.nn.Module):
    def forward(self, true_graph_0, false_graph_0, true_graph_1):
        def t(a, b):
            return a.sin() + b

        def f(a, b):
            return a.cos() - b
        r = torch.cond(true_graph_0.sum() > 0, t, f, (true_graph_0, false_graph_0))
        return torch.cond(r.sum() > 0, t, f, (r, true_graph_1))


class _While(torch.nn.Module):
    def forward(self, input, max):
        return torch._higher_order_ops.while_loop(lambda i, x: i < 3, lambda i, x: (i + 1, x * 2), (input, max))


class _Map(torch.nn.Module):
    def forward(self, input):
        return torch._higher_order_ops.map(lambda input: input.sin(), input)


class _Vmap(torch.nn.Module):
    def forward(self, x):
        return torch.vmap(lambda r: r.sin() * 2)(x)


class _AssertAsync(torch.nn.Module):
    def forward(self, x):
        torch._assert_async(x.sum() > -1000, "msg")
        torch._assert_async(x.sum() > -1000)
        return x + 1


class _TenMinus(torch.nn.Module):
    def forward(self, x, y):
        u = y.item()
        torch._check(u > 2)
        torch._check(u < 10)
        return torch.ones(10 - u) * x.sum()


class _Flatten(torch.nn.Module):
    def forward(self, x, y):
        return x.reshape(-1), (x * 2).flatten() + y.reshape(-1)[: x.shape[0] * x.shape[1]].sum(), x.shape[1] - x.shape[0]


class _Nonzero(torch.nn.Module):
    def forward(self, x):
        n = x.nonzero()
        return n.sum() + 1


class _Unique(torch.nn.Module):
    def forward(self, x):
        return torch.masked_select(x, x > 0).sum() + torch.unique(x).shape[0]


class _CondNonzero(torch.nn.Module):
    def forward(self, x):
        return torch.cond(x.sum() > 0, lambda x: x.nonzero().sum(0), lambda x: x.nonzero().sum(0) + 1, (x,))


class _DictKeys(torch.nn.Module):
    def forward(self, d):
        return d["input"] + d["max"] * d["class"] + d["a-b"] + d["1x"]


class _Lists(torch.nn.Module):
    def forward(self, list, tuple):
        return list[0] + list[1] + tuple[0]


class _Attrs(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("input", torch.ones(3))
        self.max = torch.nn.Linear(3, 3)
        self.torch = torch.nn.Parameter(torch.ones(3))
        self.sum = torch.ones(3) * 2

    def forward(self, min):
        return self.max(min + self.input) * self.torch + self.sum


class _Mutation(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("id", torch.zeros(3))

    def forward(self, input):
        self.id.add_(input)
        input.mul_(2)
        return input + self.id


class _GeneratedNames(torch.nn.Module):
    """inputs named like the nodes the loader generates"""
    def forward(self, output, getitem, cond, lazy_load_decompositions_unused, getitem_1, as_none):
        a, b = torch.split(output, 2)
        v = torch.vmap(lambda r: r * 2)(getitem.reshape(2, 2))
        c = torch.cond(cond.sum() > 0, lambda x: x + 1, lambda x: x - 1, (lazy_load_decompositions_unused,))
        return a + b, v, c, getitem_1 + as_none


class _GetitemTaken(torch.nn.Module):
    def forward(self, x, getitem):
        vals, idx = torch.max(x, 0)
        m = torch.var_mean(x, 0)
        return vals + getitem, idx, m[0]


class _OpNameTaken(torch.nn.Module):
    def forward(self, x, _native_batch_norm_legit_functional, getitem_3):
        return torch.nn.functional.batch_norm(x, torch.zeros(3), torch.ones(3), training=True) + getitem_3


class _ConstantInputs(torch.nn.Module):
    """non-tensor inputs named like builtins: their placeholders keep FX's name"""
    def forward(self, x, input, min, list=None, str="a"):
        return x * input + min


def _cases():
    """name -> (module factory, args, kwargs, strict, dynamic_shapes, decompose)"""
    c = {}
    names = _builtin_names()
    for i in range(0, len(names), 12):
        ch = names[i:i + 12]
        body = "return " + " + ".join(f"{n} * {k + 1}" for k, n in enumerate(ch))
        c[f"builtins{i // 12}"] = (lambda ch=ch, body=body: _mod(", ".join(ch), body), len(ch), False)
    for strict in (False, True):
        s = "strict" if strict else "nonstrict"
        c[f"taken.{s}"] = (lambda: _mod("input, input_1, input_2, min_1, min",
                                        "return input + input_1 * input_2 - min_1 / min"), 5, strict)
        c[f"taken_first.{s}"] = (lambda: _mod("input_1, input", "return input + input_1"), 2, strict)
        c[f"globals.{s}"] = (lambda: _mod("torch_1, torch, device, inf, nan, pytree, fx_pytree, NoneType",
                                          "return torch_1 + torch + device + inf + nan + pytree + fx_pytree + NoneType"),
                             8, strict)
        c[f"suffixes.{s}"] = (lambda: _mod("input_01, input_0, sum_2, sum", "return input_01 + input_0 + sum_2 + sum"),
                              4, strict)
        c[f"ops.{s}"] = (lambda: _mod("input, sum, max, min, abs, pow, round",
                                      "return torch.sum(input) + sum.max() + max.min() + min.abs() + abs.pow(2) "
                                      "+ pow.round() + round"), 7, strict)
        c[f"outputs.{s}"] = (lambda: _mod("input, list", "return input, list, input + list"), 2, strict)
        c[f"builtins_strict.{s}"] = (lambda: _mod("id, type, dict, len, str, object, super, print",
                                                  "return id + type * dict - len + str + object + super + print"),
                                     8, strict)
    return c


SIMPLE = _cases()

# name -> (module factory, example inputs, strict, dynamic_shapes)
OTHER = {}
for _strict in (False, True):
    _s = "strict" if _strict else "nonstrict"
    OTHER.update({
        f"cond_names.{_s}": (_Cond, lambda: (_x(3), _x(3)), _strict, None),
        f"cond_get_attr_collision.{_s}": (_Cond2, lambda: (_x(3), _x(3), _x(3)), _strict, None),
        f"while_names.{_s}": (_While, lambda: (torch.tensor(0), _x(3)), _strict, None),
        f"map_names.{_s}": (_Map, lambda: (_x(2, 3),), _strict, None),
        f"vmap_unused.{_s}": (_Vmap, lambda: (_x(2, 3),), _strict, None),
        f"assert_async.{_s}": (_AssertAsync, lambda: (_x(3),), _strict, None),
        f"ten_minus_u0.{_s}": (_TenMinus, lambda: (_x(5), torch.tensor(4)), _strict, None),
        f"nonzero_ranges.{_s}": (_Nonzero, lambda: (_x(5),), _strict, None),
        f"unique_ranges.{_s}": (_Unique, lambda: (_x(6),), _strict, None),
        f"cond_nonzero_ranges.{_s}": (_CondNonzero, lambda: (_x(4, 2),), _strict, None),
        f"dict_keys.{_s}": (_DictKeys, lambda: ({"input": _x(3), "max": _x(3), "class": _x(3), "a-b": _x(3),
                                                "1x": _x(3)},), _strict, None),
        f"list_tuple.{_s}": (_Lists, lambda: ([_x(3), _x(3)], (_x(3),)), _strict, None),
        f"attributes.{_s}": (_Attrs, lambda: (_x(3),), _strict, None),
        f"mutation.{_s}": (_Mutation, lambda: (_x(3),), _strict, None),
        f"constant_inputs.{_s}": (_ConstantInputs, lambda: (_x(3), 2, 1.5, None, "q"), _strict, None),
        f"generated_names.{_s}": (_GeneratedNames, lambda: (_x(4), _x(4), _x(3), _x(3), _x(3), _x(3)), _strict, None),
        f"getitem_taken.{_s}": (_GetitemTaken, lambda: (_x(4, 3), _x(3)), _strict, None),
        f"op_name_taken.{_s}": (_OpNameTaken, lambda: (_x(2, 3), _x(3), _x(3)), _strict, None),
    })
OTHER["flatten_products"] = (_Flatten, lambda: (_x(3, 4), _x(5, 6)), False,
                             ({0: torch.export.Dim("a"), 1: torch.export.Dim("b")},
                              {0: torch.export.Dim("c"), 1: torch.export.Dim("d")}))

VARIANTS = [(n, d) for n in SIMPLE for d in (False,)] + [(n, d) for n in OTHER for d in (False, True)]


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    d = tmp_path_factory.mktemp("print_names")
    cache = {}

    def get(name, decomp):
        key = (name, decomp)
        if key not in cache:
            if name in SIMPLE:
                make, nargs, strict = SIMPLE[name]
                ep = torch.export.export(make(), tuple(_x(3) for _ in range(nargs)), strict=strict)
            else:
                make, args, strict, dyn = OTHER[name]
                ep = torch.export.export(make(), args(), strict=strict, dynamic_shapes=dyn)
            if decomp:
                ep = ep.run_decompositions()
            path = os.path.join(d, f"{name}{'.decomp' if decomp else ''}.pt2")
            torch.export.save(ep, path)
            ep2 = torch.export.load(path)
            cache[key] = (path, {"graph": str(ep2.graph) + "\n", "code": ep2.graph_module.code + "\n",
                                 "program": str(ep2) + "\n"})
        return cache[key]
    return get


@pytest.mark.parametrize("form,flags", [("graph", []), ("code", ["--code"]), ("program", ["--program"])],
                         ids=["graph", "code", "program"])
@pytest.mark.parametrize("name,decomp", VARIANTS, ids=[n + (".decomp" if d else "") for n, d in VARIANTS])
def test_print_names(eir, exported, name, decomp, form, flags):
    path, texts = exported(name, decomp)
    p = subprocess.run([eir, "print", *flags, path], capture_output=True, timeout=120)
    assert p.returncode == 0, p.stderr.decode("utf-8", "replace")
    assert_same_text(p.stdout, texts[form].encode(), f"eir print {' '.join(flags)} {name}")
