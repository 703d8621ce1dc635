; Calls of a function named by a plain identifier (`f(a, b)`): @callee, @args; @call the whole call.
; Calls through members (`s.f()`), scopes (`std::min`), templates (`f<T>()`) or pointers are not matched.
(call_expression function: (identifier) @callee arguments: (argument_list) @args) @call
