"""OTTO Game Over: tile laying with closed shapes, the 8 ("OTTO Game Over") and secret cards."""
