; C's cast/expression ambiguity. `(gi * (K)) + q` and `(gi * (K * J)) - q` are also read as casts of
; `+q` / `-q` to "pointer to function (K) returning gi"; where gi is a variable (it appears as an
; @value somewhere, and no typedef declares it) the program means the product. Used by parsers/casts.py.
(cast_expression
  type: (type_descriptor
    type: (type_identifier) @name
    declarator: (abstract_pointer_declarator
      declarator: (abstract_function_declarator parameters: (parameter_list) @params)))) @cast
(identifier) @value
