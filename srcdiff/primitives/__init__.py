"""The primitives srcdiff differentiates without reading their source, one record each
(registry.py). srcdiff/__init__.py imports the modules that declare them."""
