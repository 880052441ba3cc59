"""`python -m acidsql` is `acidsql`."""
import sys

from acidsql.cli.main import main

sys.exit(main())
