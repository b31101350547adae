"""Machine checks of the posenc propositions: one literate SymPy script each.

Run them all with ``python -m proofs`` (or some: ``python -m proofs 1 8``).
"""
