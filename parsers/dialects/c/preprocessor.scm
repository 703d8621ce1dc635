; Preprocessor directives: macro definitions, includes, pragmas and other calls.
(preproc_def name: (identifier) @name) @define
(preproc_function_def name: (identifier) @name parameters: (preproc_params) @params) @define
(preproc_include path: (_) @path) @include
(preproc_call directive: (preproc_directive) @directive) @call
