"""Renderers: the facts the analyses compute, put into words, tables and Markdown, each by one function.

``summary`` words the facts of a trace's summary that more than one output
states; ``explain`` is the reader's report (text, Markdown, JSON), ``diff``
and ``ops`` those of ``profguide diff`` and ``explain --ops``; ``fragments``
the Markdown of the site's fragments (tables, captions, provenance). They
compute nothing: the analyses (``profguide.analysis``) do.
"""
