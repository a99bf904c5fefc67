"""How the zoo in this folder is built: one recipe per model, the build and measure steps, the
model cards and the README table. Not shipped in the wheel; run from the repository root:

    python -m zoo.recipes build minilm-l6 --data DATA   # DATA: the benchmark data folder, docs/data.md
"""
