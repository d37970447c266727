"""One module per CLI verb. Each defines ``NAME``, ``HELP``, ``add_arguments(parser)`` and ``run(args) -> int``.

The CLI discovers the modules in this package, so adding a verb is adding a file.
"""
