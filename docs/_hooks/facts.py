"""(placeholder: filled in by the issue-15 work on this hook)."""
