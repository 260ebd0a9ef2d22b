"""MkDocs hook: the package's docstrings are written for both ``help()`` and
Sphinx-style readers (``:class:`X```, ``::`` before a code block); the API
reference shows them as plain code and text rather than raw role markup."""

from __future__ import annotations

import re

ROLE = re.compile(r":(?:class|mod|func|meth|attr|data|exc|obj):<code([^>]*)>~?")
LITERAL = re.compile(r"::(</p>)")


def on_page_content(html: str, **kwargs) -> str:
    return LITERAL.sub(r":\1", ROLE.sub(r"<code\1>", html))
