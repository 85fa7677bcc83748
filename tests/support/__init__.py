"""Helpers shared by the test packages (fake model server, vault builders, fixtures)."""
