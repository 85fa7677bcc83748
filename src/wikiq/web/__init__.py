"""The local web page (`wikiq serve`): a FastAPI app over `Wiki`, loaded only to serve."""

from wikiq.web.app import create_app

__all__ = ["create_app"]
