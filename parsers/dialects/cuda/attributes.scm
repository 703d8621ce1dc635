; __attribute__((...)) as in C, plus CUDA __launch_bounds__(max_threads[, min_blocks]).
(attribute_specifier (argument_list (call_expression function: (identifier) @name arguments: (argument_list) @args))) @attribute
(attribute_specifier (argument_list (identifier) @name)) @attribute
(launch_bounds "__launch_bounds__" @name) @attribute
