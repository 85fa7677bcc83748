"""`python -m wikiq`: the same command as the `wikiq` script."""

from wikiq.cli import main

if __name__ == "__main__":
    main()
