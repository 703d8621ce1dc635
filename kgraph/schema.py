"""The kernel-graph schema: node types, edge flows, edge positions, feature columns, vocabulary version.

This is the ONE module that fixes these ids. Everything that turns a graph into numbers
(``kgraph.pyg``, ``kgraph.vocab``, the models) reads them from here. Changing an id, a table or
the meaning of a column changes the tensors a trained model sees: bump :data:`VOCAB_VERSION`.

A kernel graph holds four families of nodes:

* AST nodes — one per named tree-sitter node of the kernel and of the helpers it calls (comments
  dropped; ``parenthesized_expression``, ``else_clause`` and CUDA's ``subscript_argument_list`` are
  transparent: their child takes their place, so C, OpenCL and CUDA trees have the same shape).
* VARIABLE — one per scalar variable (parameter or local).
* BUFFER — one per pointer or array (``__global``/``__local``/``__constant`` buffers, private
  arrays, CUDA ``__shared__`` arrays); a local pointer initialised from a buffer aliases it.
* CONSTANT — one per named compile-time constant (object-like ``#define``) that the code uses.
* BUILTIN — one per called function that is not defined in the unit (``get_global_id``, ``sqrt``,
  ``barrier``, ``atomic_add``, function-like macros), and per CUDA built-in variable (``threadIdx``).

and four edge flows (see :class:`Flow` for the positions each uses).
"""
from __future__ import annotations

from enum import IntEnum
from functools import lru_cache

# Version of the whole numeric encoding (node types, flows, positions, dtype/address-space tables,
# token rules and kgraph/vocab.json). Bump on any change.
VOCAB_VERSION = "kgraph-vocab-2"


class NodeType(IntEnum):
    """Node type ids (column 0 of ``x``). AST kinds not listed map to OTHER."""

    OTHER = 0
    # --- synthetic nodes ---
    VARIABLE = 1
    BUFFER = 2
    CONSTANT = 3
    BUILTIN = 4
    # --- declarations ---
    FUNCTION = 5          # function_definition (kernel or helper; CONTROL entry of its body)
    PARAMETER = 6         # parameter_declaration
    PARAMETER_LIST = 7
    DECLARATION = 8
    INIT_DECLARATOR = 9
    POINTER_DECLARATOR = 10
    ARRAY_DECLARATOR = 11
    FUNCTION_DECLARATOR = 12
    TYPE = 13             # primitive_type, type_identifier, sized_type_specifier, type_descriptor
    QUALIFIER = 14        # type_qualifier, storage_class_specifier, attributes
    # --- statements ---
    COMPOUND = 15
    EXPRESSION_STMT = 16
    IF = 17
    FOR = 18
    WHILE = 19
    DO = 20
    SWITCH = 21
    CASE = 22
    BREAK = 23
    CONTINUE = 24
    RETURN = 25
    GOTO = 26
    LABEL = 27
    # --- expressions ---
    ASSIGNMENT = 28
    BINARY = 29
    UNARY = 30
    UPDATE = 31
    CONDITIONAL = 32
    CAST = 33
    CALL = 34
    ARGUMENTS = 35
    SUBSCRIPT = 36
    FIELD_ACCESS = 37
    POINTER_OP = 38       # pointer_expression: * dereference or & address-of
    COMMA = 39
    SIZEOF = 40
    INITIALIZER_LIST = 41
    COMPOUND_LITERAL = 42
    # --- leaves ---
    IDENTIFIER = 43
    FIELD = 44            # field_identifier (.x, .s0, threadIdx.x)
    NUMBER = 45
    CHAR = 46
    STRING = 47
    BOOL = 48             # true / false
    NULL = 49
    PREPROCESSOR = 50     # preproc_* lines inside a body (#pragma unroll)
    ERROR = 51            # tree-sitter ERROR / MISSING recovery nodes


