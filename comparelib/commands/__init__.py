"""CLI sub-commands, discovered by ``comparelib.cli``: one module each, defining ``register``."""
