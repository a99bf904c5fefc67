"""Small helpers with no model knowledge: atomic files, verified array caches, unit vectors,
nested Keras configs, the NaN guard callback. Imports nothing else of the package."""
