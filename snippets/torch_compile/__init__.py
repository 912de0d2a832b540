"""Part 4, torch.compile: the functions its pages compile and profile."""
