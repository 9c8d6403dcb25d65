"""Corpus modes that fail today because of astjax itself (entry name -> mode -> reason).

Each becomes `pytest.mark.xfail(strict=True, reason=...)`, so a fix shows up as
an XPASS: delete the line then. Every failing mode is listed explicitly; where
`grad` is listed, the jvp test skips its comparison with the reverse-mode
gradient (it still checks jvp against finite differences).
"""

XFAIL = {}
