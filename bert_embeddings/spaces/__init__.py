"""Embedding spaces compared: a model's stages as tables (stages), the figures that compare two
of them over the pieces they share (compare), and their tables and neighbour lists kept on disk
(space_jobs)."""
