"""The code the guide's pages show, one package per part; each module also runs as a script."""
