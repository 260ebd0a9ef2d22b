"""The one place ccgym's version is written: ``ccgym.__version__``, ``ccgym
--version`` and the package metadata (pyproject.toml's
``[tool.scikit-build.metadata.version]`` reads this file) all come from here."""

__version__ = "0.1.0"
