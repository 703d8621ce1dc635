; Syntax errors: unexpected text and tokens the parser had to invent.
(ERROR) @error
(MISSING) @missing
