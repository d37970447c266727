import sys

from tableside.cli import main

sys.exit(main())
