"""The SMT encoding of a round, the rules' second reading. Analyses use it through one front door,
:class:`niagara_solver.encoding.relations.Relations`; the other modules are the machinery behind it."""
