"""Prints the intermediate form (:mod:`.ir`) as OpenCL C.

    source = print_kernel(kernel)

Nested operators are parenthesised, literals carry their type (``0.5f``, ``0.5``, ``3u``), and
function-like macros parenthesise their parameters. The text is plain OpenCL C 1.2 that
tree-sitter-c parses (no macros inside declarations).
"""
from __future__ import annotations

from . import ir

_INDENT = "    "


def literal(c: ir.Const) -> str:
    """A typed literal: ``0.5f`` (float), ``0.5`` (double), ``3`` (int), ``3u`` (uint).

    Args:
        c: the constant.
    """
    if c.ty.base == "float":
        text = repr(float(c.value)) + "f"
    elif c.ty.base == "double":
        text = repr(float(c.value))
    elif c.ty.base == "uint":
        text = f"{int(c.value)}u"
    else:
        text = str(int(c.value))
    return f"({text})" if text.startswith("-") else text


def _atomic(e: ir.Expr) -> bool:
    return isinstance(e, (ir.Const, ir.Var, ir.MacroConst, ir.WorkItem, ir.Call, ir.Load, ir.VLoad,
                          ir.Lane, ir.BufRef, ir.Splat))


class Printer:
    """Expression and statement printer.

    Args:
        macro_params: names printed parenthesised (the parameters of a function-like macro body).
    """

    def __init__(self, macro_params: frozenset = frozenset()):
        self.macro_params = macro_params

    def expr(self, e: ir.Expr) -> str:
        """The C text of one expression."""
        if isinstance(e, ir.Const):
            return literal(e)
        if isinstance(e, ir.Var):
            return f"({e.name})" if e.name in self.macro_params else e.name
        if isinstance(e, (ir.MacroConst, ir.BufRef)):
            return e.name
        if isinstance(e, ir.WorkItem):
            return f"{e.fn}({e.dim})"
        if isinstance(e, ir.Bin):
            return f"{self.operand(e.a)} {e.op} {self.operand(e.b)}"
        if isinstance(e, ir.Un):
            return f"{e.op}{self.operand(e.a)}"
        if isinstance(e, ir.Call):
            return f"{e.fn}({', '.join(self.expr(a) for a in e.args)})"
        if isinstance(e, ir.Cast):
            if e.ty.width > 1:
                return f"convert_{e.ty.ctype}({self.expr(e.a)})"
            return f"({e.ty.ctype}){self.operand(e.a)}"
        if isinstance(e, ir.Select):
            return f"{self.operand(e.c)} ? {self.operand(e.a)} : {self.operand(e.b)}"
        if isinstance(e, ir.Load):
            return f"{e.buf}[{self.expr(e.index)}]"
        if isinstance(e, ir.VLoad):
            return f"vload{e.ty.width}({self.expr(e.offset)}, {e.buf})"
        if isinstance(e, ir.Lane):
            return f"{self.operand(e.v)}.s{e.lane:x}"
        if isinstance(e, ir.Splat):
            return f"({e.ty.ctype})({self.expr(e.a)})"
        raise TypeError(f"cannot print {type(e).__name__}")

    def operand(self, e: ir.Expr) -> str:
        text = self.expr(e)
        return text if _atomic(e) else f"({text})"

    def stmts(self, body, depth: int) -> list[str]:
        """Lines of a statement list at indentation ``depth``."""
        out: list[str] = []
        for s in body:
            out += self.stmt(s, depth)
        return out

    def stmt(self, s: ir.Stmt, depth: int) -> list[str]:
        pad = _INDENT * depth
        if isinstance(s, ir.Decl):
            qual = "const " if s.const else ""
            init = f" = {self.expr(s.init)}" if s.init is not None else ""
            return [f"{pad}{qual}{s.var.ty.ctype} {s.var.name}{init};"]
        if isinstance(s, ir.ArrayDecl):
            space = "__local " if s.space == "local" else ""
            return [f"{pad}{space}{s.ty.ctype} {s.name}[{self.expr(s.size)}];"]
        if isinstance(s, ir.Assign):
            return [f"{pad}{self.expr(s.target)} {s.op} {self.expr(s.value)};"]
        if isinstance(s, ir.VStore):
            return [f"{pad}vstore{s.value.ty.width}({self.expr(s.value)}, {self.expr(s.offset)}, {s.buf});"]
        if isinstance(s, ir.If):
            lines = [f"{pad}if ({self.expr(s.cond)}) {{", *self.stmts(s.then, depth + 1)]
            if s.orelse:
                lines += [f"{pad}}} else {{", *self.stmts(s.orelse, depth + 1)]
            return lines + [f"{pad}}}"]
        if isinstance(s, ir.For):
            return self._for(s, depth)
        if isinstance(s, ir.While):
            if s.do:
                return [f"{pad}do {{", *self.stmts(s.body, depth + 1), f"{pad}}} while ({self.expr(s.cond)});"]
            return [f"{pad}while ({self.expr(s.cond)}) {{", *self.stmts(s.body, depth + 1), f"{pad}}}"]
        if isinstance(s, ir.Break):
            return [f"{pad}break;"]
        if isinstance(s, ir.Barrier):
            return [f"{pad}barrier(CLK_LOCAL_MEM_FENCE);"]
        if isinstance(s, ir.Atomic):
            value = f", {self.expr(s.value)}" if s.value is not None else ""
            return [f"{pad}atomic_{s.op}(&{s.buf}[{self.expr(s.index)}]{value});"]
        if isinstance(s, ir.Return):
            return [f"{pad}return;"]
        raise TypeError(f"cannot print {type(s).__name__}")

    def _for(self, s: ir.For, depth: int) -> list[str]:
        pad = _INDENT * depth
        lines = []
        if s.unroll is not None:
            lines.append(f"{pad}#pragma unroll" + (f" {s.unroll}" if s.unroll else ""))
        v = s.var.name
        if s.step_op == "+=" and isinstance(s.step, ir.Const) and s.step.value == 1:
            step = f"++{v}"
        else:
            step = f"{v} {s.step_op} {self.expr(s.step)}"
        cond = f"{v} {s.op} {self.operand(s.bound) if s.cond is not None else self.expr(s.bound)}"
        if s.cond is not None:  # a data-dependent second conjunct
            cond += f" && {self.operand(s.cond)}"
        head = f"for (int {v} = {self.expr(s.start)}; {cond}; {step})"
        return lines + [f"{pad}{head} {{", *self.stmts(s.body, depth + 1), f"{pad}}}"]


