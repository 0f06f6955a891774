"""Continuous test generation (Campos et al., ASE 2014): budgets across units, history, seeding."""
