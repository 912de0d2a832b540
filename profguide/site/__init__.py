"""The guide's machinery: the recordings, recording them in fresh processes, and building the site's fragments.

Recording (``record``, ``launch``, ``recordings``) needs only torch and the
standard library, so that it runs on a bare GPU machine; building needs the
rest of profguide.
"""
