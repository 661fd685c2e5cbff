"""One module per `dicepod` verb. Each module defines:

    HELP = "one line shown in `dicepod --help`"
    def add_arguments(parser): ...     # argparse parser for this verb
    def run(args) -> int: ...          # the exit code; raise UserError for problems

cli.py discovers them, so adding a verb never edits a shared file. A module whose name starts
with an underscore is a helper, not a verb.
"""
