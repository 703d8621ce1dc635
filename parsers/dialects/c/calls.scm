; Calls by name (builtins, math, helpers, barriers, atomics).
(call_expression function: (identifier) @callee arguments: (argument_list) @args) @call