# tree-sitter kind -> NodeType (shared by tree-sitter-c and tree-sitter-cuda).
AST_KIND_TO_TYPE: dict[str, NodeType] = {
    "function_definition": NodeType.FUNCTION,
    "parameter_declaration": NodeType.PARAMETER,
    "parameter_list": NodeType.PARAMETER_LIST,
    "declaration": NodeType.DECLARATION,
    "init_declarator": NodeType.INIT_DECLARATOR,
    "pointer_declarator": NodeType.POINTER_DECLARATOR,
    "abstract_pointer_declarator": NodeType.POINTER_DECLARATOR,
    "array_declarator": NodeType.ARRAY_DECLARATOR,
    "abstract_array_declarator": NodeType.ARRAY_DECLARATOR,
    "function_declarator": NodeType.FUNCTION_DECLARATOR,
    "primitive_type": NodeType.TYPE,
    "type_identifier": NodeType.TYPE,
    "sized_type_specifier": NodeType.TYPE,
    "type_descriptor": NodeType.TYPE,
    "type_qualifier": NodeType.QUALIFIER,
    "storage_class_specifier": NodeType.QUALIFIER,
    "attribute_specifier": NodeType.QUALIFIER,
    "attribute_declaration": NodeType.QUALIFIER,
    "compound_statement": NodeType.COMPOUND,
    "expression_statement": NodeType.EXPRESSION_STMT,
    "if_statement": NodeType.IF,
    "for_statement": NodeType.FOR,
    "while_statement": NodeType.WHILE,
    "do_statement": NodeType.DO,
    "switch_statement": NodeType.SWITCH,
    "case_statement": NodeType.CASE,
    "break_statement": NodeType.BREAK,
    "continue_statement": NodeType.CONTINUE,
    "return_statement": NodeType.RETURN,
    "goto_statement": NodeType.GOTO,
    "labeled_statement": NodeType.LABEL,
    "assignment_expression": NodeType.ASSIGNMENT,
    "binary_expression": NodeType.BINARY,
    "unary_expression": NodeType.UNARY,
    "update_expression": NodeType.UPDATE,
    "conditional_expression": NodeType.CONDITIONAL,
    "cast_expression": NodeType.CAST,
    "call_expression": NodeType.CALL,
    "argument_list": NodeType.ARGUMENTS,
    "subscript_expression": NodeType.SUBSCRIPT,
    "field_expression": NodeType.FIELD_ACCESS,
    "pointer_expression": NodeType.POINTER_OP,
    "comma_expression": NodeType.COMMA,
    "sizeof_expression": NodeType.SIZEOF,
    "alignof_expression": NodeType.SIZEOF,
    "initializer_list": NodeType.INITIALIZER_LIST,
    "compound_literal_expression": NodeType.COMPOUND_LITERAL,
    "identifier": NodeType.IDENTIFIER,
    "field_identifier": NodeType.FIELD,
    "statement_identifier": NodeType.IDENTIFIER,
    "number_literal": NodeType.NUMBER,
    "char_literal": NodeType.CHAR,
    "string_literal": NodeType.STRING,
    "concatenated_string": NodeType.STRING,
    "true": NodeType.BOOL,
    "false": NodeType.BOOL,
    "null": NodeType.NULL,
    "nullptr": NodeType.NULL,
    "preproc_call": NodeType.PREPROCESSOR,
    "preproc_def": NodeType.PREPROCESSOR,
    "preproc_function_def": NodeType.PREPROCESSOR,
    "preproc_if": NodeType.PREPROCESSOR,
    "preproc_ifdef": NodeType.PREPROCESSOR,
    "preproc_include": NodeType.PREPROCESSOR,
    "ERROR": NodeType.ERROR,
}

# Kinds that never become nodes. SKIPPED drops the whole subtree; TRANSPARENT drops the node and
# hangs its named children on its parent (taking its field and position).
SKIPPED_KINDS = frozenset({"comment", "string_content", "escape_sequence", "preproc_arg", "character"})
TRANSPARENT_KINDS = frozenset({"parenthesized_expression", "else_clause", "subscript_argument_list"})
# Kinds whose text is the node's token (leaves whose spelling matters).
LOOP_KINDS = frozenset({"for_statement", "while_statement", "do_statement"})


class Flow(IntEnum):
    """Edge flows (``edge_type``). The position (``edge_pos``) means, per flow:

    AST      parent -> child; position = index among the parent's kept children.
    CONTROL  statement -> statement in execution order (the function_definition node is the entry;
             a loop's header is the loop statement node, which holds its condition; a ``for``'s
             initializer and update are statements of their own). Positions: CTRL_NEXT, CTRL_TRUE,
             CTRL_FALSE, CTRL_BACK (exactly one per loop unless the body has several fall-through ends).
    DATA     def -> use over scalars from reaching definitions (a def is an init_declarator,
             assignment, ++/-- or a parameter's VARIABLE node), position DATA_VALUE; buffer traffic
             through the BUFFER node: access -> BUFFER (DATA_WRITE), BUFFER -> access (DATA_VALUE),
             index expression -> BUFFER (DATA_INDEX); declaration -> VARIABLE/BUFFER (DATA_DECL);
             CONSTANT/BUILTIN variable -> identifier use (DATA_VALUE); call argument k -> the callee
             parameter's VARIABLE/BUFFER (DATA_VALUE).
    CALL     call_expression -> BUILTIN node or helper function_definition (CALL_INVOKE);
             helper return statement -> call_expression (CALL_RETURN).
    """

    AST = 0
    CONTROL = 1
    DATA = 2
    CALL = 3


