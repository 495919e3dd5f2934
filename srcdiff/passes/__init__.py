"""The optimisation passes over emitted gast functions, one module each (srcdiff/optimize.py
runs them in order). Every pass keeps every gradient as it is."""
