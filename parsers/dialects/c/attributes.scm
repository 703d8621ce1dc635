; __attribute__((name(args))) and __attribute__((name)) on declarations and functions.
(attribute_specifier (argument_list (call_expression function: (identifier) @name arguments: (argument_list) @args))) @attribute
(attribute_specifier (argument_list (identifier) @name)) @attribute
