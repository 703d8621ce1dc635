; Function definitions (kernels and helpers): name, parameter list, body.
(function_definition
  declarator: [
    (function_declarator declarator: (identifier) @name parameters: (parameter_list) @params)
    (pointer_declarator declarator: (function_declarator declarator: (identifier) @name parameters: (parameter_list) @params))
    (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name parameters: (parameter_list) @params)))
  ]
  body: (compound_statement) @body) @function
