"""Readers and pipelines: text validation, smart batching, validated file readers."""
