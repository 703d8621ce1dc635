"""Which pointers in a kernel refer to which global buffer parameter.

A global (or constant) pointer parameter is a *buffer*. Local pointer variables initialised from
a buffer (``__global float *row = A + i * N;``) are *aliases* of it; a pointer expression built by
adding integers to one buffer or alias (``A + i``, ``row - 1 + j``) has that buffer as its *root*.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from tree_sitter import Node

_POINTER_SPACES = ("global", "constant")


@dataclass(frozen=True)
class Buffer:
    """One global-memory pointer parameter of the kernel.

    Args:
        index: position among the kernel's buffers (mark header slot).
        name: parameter name.
        address_space: ``"global"`` or ``"constant"``.
        elem_bytes: size of one element of the pointed-to type (footprint granularity).
        param_index: position among all kernel parameters (OpenCL argument index).
    """

    index: int
    name: str
    address_space: str
    elem_bytes: int
    param_index: int

    @property
    def index_arg(self) -> str:
        """The mark-header slot as OpenCL text (a helper clone passes it as a parameter)."""
        return f"{self.index}u"

    @property
    def elem_arg(self) -> str:
        """The element size in bytes as OpenCL text (a helper clone passes it as a parameter)."""
        return f"{self.elem_bytes}ul"

    @property
    def base_var(self) -> str:
        """The private variable holding the buffer's address at kernel entry."""
        return f"__kg_base_{self.index}"

    @property
    def char_ptr(self) -> str:
        """The byte-pointer type used to compute byte offsets into this buffer."""
        return f"__{self.address_space} const char *"


@dataclass(frozen=True)
class PointerRoot:
    """The identifier a pointer expression is built from and the buffer it refers to."""

    ident: Node
    buffer: Buffer
    has_cast: bool  # a cast inside the expression: its type may differ from the identifier's


@dataclass
class BufferTable:
    """Buffers of one kernel and the pointer variables aliasing them.

    Args:
        buffers: the kernel's global/constant pointer parameters, in parameter order.
        source: bytes the tree was parsed from (node text lookups).
    """

    buffers: list[Buffer]
    source: bytes
    aliases: dict[str, Buffer] = field(default_factory=dict)
    conflicts: set[str] = field(default_factory=set)

    @classmethod
    def from_function(cls, function, source: bytes) -> "BufferTable":
        """Collect the buffer parameters of ``function`` and the pointer aliases in its body."""
        buffers = []
        for k, p in enumerate(function.params):
            if p.is_pointer and p.address_space in _POINTER_SPACES:
                buffers.append(Buffer(len(buffers), p.name, p.address_space, int(p.elem_bytes), k))
        table = cls(buffers, source)
        table.aliases = {b.name: b for b in buffers}
        table._scan_aliases(function.body)
        return table

    def text(self, node: Node) -> str:
        return self.source[node.start_byte:node.end_byte].decode("utf-8")

    def lookup(self, name: str) -> Buffer | None:
        if name in self.conflicts:
            return None
        return self.aliases.get(name)

    def root(self, node: Node | None) -> PointerRoot | None:
        """The buffer a pointer-valued expression refers to, or None when it is not one of ours.

        Accepts an identifier, parentheses, casts, ``P + int``, ``int + P`` and ``P - int``.
        """
        return self._root(node, False)

    def _root(self, node: Node | None, cast: bool) -> PointerRoot | None:
        if node is None:
            return None
        kind = node.type
        if kind == "identifier":
            buf = self.lookup(self.text(node))
            return PointerRoot(node, buf, cast) if buf is not None else None
        if kind == "parenthesized_expression":
            inner = [c for c in node.named_children if c.type != "comment"]
            return self._root(inner[0], cast) if len(inner) == 1 else None
        if kind == "cast_expression":
            return self._root(node.child_by_field_name("value"), True)
        if kind == "binary_expression":
            op = self.text(node.child_by_field_name("operator"))
            left = self._root(node.child_by_field_name("left"), cast)
            right = self._root(node.child_by_field_name("right"), cast)
            if op == "+" and (left is None) != (right is None):
                return left or right
            if op == "-" and left is not None and right is None:
                return left
        return None

    def _scan_aliases(self, body: Node) -> None:
        """Record ``T *p = <buffer expr>`` declarations and flag pointers re-pointed elsewhere."""
        stack = [body]
        while stack:
            node = stack.pop()
            if node.type == "init_declarator":
                decl = node.child_by_field_name("declarator")
                if decl is not None and decl.type == "pointer_declarator":
                    name_node = _declared_name(decl)
                    root = self.root(node.child_by_field_name("value"))
                    if name_node is not None and root is not None:
                        self._bind(self.text(name_node), root.buffer)
            elif node.type == "assignment_expression":
                left = node.child_by_field_name("left")
                if left is not None and left.type == "identifier" and self.text(left) in self.aliases:
                    root = self.root(node.child_by_field_name("right"))
                    op = self.text(node.child_by_field_name("operator"))
                    if op == "=" and (root is None or root.buffer != self.aliases[self.text(left)]):
                        self.conflicts.add(self.text(left))
            stack.extend(reversed(node.children))

    def _bind(self, name: str, buffer: Buffer) -> None:
        known = self.aliases.get(name)
        if known is not None and known != buffer:
            self.conflicts.add(name)
        self.aliases[name] = buffer


def _declared_name(decl: Node) -> Node | None:
    while decl is not None and decl.type != "identifier":
        decl = decl.child_by_field_name("declarator")
    return decl
