; Array and buffer accesses: base expression and index expression.
(subscript_expression argument: (_) @array index: (_) @index) @subscript
