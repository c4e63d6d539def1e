"""`python -m rubricate`: the same as the `rubricate` command."""

import sys

from rubricate.cli.main import main

sys.exit(main())
