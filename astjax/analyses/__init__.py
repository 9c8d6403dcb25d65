"""Analyses of normalized functions: what each statement applies, and what is active."""
