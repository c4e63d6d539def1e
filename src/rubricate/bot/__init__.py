"""The bot core: payloads, command grammar, authorization, handlers and rendering (pure)."""
