"""Maps of every row of the vocabulary: t-SNE that keeps neighbours, computed once per model
and geometry in the background, kept on disk, read back by every session and replica.

neighbour_map  the map itself: exact neighbours, affinities, layout, recall, regions
map_reading    what a map says: neighbours kept per piece, hubs, labelled regions
map_jobs       maps on disk (checked by hash) and the job that computes one, one at a time
map_worker     the low-priority process a job runs
forecast       a map's time left, from its progress
prepare        a host's maps computed ahead of time (python -m bert_embeddings map)
"""
