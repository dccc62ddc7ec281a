"""What ``scorer-studio ui`` serves: the studio (``app.py``) behind the host guard.

``streamlit run`` finds the ``app`` below and serves it; the pages are those of ``app.py``.
"""

from __future__ import annotations

import streamlit as st
from starlette.middleware import Middleware

from studio.hosts import HostGuard

app = st.App("app.py", middleware=[Middleware(HostGuard)])