CTRL_NEXT, CTRL_TRUE, CTRL_FALSE, CTRL_BACK = 0, 1, 2, 3
DATA_VALUE, DATA_WRITE, DATA_INDEX, DATA_DECL = 0, 1, 2, 3
CALL_INVOKE, CALL_RETURN = 0, 1

# Columns of x (Long[N, 5]), in order.
FEATURE_COLUMNS = ("node_type", "token_id", "dtype_id", "address_space_id", "loop_depth")
MAX_LOOP_DEPTH = 7      # loop_depth column is clipped to [0, MAX_LOOP_DEPTH]
MAX_EDGE_POSITION = 15  # edge_pos is clipped to [0, MAX_EDGE_POSITION]

# Address spaces (column 3). "none" for nodes that are not memory objects or references to them.
ADDRESS_SPACES = ("none", "private", "global", "local", "constant", "generic")

# Scalar element types; dtype column = index in DTYPES. Vector types follow all scalars by rule.
SCALAR_DTYPES = ("none", "other", "void", "bool", "char", "uchar", "short", "ushort", "int", "uint",
                 "long", "ulong", "half", "float", "double", "size_t")
VECTOR_BASES = ("char", "uchar", "short", "ushort", "int", "uint", "long", "ulong", "half", "float",
                "double")
VECTOR_WIDTHS = (2, 3, 4, 8, 16)
DTYPES = SCALAR_DTYPES + tuple(f"{b}{w}" for b in VECTOR_BASES for w in VECTOR_WIDTHS)
DTYPE_ID = {name: i for i, name in enumerate(DTYPES)}
ADDRESS_SPACE_ID = {name: i for i, name in enumerate(ADDRESS_SPACES)}

# Spellings that normalise to the scalar names above.
DTYPE_ALIASES = {
    "unsigned": "uint", "unsigned int": "uint", "signed": "int", "signed int": "int",
    "unsigned char": "uchar", "signed char": "char", "unsigned short": "ushort", "short int": "short",
    "unsigned short int": "ushort", "unsigned long": "ulong", "long int": "long",
    "unsigned long int": "ulong", "long long": "long", "unsigned long long": "ulong",
    "long long int": "long", "unsigned long long int": "ulong", "_Bool": "bool",
    "int8_t": "char", "uint8_t": "uchar", "int16_t": "short", "uint16_t": "ushort",
    "int32_t": "int", "uint32_t": "uint", "int64_t": "long", "uint64_t": "ulong",
    "__half": "half", "ptrdiff_t": "long", "intptr_t": "long", "uintptr_t": "ulong",
    "longlong": "long", "ulonglong": "ulong",
}


# C's usual arithmetic conversions, defined once: a binary operation on two scalars takes the type
# that comes later here (integers by conversion rank, size_t as wide as ulong and ranked after it;
# half < float < double after every integer). The builder's dtype column (kgraph.builder_dtypes) and
# the analysis' value types (kgraph.analysis.ctype) both follow it, aliases through DTYPE_ALIASES.
CONVERSION_ORDER = ("bool", "char", "uchar", "short", "ushort", "int", "uint", "long", "ulong", "size_t",
                    "half", "float", "double")
CONVERSION_RANK = {name: rank for rank, name in enumerate(CONVERSION_ORDER)}
FLOAT_DTYPES = frozenset(CONVERSION_ORDER[CONVERSION_ORDER.index("half"):])


@lru_cache(maxsize=4096)
def dtype_name(spelling: str | None) -> str:
    """Normalise a C/OpenCL/CUDA type spelling (``unsigned int``, ``float4``, ``uint``) to a DTYPES name."""
    if not spelling:
        return "none"
    text = " ".join(spelling.replace("const", " ").replace("volatile", " ").split())
    text = DTYPE_ALIASES.get(text, text)
    return text if text in DTYPE_ID else "other"
