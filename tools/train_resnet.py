"""Train the numpy ResNet with srcdiff gradients: the same as `python -m srcdiff train`."""

import sys

from srcdiff.train_cli import main

if __name__ == "__main__":
    sys.exit(main())
