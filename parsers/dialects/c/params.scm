; Parameters of one parameter_list, in order.
(parameter_list (parameter_declaration) @param)