def _param(p: ir.Param) -> str:
    if p.kind == "scalar":
        return f"const {p.ty.ctype} {p.name}"
    if p.space == "constant":
        return f"__constant {p.ty.ctype}* {p.name}"
    const = "const " if p.role == "in" else ""
    return f"__global {const}{p.ty.ctype}* {p.name}"


def print_macro(m: ir.Macro) -> str:
    """``#define`` line of an object-like or function-like macro.

    Args:
        m: the macro.
    """
    if m.params is None:
        body = m.body if isinstance(m.body, int) else Printer().expr(m.body)
        return f"#define {m.name} {body}"
    body = Printer(frozenset(m.params)).expr(m.body)
    return f"#define {m.name}({', '.join(m.params)}) ({body})"


def print_helper(h: ir.Helper) -> str:
    """A helper function's definition.

    Args:
        h: the helper.
    """
    p = Printer()
    lines = [f"{h.ret.ctype} {h.name}({', '.join(_param(q) for q in h.params)})", "{"]
    lines += p.stmts(h.body, 1)
    lines += [f"{_INDENT}return {p.expr(h.result)};", "}"]
    return "\n".join(lines)


def print_kernel(k: ir.Kernel) -> str:
    """The complete OpenCL C source of one kernel: pragma, macros, helpers, the kernel.

    Args:
        k: the kernel.
    """
    parts = []
    if k.fp64:
        parts.append("#pragma OPENCL EXTENSION cl_khr_fp64 : enable")
    parts += [print_macro(m) for m in k.macros]
    if parts:
        parts.append("")
    for h in k.helpers:
        parts += [print_helper(h), ""]
    attr = ""
    if k.reqd_local is not None:
        attr = " __attribute__((reqd_work_group_size({})))".format(
            ", ".join(Printer().expr(d) if isinstance(d, ir.Expr) else str(d) for d in k.reqd_local))
    parts.append(f"__kernel{attr}")
    params = [_param(p) for p in k.params]
    parts.append(f"void {k.name}({', '.join(params)})")
    parts.append("{")
    parts += Printer().stmts(k.body, 1)
    parts.append("}")
    return "\n".join(parts) + "\n"
