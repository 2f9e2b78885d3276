import sys

from openletta.cli import main

sys.exit(main())
