; Loops (for pragma attachment and loop nests).
(for_statement) @loop
(while_statement) @loop
(do_statement) @loop
