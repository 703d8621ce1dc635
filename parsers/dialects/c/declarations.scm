; Every declaration that can carry a qualifier (address space, const, ...).
(declaration) @declaration
(parameter_declaration) @declaration
(field_declaration) @declaration
(type_definition) @declaration
