"""dicepod's PC side: the `dicepod` command and its verbs (see dicepod_host.commands)."""
