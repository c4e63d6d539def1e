"""The openai adapter: the client, its faults, and what each server accepted (shell)."""
