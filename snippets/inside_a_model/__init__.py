"""Part 5, Inside a model: the building blocks of a transformer that its pages profile."""
