"""Serving treerag to several people: users, tenants and the checks every route makes."""
