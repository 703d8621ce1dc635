; Names a source declares besides its function definitions: variables (locals, globals, function
; pointers, prototypes) with their type, and type names (typedefs, struct/union tags), which C++ code
; may call as constructors. Used by parsers/calls.py.
(declaration type: (_) @type declarator: (_) @declarator)
(type_definition declarator: (_) @typename)
(struct_specifier name: (_) @typename)
(union_specifier name: (_) @typename)
