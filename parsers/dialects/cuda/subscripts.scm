; Array and buffer accesses: base expression and index expression (tree-sitter-cuda wraps indices).
(subscript_expression argument: (_) @array indices: (subscript_argument_list (_) @index)) @subscript
