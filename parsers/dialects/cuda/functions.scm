; Function definitions (kernels and helpers): name, parameter list, body. CUDA is C++: a definition
; may name its function through namespace or class scopes (`void Aig::buildHashTable(...)`); @name is
; then the qualified_identifier (the front end takes its last component as the name).
(function_definition
  declarator: [
    (function_declarator declarator: [(identifier) (qualified_identifier)] @name parameters: (parameter_list) @params)
    (pointer_declarator declarator: (function_declarator declarator: [(identifier) (qualified_identifier)] @name parameters: (parameter_list) @params))
    (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: [(identifier) (qualified_identifier)] @name parameters: (parameter_list) @params)))
    (reference_declarator (function_declarator declarator: [(identifier) (qualified_identifier)] @name parameters: (parameter_list) @params))
  ]
  body: (compound_statement) @body) @function
